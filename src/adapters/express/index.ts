import type { IncomingMessage, ServerResponse } from "node:http";
import {
  createNodeHandler,
  type HandlerEngine,
  type HandlerOptions,
  type HandlerResponse,
  stripPrefix,
  withEarlierLists,
  withinMount,
} from "../../http/index.js";

/**
 * A Connect / Express middleware. Typed on node's own request and response, so it fits
 * `app.use()` of Express 4 and 5, Connect, and any host passing `(req, res, next)`.
 */
export type GasdigestMiddleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (err?: unknown) => void,
) => void;

/**
 * Express / Connect middleware serving the gasdigest interface (see docs/http.md). It routes
 * on the target relative to where the middleware is mounted, so it works under any path (dot
 * segments that climb out of the mount make the request the application's, as on other hosts:
 * see {@link mountedTarget}). It answers its routes and every path under its `basePath` (an unknown
 * `/v1/...` gets the 404 error object, a wrong method the 405); any other request goes to
 * `next()`. If answering throws (headers already sent by an earlier middleware), the error
 * goes to `next(err)`; a logger that throws is ignored.
 *
 * @throws {InvalidConfigError} listing every invalid option, when the middleware is created.
 * @example
 * import express from "express";
 * import { gasdigest } from "gasdigest/express";
 * const app = express();
 * app.use("/chain", gasdigest(engine)); // GET /chain/v1/estimate_gas_price
 * app.listen(8080);
 */
export function gasdigest(engine: HandlerEngine, options?: HandlerOptions): GasdigestMiddleware {
  const handler = createNodeHandler(engine, options);

  return function gasdigest(req, res, next) {
    const url = mountedTarget(req);
    if (url === undefined || !handler.claims(url)) {
      next();
      return;
    }
    let answer: HandlerResponse | Promise<HandlerResponse>;
    try {
      answer = handler.respond({ method: req.method ?? "GET", url, headers: req.headers });
    } catch (err) {
      next(err);
      return;
    }
    // Only the metrics scrape is asynchronous.
    if (answer instanceof Promise) answer.then((response) => send(req, res, next, response), next);
    else send(req, res, next, answer);
  };
}

/**
 * The request target relative to the mount path. Express and Connect take the mount path off
 * `req.url` before any dot segment is resolved, so `/chain/v1/../../v1/...` would reach the
 * middleware as `/v1/../../v1/...`, a gasdigest path, though it points outside the mount. Where
 * the middleware is mounted (Express's `req.baseUrl`, or a `req.url` that is not the whole URL,
 * as Connect leaves it), dot segments are resolved inside the mount ({@link withinMount}):
 * `undefined` when they climb out of it (the application's request). What the host left in
 * `req.url` is what is read, so a rewrite of it is honoured; where it is the whole URL less
 * `req.baseUrl` (no rewrite), the whole URL is resolved, so dots that climb out and come back
 * into the mount land where they point.
 */
function mountedTarget(
  req: IncomingMessage & { originalUrl?: unknown; baseUrl?: unknown },
): string | undefined {
  const url = req.url ?? "/";
  const { originalUrl, baseUrl } = req;
  // Express says where: the whole URL is read, so dots that come back into the mount
  // (`/chain/v1/../../chain/v1`) land where they point, as a URL parser puts them.
  if (typeof baseUrl === "string" && baseUrl !== "" && originalUrl === baseUrl + url)
    return stripPrefix(originalUrl, baseUrl);
  // Express says where (a root mount is "", whatever an earlier middleware rewrote); Connect
  // does not, and a `req.url` that is not the whole URL is then the sign of a mount.
  const mounted =
    typeof baseUrl === "string"
      ? baseUrl !== ""
      : typeof originalUrl === "string" && originalUrl !== url;
  return mounted ? withinMount(url) : url;
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  next: (err?: unknown) => void,
  response: HandlerResponse,
) {
  try {
    // A Vary or Access-Control-Expose-Headers an earlier middleware set (an application's
    // cors() adds Origin, and the headers it exposes) is kept.
    res.writeHead(
      response.status,
      withEarlierLists(response.headers, (name) => res.getHeader(name)),
    );
  } catch (err) {
    next(err);
    return;
  }
  if (response.body === undefined || req.method === "HEAD") res.end();
  else res.end(response.body);
}
