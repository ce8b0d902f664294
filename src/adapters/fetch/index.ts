// Runtime-neutral (Bun, Deno, Workers): import the handler's own modules, not the internal
// barrel, which also holds the node hosts' file reader.
import { InvalidArgumentError } from "../../core/errors.js";
import { unreadableIssue } from "../../core/readOptions.js";
import { createHandler } from "../../http/createHandler.js";
import type { HandlerOptions } from "../../http/handlerOptions.js";
import { hostValueProblem } from "../../http/hostValueProblem.js";
import { splitMountOptions, stripPrefix } from "../../http/mount.js";
import { notARequest } from "../../http/notARequest.js";
import type { HandlerEngine, HandlerRequest } from "../../http/types.js";

/** Options of {@link createFetchHandler}: every handler option, plus `prefix`. */
export interface FetchHandlerOptions extends HandlerOptions {
  /**
   * Path the handler is mounted under, stripped from `request.url` before routing, for hosts
   * that hand over the full URL (Bun, Deno, Workers, Next.js route handlers, a Hono route).
   * Requests outside it get the 404 error object. Not needed with Hono's `app.mount()`, which
   * strips its path itself.
   * @default "" (the root)
   */
  prefix?: string | undefined;
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
 * // Bun / Deno / Workers, with the explorer's files built into a module:
 * // import { explorerAssets } from "gasdigest/explorer-assets";
 * // export default { fetch: createFetchHandler(engine, { explorerAssets }) };
 * // Next.js app/chain/[...path]/route.ts: export const GET = createFetchHandler(engine, { prefix: "/chain" });
 */
export function createFetchHandler(
  engine: HandlerEngine,
  options?: FetchHandlerOptions,
): FetchHandler {
  const { prefix, handlerOptions } = splitMountOptions(options);
  const handler = createHandler(engine, handlerOptions);

  /** The handler's answer, or the adapter's own: 400 for a bad `Host`, 404 outside `prefix`. */
  function route(request: Request): ReturnType<typeof handler.respond> {
    // Deno and workerd paste the Host value before the target to make request.url: a Host
    // holding "/" or "?" would move the request, so it gets the node server's 400.
    let host: string | null;
    try {
      host = request.headers.get("host");
    } catch (cause) {
      // A Request-shaped object whose headers cannot be read is not a request to answer.
      throw new InvalidArgumentError([unreadableIssue("request.headers", cause)]);
    }
    const problem = host === null ? undefined : hostValueProblem(host);
    if (problem !== undefined) return handler.errorResponse(400, "web_framework_error", problem);
    const url = stripPrefix(targetOf(request.url), prefix);
    if (url === undefined) return handler.errorResponse(404, "web_framework_error", "not found");
    return handler.respond({ method: request.method, url, headers: headerView(request.headers) });
  }

  return async function gasdigestFetch(request: Request): Promise<Response> {
    if (!isFetchRequest(request))
      throw notARequest("a fetch Request (url, method and Headers)", request);
    const answer = route(request);
    // Only the metrics scrape is asynchronous.
    const res = answer instanceof Promise ? await answer : answer;
    const body = request.method === "HEAD" || res.body === undefined ? null : res.body;
    return new Response(body as ConstructorParameters<typeof Response>[0], {
      status: res.status,
      headers: res.headers,
    });
  };
}

/**
 * The path and query of `request.url`. Hosts hand over an absolute URL, except Bun for a request
 * without a valid `Host` (HTTP/1.0 without one, an empty or invalid one): there it is the request
 * target as sent, which is routed as the path it is.
 *
 * @example
 * targetOf("http://node.example/v1/-/healthy?x=1"); // "/v1/-/healthy?x=1"
 * targetOf("/v1/-/healthy"); // "/v1/-/healthy" (Bun, `GET /v1/-/healthy HTTP/1.0` without Host)
 * targetOf("//x/v1"); // "//x/v1", not "/v1"
 * targetOf("http://node.example/v1#top"); // "/v1"
 * targetOf("http://node.example?x=/v1"); // "/?x=/v1" (Deno, `GET http://node.example?x=/v1`)
 */
function targetOf(given: string): string {
  // A Request's URL may keep a fragment (`new Request("http://h/v1#x")`); a fetch never sends
  // it, so it is not part of the target, as for a URL parser.
  const hash = given.indexOf("#");
  const url = hash === -1 ? given : given.slice(0, hash);
  if (url.charCodeAt(0) === 47 /* / */) return url;
  // The authority ends at the first "/" or "?": Deno hands over an absolute-form target as sent,
  // so in `http://h?x=/v1` the "/" belongs to the query and the path is empty.
  const authority = url.indexOf("//") + 2;
  const slash = url.indexOf("/", authority);
  const query = url.indexOf("?", authority);
  if (query !== -1 && (slash === -1 || query < slash)) return `/${url.slice(query)}`;
  return slash === -1 ? "/" : url.slice(slash);
}

/** Whether `r` looks like a fetch `Request`: string `url` and `method`, `headers.get`. */
function isFetchRequest(r: unknown): r is Request {
  if (typeof r !== "object" || r === null) return false;
  try {
    const o = r as Partial<Request>;
    return (
      typeof o.url === "string" &&
      typeof o.method === "string" &&
      typeof o.headers === "object" &&
      o.headers !== null &&
      typeof o.headers.get === "function"
    );
  } catch {
    return false;
  }
}
