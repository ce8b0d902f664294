import { createOpenApiDocument, type OpenApiDocument } from "./createOpenApiDocument.js";
import { createStaticRoutes } from "./createStaticRoutes.js";
import type { ResolvedHandlerOptions } from "./handlerOptions.js";
import type { Route } from "./responses.js";

/**
 * The handler's OpenAPI document and the routes that serve it: `<basePath>/spec.json|yaml`, the
 * explorer page and its files (with `explorerAssets`), and the root aliases `/spec.json|yaml`,
 * keyed by their path below the mount point.
 *
 * `document` names the base path in `servers` (`/v1`). The served copies differ in that field
 * alone: it is relative to where each is served (`../v1` at `/v1/spec.json`, `./v1` at
 * `/spec.json`), so that a client resolving it reaches the routes under any mount prefix, where a
 * root-relative `/v1` would leave the prefix.
 *
 * @example
 * const { document, routes } = createDocumentRoutes(parseHandlerOptions({}), {});
 * routes.get("/v1/spec.json"); // the document, servers [{ url: "../v1" }]
 */
export function createDocumentRoutes(
  o: ResolvedHandlerOptions,
  common: Readonly<Record<string, string>>,
): { document: OpenApiDocument; routes: Map<string, Route> } {
  const bp = o.basePath;
  const document = createOpenApiDocument({
    basePath: bp,
    headerPrefix: o.headerPrefix,
    bcsLayout: o.bcsLayout,
    jsonOutput: o.jsonOutput,
    bcsOutput: o.bcsOutput,
    estimateEnabled: o.estimateEnabled,
    maxStalenessMs: o.maxStalenessMs,
    explorer: o.explorerAssets !== undefined,
  });
  // Served from a copy taken now: each copy is encoded on its first request, and the caller may
  // change `handler.document` in between (SwaggerParser.validate dereferences it in place), which
  // made the JSON and the YAML, or the two copies, describe different documents.
  const made = JSON.parse(JSON.stringify(document)) as OpenApiDocument;
  const servedAt = (url: string) => ({ ...made, servers: [{ url }] });
  const atBase = servedAt(bp === "" ? "./" : `../${bp.slice(bp.lastIndexOf("/") + 1)}`);
  const routes = new Map<string, Route>();
  const statics = createStaticRoutes(atBase, common, o.explorerAssets);
  for (const [path, route] of statics) routes.set(bp + path, route);
  // The document also lives at the root of the mount point, whatever the base path.
  const atRoot = bp === "" ? statics : createStaticRoutes(servedAt(`.${bp}`), common, undefined);
  routes.set("/spec.json", atRoot.get("/spec.json")!);
  routes.set("/spec.yaml", atRoot.get("/spec.yaml")!);
  return { document, routes };
}
