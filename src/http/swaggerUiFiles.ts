import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BaseError } from "../core/errors.js";
import { type ExplorerAssets, SWAGGER_UI_FILES, type SwaggerUiFile } from "./explorer.js";
import { shippedSwaggerUiBytes } from "./shippedSwaggerUi.js";

/**
 * Each file's bytes, or why it is not there: a server whose files are missing (bundled into one
 * file) answers each later request for them without looking on disk again (an audit's 10
 * clients made it search the disk 10,800 times a second). A failure that can pass (out of file
 * descriptors, a read error) is not kept: the next request reads again.
 */
const cache = new Map<SwaggerUiFile, Uint8Array | { missing: unknown }>();
let folder: string | { missing: unknown } | undefined;

/** Whether `err` says the file is not there, which no retry changes. */
const isMissing = (err: unknown) =>
  err instanceof BaseError ||
  ["ENOENT", "ENOTDIR"].includes((err as { code?: string })?.code ?? "");

function read(name: SwaggerUiFile): Uint8Array {
  let bytes = cache.get(name);
  if (bytes === undefined) {
    try {
      folder ??= swaggerUiFolder();
      if (typeof folder !== "string") throw folder.missing;
      // The build's copies are shipped already; swagger-ui-dist's (from the sources) are not.
      bytes = shippedSwaggerUiBytes(name, new Uint8Array(readFileSync(join(folder, name))));
    } catch (err) {
      if (!isMissing(err)) throw err;
      if (folder === undefined) folder = { missing: err };
      bytes = { missing: err };
    }
    cache.set(name, bytes);
  }
  if (!(bytes instanceof Uint8Array)) throw bytes.missing;
  return bytes;
}

/**
 * Where the files are: `dist/swagger-ui`, copied there from swagger-ui-dist by the build (an
 * installed gasdigest has no swagger-ui-dist), else, running from the sources, the dev
 * dependency itself.
 */
function swaggerUiFolder(): string {
  const own = fileURLToPath(new URL("../swagger-ui/", import.meta.url));
  if (existsSync(join(own, SWAGGER_UI_FILES[0]))) return own;
  try {
    return dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  } catch {
    throw new BaseError(
      "the explorer's Swagger UI files are not beside gasdigest's code (bundled into one file?): pass explorerAssets from gasdigest/explorer-assets, or explorerAssets: false",
    );
  }
}

/**
 * The explorer's Swagger UI files (node only), as copied into the package at build time: each is
 * read on its first request and kept for the life of the process (a file that is not there
 * too: it is not looked for again; a read that failed otherwise is tried again). What the node server and the
 * Express, Fastify and Koa adapters use when `explorerAssets` is left out.
 *
 * @throws nothing itself; a file that cannot be read throws on its first request (the handler
 *   answers 500 and logs the cause).
 * @example
 * createHandler(engine, { explorerAssets: swaggerUiFiles() });
 */
export function swaggerUiFiles(): ExplorerAssets {
  const files = {} as Record<SwaggerUiFile, () => Uint8Array>;
  for (const name of SWAGGER_UI_FILES) files[name] = () => read(name);
  return Object.freeze(files);
}
