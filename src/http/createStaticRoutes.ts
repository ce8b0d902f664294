import { BaseError } from "../core/errors.js";
import { etag, matchesEtag } from "./etag.js";
import {
  EXPLORER_CONTENT_TYPES,
  EXPLORER_CSP,
  EXPLORER_SCRIPT,
  type ExplorerAssets,
  explorerPage,
  SWAGGER_UI_FILES,
  type SwaggerUiFile,
} from "./explorer.js";
import { pick, type ResponsePair, type Route, responsePair } from "./responses.js";
import type { HandlerResponse } from "./types.js";
import { yamlText } from "./yamlText.js";

/** The bytes of one explorer file, calling a function value (once per handler, on first request). */
function fileBytes(assets: ExplorerAssets, name: SwaggerUiFile): Uint8Array {
  const given = assets[name];
  const content = typeof given === "function" ? given() : given;
  if (typeof content === "string") return new TextEncoder().encode(content);
  if (content instanceof Uint8Array) return content;
  throw new BaseError(`explorerAssets: ${name} returned neither bytes nor text`);
}

/**
 * The routes with fixed bodies, keyed by path below the base path (`/spec.json`, `/spec`,
 * `/spec/assets/swagger-ui.css`, ...): the OpenAPI document as JSON and YAML and, when `assets`
 * are given, the explorer page and its files. Each is encoded on first request, carries an ETag
 * and answers a matching `If-None-Match` with 304.
 *
 * @example
 * const routes = createStaticRoutes(document, { "X-Content-Type-Options": "nosniff" }, explorerAssets);
 * routes.get("/spec.json");
 */
export function createStaticRoutes(
  document: unknown,
  common: Readonly<Record<string, string>>,
  assets: ExplorerAssets | undefined,
): Map<string, Route> {
  /** A fixed body with an ETag, answering `If-None-Match` with 304. */
  function fixed(
    contentType: string,
    body: () => { bytes: Uint8Array | string },
    extra: Record<string, string> = {},
  ): Route {
    let pair: ResponsePair | undefined;
    let notModified: HandlerResponse | undefined;
    let tag = "";
    return (request, head) => {
      if (!pair) {
        const b = body();
        const bytes = typeof b.bytes === "string" ? new TextEncoder().encode(b.bytes) : b.bytes;
        tag = etag(bytes);
        const headers = { ...common, ...extra, ETag: tag };
        pair = responsePair(200, headers, contentType, bytes);
        notModified = Object.freeze({
          status: 304,
          headers: Object.freeze(headers),
          body: undefined,
        });
      }
      return matchesEtag(request.headers["if-none-match"], tag) ? notModified! : pick(pair, head);
    };
  }

  const revalidate = { "Cache-Control": "no-cache" };
  const specJson = fixed(
    "application/json",
    () => ({ bytes: JSON.stringify(document) }),
    revalidate,
  );
  const specYaml = fixed(
    "application/x-yaml",
    () => ({ bytes: yamlText(document as object) }),
    revalidate,
  );
  const page = fixed("text/html; charset=utf-8", () => ({ bytes: explorerPage() }), {
    ...revalidate,
    "Content-Security-Policy": EXPLORER_CSP,
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "SAMEORIGIN",
  });

  const routes = new Map<string, Route>([
    ["/spec.json", specJson],
    ["/spec.yaml", specYaml],
  ]);
  if (assets === undefined) return routes;
  routes.set("/spec", page);
  // Revalidated on each load, as the page is (a 304 against the ETag): the files sit at URLs
  // that stay the same from one release to the next, so an hour's max-age kept a browser on the
  // old explorer script, or an old Swagger UI beside a new one, for up to an hour after an upgrade.
  const cached = { "Cache-Control": "no-cache" };
  const script = fixed(
    EXPLORER_CONTENT_TYPES["explorer.js"],
    () => ({ bytes: EXPLORER_SCRIPT }),
    cached,
  );
  routes.set("/spec/assets/explorer.js", script);
  // Read on first request (a file that cannot be read is a 500 with the cause in the log).
  for (const name of SWAGGER_UI_FILES)
    routes.set(
      `/spec/assets/${name}`,
      fixed(EXPLORER_CONTENT_TYPES[name], () => ({ bytes: fileBytes(assets, name) }), cached),
    );
  return routes;
}
