import type { IncomingHttpHeaders } from "node:http";
import {
  createHandler,
  type HandlerEngine,
  type HandlerOptions,
  InvalidConfigError,
  safeParseHandlerOptions,
  type ValidationIssue,
} from "../../http/index.js";

/** Options of the Koa {@link gasdigest} middleware: every handler option, plus `prefix`. */
export interface KoaGasdigestOptions extends HandlerOptions {
  /**
   * Path to serve under (Koa has no mounting of its own): `"/chain"` serves
   * `/chain/v1/estimate_gas_price`. Requests outside it go to `next()`. Leave it out under
   * `koa-mount`, which strips its path itself.
   * @default "" (the root)
   */
  prefix?: string;
}

/** What the middleware uses of a Koa context (Koa 2 and 3 contexts fit). */
export interface KoaContextLike {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  status: number;
  body: unknown;
  set(headers: Readonly<Record<string, string>>): void;
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
  const namespace = handler.options.basePath === "" ? undefined : `${handler.options.basePath}/`;

  return async function gasdigest(ctx, next) {
    let url = ctx.url;
    if (prefix !== "") {
      const after = url.charCodeAt(prefix.length);
      if (!url.startsWith(prefix) || !(Number.isNaN(after) || after === 47 || after === 63)) {
        await next();
        return;
      }
      url = url.slice(prefix.length);
      if (url === "" || url.charCodeAt(0) === 63) url = `/${url}`;
    }
    if ((namespace === undefined || !url.startsWith(namespace)) && !handler.owns(url)) {
      await next();
      return;
    }
    const res = handler({ method: ctx.method, url, headers: ctx.headers });
    ctx.status = res.status;
    ctx.set(res.headers);
    // No body on HEAD, 204 and 304: Koa then sends the headers as set, Content-Length included.
    if (res.body !== undefined)
      ctx.body =
        typeof res.body === "string"
          ? res.body
          : Buffer.from(res.body.buffer, res.body.byteOffset, res.body.byteLength);
  };
}
