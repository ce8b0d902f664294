import type http from "node:http";

/**
 * Why a request's message framing must get 400, or `undefined`: a `Transfer-Encoding` in an
 * HTTP/1.0 request. RFC 9112 §6.1 has a server treat it as faulty framing and close the
 * connection (HTTP/1.0 has no transfer codings, so an intermediary may frame the body
 * otherwise); node parses such a body as chunked and keeps the connection, so a request
 * smuggled after it would be answered.
 *
 * @example
 * framingProblem(req); // "Transfer-Encoding in an HTTP/1.0 request"
 */
export function framingProblem(req: http.IncomingMessage): string | undefined {
  return req.httpVersion === "1.0" && req.headers["transfer-encoding"] !== undefined
    ? "Transfer-Encoding in an HTTP/1.0 request"
    : undefined;
}
