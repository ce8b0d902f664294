import type { IncomingHttpHeaders } from "node:http";
import {
  createNodeHandler,
  type HandlerEngine,
  type HandlerOptions,
  splitMountOptions,
  stripPrefix,
  withEarlierLists,
  withinMount,
} from "../../http/index.js";

/** Options of the Koa {@link gasdigest} middleware: every handler option, plus `prefix`. */
export interface KoaGasdigestOptions extends HandlerOptions {
  /**
   * Path to serve under (Koa has no mounting of its own): `"/chain"` serves
   * `/chain/v1/estimate_gas_price`. Requests outside it go to `next()`. Leave it out under
   * `koa-mount`, which strips its path itself.
   * @default "" (the root)
   */
  prefix?: string | undefined;
}

/** What the middleware uses of a Koa context (Koa 2 and 3 contexts fit). */
export interface KoaContextLike {
  /** The request method. */
  readonly method: string;
  /** Path and query, relative to where the app is mounted. */
  readonly url: string;
  /** The request target as received (Koa keeps it when `ctx.url` is rewritten or mounted). */
  readonly originalUrl?: string | undefined;
  /** Where koa-mount mounted the middleware (it takes this path off `ctx.url`). */
  readonly mountPath?: string | undefined;
  /** Request headers, names in lower case. */
  readonly headers: IncomingHttpHeaders;
  /** Response status, set for the routes it answers. */
  status: number;
  /** Response body: a `Buffer` for the routes it answers; left alone for answers without one. */
  body: unknown;
  /** Set response headers. */
  set(headers: Readonly<Record<string, string>>): void;
  /** The response, whose `Vary` (set by upstream middleware) is kept. */
  readonly response?: { get(field: string): unknown } | undefined;
}

/** A Koa middleware: `app.use(gasdigest(engine))`. */
export type GasdigestKoaMiddleware = (
  ctx: KoaContextLike,
  next: () => Promise<unknown>,
) => Promise<void>;

/**
 * Koa middleware serving the gasdigest interface (see docs/http.md): it sets `ctx.status`,
 * the headers and `ctx.body` for its routes and every path under its `basePath` (an unknown
 * `/v1/...` gets the 404 error object, a wrong method the 405), and calls `next()` only for
 * other requests. Errors are thrown to the upstream middleware, as Koa expects.
 *
 * @throws {InvalidConfigError} listing every invalid option, when the middleware is created.
 * @example
 * import Koa from "koa";
 * import { gasdigest } from "gasdigest/koa";
 * const app = new Koa();
 * app.use(gasdigest(engine, { prefix: "/chain" })); // GET /chain/v1/estimate_gas_price
 * app.listen(8080);
 */
export function gasdigest(
  engine: HandlerEngine,
  options?: KoaGasdigestOptions,
): GasdigestKoaMiddleware {
  const { prefix, handlerOptions } = splitMountOptions(options);
  const handler = createNodeHandler(engine, handlerOptions);

  return async function gasdigest(ctx, next) {
    const target = mountedTarget(ctx);
    const url = target === undefined ? undefined : stripPrefix(target, prefix);
    if (url === undefined || !handler.claims(url)) {
      await next();
      return;
    }
    const answer = handler.respond({ method: ctx.method, url, headers: ctx.headers });
    // Only the metrics scrape is asynchronous.
    const res = answer instanceof Promise ? await answer : answer;
    ctx.status = res.status;
    // A Vary or Access-Control-Expose-Headers set upstream (koa-compress adds Accept-Encoding,
    // @koa/cors Origin and the headers it exposes) is kept.
    ctx.set(withEarlierLists(res.headers, (name) => ctx.response?.get(name)));
    // No body on HEAD, 204 and 304: Koa then sends the headers as set, Content-Length included.
    if (res.body !== undefined)
      ctx.body = Buffer.from(res.body.buffer, res.body.byteOffset, res.body.byteLength);
  };
}

/**
 * The request target relative to the mount. koa-mount takes its path off `ctx.url` before any
 * dot segment is resolved, so `/chain/v1/../../v1/...` would reach the middleware as
 * `/v1/../../v1/...`, a gasdigest path, though it points outside the mount. Under koa-mount
 * (`ctx.mountPath`), dot segments are resolved as a URL parser does, on the whole URL where
 * `ctx.url` is it less the mount path (dots that come back into the mount land where they
 * point), else inside the mount ({@link withinMount}): `undefined` when they climb out of it
 * (the application's request), as the Express adapter does.
 */
function mountedTarget(ctx: KoaContextLike): string | undefined {
  const { url, originalUrl, mountPath } = ctx;
  if (typeof mountPath !== "string" || typeof originalUrl !== "string" || originalUrl === url)
    return url;
  if (originalUrl === mountPath + url) return stripPrefix(originalUrl, mountPath);
  return withinMount(url);
}
