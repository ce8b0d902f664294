import { InvalidConfigError } from "../core/errors.js";
import { unreadableOptions } from "../core/readOptions.js";
import { createHandler } from "./createHandler.js";
import type { HandlerOptions } from "./handlerOptions.js";
import { swaggerUiFiles } from "./swaggerUiFiles.js";
import type { Handler, HandlerEngine } from "./types.js";

/**
 * {@link createHandler} for the node hosts (the node server, Express, Fastify, Koa): the same
 * handler, with `explorerAssets` read from the package's copy of Swagger UI when left out, so the
 * explorer works with no configuration. Internal: not exported from a package entry point.
 *
 * @throws {InvalidConfigError} listing every invalid option.
 * @example
 * const handler = createNodeHandler(engine, { basePath: "/v1" });
 */
export function createNodeHandler(engine: HandlerEngine, options?: HandlerOptions | null): Handler {
  // Anything but an options object is left to createHandler, which names the problem.
  const unreadable = unreadableOptions(options);
  if (unreadable) throw new InvalidConfigError([unreadable]);
  if (options === undefined || options === null)
    return createHandler(engine, { explorerAssets: swaggerUiFiles() });
  if (
    typeof options === "object" &&
    !Array.isArray(options) &&
    options.explorerAssets === undefined
  )
    return createHandler(engine, { ...options, explorerAssets: swaggerUiFiles() });
  return createHandler(engine, options);
}
