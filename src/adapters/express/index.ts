import type { IncomingMessage, ServerResponse } from "node:http";
import {
  createNodeHandler,
  type HandlerEngine,
  type HandlerOptions,
  type HandlerResponse,
  stripPrefix,
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
 * segments resolved before the mount path is taken off, as other hosts do: see
 * {@link mountedTarget}). It answers its routes and every path under its `basePath` (an unknown
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
 * The request target relative to the mount path. Express takes the mount path (`req.baseUrl`)
 * off `req.url` before any dot segment is resolved, so `/chain/v1/../../v1/...` would reach the
 * middleware as `/v1/../../v1/...`, a gasdigest path, though it points outside the mount. Where
 * Express says where it mounted the middleware, the target is read from the whole URL
 * (`req.originalUrl`) with dot segments resolved first, as a URL parser and every other host do:
 * `undefined` when they lead out of the mount (the application's request). A bare Connect-style
 * server sets no `baseUrl`: `req.url` as given.
 */
function mountedTarget(
  req: IncomingMessage & { originalUrl?: unknown; baseUrl?: unknown },
): string | undefined {
  const { originalUrl, baseUrl } = req;
  if (typeof originalUrl === "string" && typeof baseUrl === "string" && baseUrl !== "")
    return stripPrefix(originalUrl, baseUrl);
  return req.url ?? "/";
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  next: (err?: unknown) => void,
  response: HandlerResponse,
) {
  try {
    res.writeHead(response.status, response.headers);
  } catch (err) {
    next(err);
    return;
  }
  if (response.body === undefined || req.method === "HEAD") res.end();
  else res.end(response.body);
}
