import { stringify } from "yaml";
import { etag, matchesEtag } from "./etag.js";
import { EXPLORER_ASSET_NAMES, EXPLORER_CSP, explorerPage, readExplorerAsset } from "./explorer.js";
import { pick, type ResponsePair, type Route, responsePair } from "./responses.js";
import type { HandlerResponse } from "./types.js";

/**
 * The routes with fixed bodies, keyed by path below the base path (`/spec.json`, `/spec`,
 * `/spec/assets/swagger-ui.css`, ...): the OpenAPI document as JSON and YAML, the explorer page
 * and its assets. Each is encoded on first request, carries an ETag and answers a matching
 * `If-None-Match` with 304.
 *
 * @example
 * const routes = createStaticRoutes(document, { "X-Content-Type-Options": "nosniff" });
 * routes.get("/spec.json");
 */
export function createStaticRoutes(
  document: unknown,
  common: Readonly<Record<string, string>>,
): Map<string, Route> {
  /** A fixed body with an ETag, answering `If-None-Match` with 304. */
  function fixed(
    contentType: string,
    body: () => { bytes: Uint8Array | string; etag?: string },
    extra: Record<string, string> = {},
  ): Route {
    let pair: ResponsePair | undefined;
    let notModified: HandlerResponse | undefined;
    let tag = "";
    return (request, head) => {
      if (!pair) {
        const b = body();
        const bytes = typeof b.bytes === "string" ? new TextEncoder().encode(b.bytes) : b.bytes;
        tag = b.etag ?? etag(bytes);
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
  const specYaml = fixed("application/x-yaml", () => ({ bytes: stringify(document) }), revalidate);
  const page = fixed("text/html; charset=utf-8", () => ({ bytes: explorerPage() }), {
    ...revalidate,
    "Content-Security-Policy": EXPLORER_CSP,
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "SAMEORIGIN",
  });

  const routes = new Map<string, Route>([
    ["/spec", page],
    ["/spec.json", specJson],
    ["/spec.yaml", specYaml],
  ]);
  for (const name of EXPLORER_ASSET_NAMES) {
    // Read on first request (a missing package is a 500 with the cause in the log, not a crash).
    let inner: Route | undefined;
    routes.set(`/spec/assets/${name}`, (request, head, query) => {
      if (!inner) {
        const asset = readExplorerAsset(name)!;
        inner = fixed(asset.contentType, () => asset, { "Cache-Control": "public, max-age=3600" });
      }
      return inner(request, head, query);
    });
  }
  return routes;
}
