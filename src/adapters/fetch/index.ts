import {
  createHandler,
  type HandlerEngine,
  type HandlerOptions,
  type HandlerRequest,
  InvalidConfigError,
  safeParseHandlerOptions,
  type ValidationIssue,
} from "../../http/index.js";

/** Options of {@link createFetchHandler}: every handler option, plus `prefix`. */
export interface FetchHandlerOptions extends HandlerOptions {
  /**
   * Path the handler is mounted under, stripped from `request.url` before routing, for hosts
   * that hand over the full URL (Bun, Deno, Workers, Next.js route handlers, a Hono route).
   * Requests outside it get the 404 error object. Not needed with Hono's `app.mount()`, which
   * strips its path itself.
   * @default "" (the root)
   */
  prefix?: string;
}

/** A WHATWG fetch handler: what Bun, Deno, Workers, Next.js route handlers and Hono call. */
export type FetchHandler = (request: Request) => Promise<Response>;

const EMPTY = Object.freeze({});

/**
 * A lazy, lower-case view of fetch `Headers` shaped like node's `req.headers`: the handler
 * reads two or three names, so nothing is copied (and hosts that build `Headers` lazily, such
 * as `@hono/node-server`, never have to).
 */
function headerView(headers: Headers): HandlerRequest["headers"] {
  return new Proxy(EMPTY, {
    get: (_target, name) =>
      typeof name === "string" ? (headers.get(name) ?? undefined) : undefined,
  });
}

/**
 * Serve the gasdigest interface (see docs/http.md) as a fetch handler,
 * `(request: Request) => Promise<Response>`.
 *
 * @throws {InvalidConfigError} listing every invalid option.
 * @example
 * import { Hono } from "hono";
 * import { createFetchHandler } from "gasdigest/fetch";
 * const app = new Hono();
 * app.mount("/chain", createFetchHandler(engine)); // GET /chain/v1/estimate_gas_price
 * // Bun / Deno / Workers: export default { fetch: createFetchHandler(engine) };
 * // Next.js app/chain/[...path]/route.ts: export const GET = createFetchHandler(engine, { prefix: "/chain" });
 */
export function createFetchHandler(
  engine: HandlerEngine,
  options?: FetchHandlerOptions,
): FetchHandler {
  let prefix = "";
  let rest: unknown = options;
  if (typeof options === "object" && options !== null && !Array.isArray(options)) {
    const { prefix: given, ...others } = options;
    rest = others;
    const issues: ValidationIssue[] = [];
    if (given !== undefined) {
      const p = safeParseHandlerOptions({ basePath: given });
      if (p.ok) prefix = p.value.basePath;
      else issues.push(...p.issues.map((i) => ({ ...i, path: "prefix" })));
    }
    const h = safeParseHandlerOptions(others);
    if (!h.ok) issues.push(...h.issues);
    if (issues.length > 0) throw new InvalidConfigError(issues);
  }
  const handler = createHandler(engine, rest as HandlerOptions | undefined);

  return async function gasdigestFetch(request: Request): Promise<Response> {
    const full = request.url;
    // The path and query of an absolute URL (fetch always hands one over).
    const slash = full.indexOf("/", full.indexOf("//") + 2);
    let url = slash === -1 ? "/" : full.slice(slash);
    let res: ReturnType<typeof handler>;
    if (prefix !== "") {
      const next = url.charCodeAt(prefix.length);
      const inside = url.startsWith(prefix) && (Number.isNaN(next) || next === 47 || next === 63);
      url = url.slice(prefix.length);
      if (url === "" || url.charCodeAt(0) === 63) url = `/${url}`;
      res = inside
        ? handler({ method: request.method, url, headers: headerView(request.headers) })
        : handler.errorResponse(404, "web_framework_error", "not found");
    } else res = handler({ method: request.method, url, headers: headerView(request.headers) });
    const body = request.method === "HEAD" || res.body === undefined ? null : res.body;
    return new Response(body as ConstructorParameters<typeof Response>[0], {
      status: res.status,
      headers: res.headers,
    });
  };
}
