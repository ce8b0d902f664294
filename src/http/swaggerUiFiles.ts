import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BaseError } from "../core/errors.js";
import { type ExplorerAssets, SWAGGER_UI_FILES, type SwaggerUiFile } from "./explorer.js";
import { shippedSwaggerUiBytes } from "./shippedSwaggerUi.js";

/**
 * Each file's content, or why it is not there: a server whose files are missing (bundled into one
 * file) answers each later request for them without looking on disk again (an audit's 10
 * clients made it search the disk 10,800 times a second). A failure that can pass (out of file
 * descriptors, a read error) is not kept: the next request reads again.
 */
const cache = new Map<SwaggerUiFile, Uint8Array | { missing: unknown }>();

/** Where the files are: the package's module of them, swagger-ui-dist's folder, or neither. */
type Place =
  | { readonly assets: Readonly<Record<SwaggerUiFile, Uint8Array | string>> }
  | { readonly folder: string }
  | { readonly missing: unknown };
let place: Place | undefined;

/** What `dist/explorerAssets.cjs` (scripts/buildExplorerAssets.mjs) exports. */
interface GeneratedModule {
  readonly explorerAssets: Readonly<Record<SwaggerUiFile, Uint8Array | string>>;
}

/** Whether `err` says the file is not there, which no retry changes. */
const isMissing = (err: unknown) =>
  err instanceof BaseError ||
  ["ENOENT", "ENOTDIR"].includes((err as { code?: string })?.code ?? "");

function read(name: SwaggerUiFile): Uint8Array {
  let content = cache.get(name);
  if (content === undefined) {
    try {
      place ??= swaggerUiPlace();
      if ("missing" in place) throw place.missing;
      // The build's module holds them shipped already; swagger-ui-dist's (from the sources) not.
      // Its text is encoded here, once per process: left a string, each handler encoded its own
      // copy (1.9 MB per server in a process).
      const given =
        "assets" in place
          ? place.assets[name]
          : shippedSwaggerUiBytes(name, new Uint8Array(readFileSync(join(place.folder, name))));
      content = typeof given === "string" ? new TextEncoder().encode(given) : given;
    } catch (err) {
      if (!isMissing(err)) throw err;
      if (place === undefined) place = { missing: err };
      content = { missing: err };
    }
    cache.set(name, content);
  }
  if (typeof content === "object" && !(content instanceof Uint8Array)) throw content.missing;
  return content;
}

/**
 * Where the files are: `dist/explorerAssets.cjs`, the module the build writes them into from
 * swagger-ui-dist (the package's one copy, behind `gasdigest/explorer-assets` too: an installed
 * gasdigest has no swagger-ui-dist), loaded on the first request for one; else, running from the
 * sources, the dev dependency's folder.
 */
function swaggerUiPlace(): Place {
  const load = createRequire(import.meta.url);
  const own = fileURLToPath(new URL("../explorerAssets.cjs", import.meta.url));
  if (existsSync(own)) return { assets: (load(own) as GeneratedModule).explorerAssets };
  try {
    return { folder: dirname(load.resolve("swagger-ui-dist/package.json")) };
  } catch {
    throw new BaseError(
      "the explorer's Swagger UI files are not beside gasdigest's code (bundled into one file?): pass explorerAssets from gasdigest/explorer-assets (or explorerAssets: false for no explorer)",
    );
  }
}

/**
 * The explorer's Swagger UI files (node only), as copied into the package at build time: each is
 * loaded on its first request and kept for the life of the process (a file that is not there
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
