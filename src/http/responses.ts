import { encodeErrorObject } from "./encodeErrorObject.js";
import type { ErrorCode, HandlerRequest, HandlerResponse } from "./types.js";

/** A GET response and its HEAD twin (same headers, no body), built once and shared. */
export interface ResponsePair {
  readonly get: HandlerResponse;
  readonly head: HandlerResponse;
}

const encoder = new TextEncoder();

/**
 * Freeze a response for GET and HEAD: `Content-Type` and `Content-Length` are added to
 * `headers` (after them, so the order on the wire is stable).
 *
 * @example
 * const pair = responsePair(200, { "Cache-Control": "no-store" }, "application/json", '{"a":1}');
 */
export function responsePair(
  status: number,
  headers: Readonly<Record<string, string>>,
  contentType: string,
  body: Uint8Array | string,
): ResponsePair {
  const bytes = typeof body === "string" ? encoder.encode(body) : body;
  const all = Object.freeze({
    ...headers,
    "Content-Type": contentType,
    "Content-Length": String(bytes.length),
  });
  return Object.freeze({
    get: Object.freeze({ status, headers: all, body: bytes }),
    head: Object.freeze({ status, headers: all, body: undefined }),
  });
}

/**
 * An error object response pair (`application/json`, `Cache-Control: no-store`).
 *
 * @example
 * errorPair(404, "web_framework_error", "not found", { "X-Content-Type-Options": "nosniff" }).get.body;
 */
export function errorPair(
  status: number,
  errorCode: ErrorCode,
  message: string,
  headers: Readonly<Record<string, string>>,
): ResponsePair {
  return responsePair(
    status,
    { ...headers, "Cache-Control": "no-store" },
    "application/json",
    encodeErrorObject(errorCode, message),
  );
}

/** One route: answers a GET (or, with `head`, a HEAD) of its path; `query` is the raw query string. */
export type Route = (request: HandlerRequest, head: boolean, query: string) => HandlerResponse;

/** The GET or the HEAD response of a pair. */
export function pick(pair: ResponsePair, head: boolean): HandlerResponse {
  return head ? pair.head : pair.get;
}
