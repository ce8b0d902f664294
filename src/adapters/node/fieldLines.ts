import type http from "node:http";

/**
 * Header field lines of a request head the node server reads (node's own default). node keeps
 * the first `server.maxHeadersCount` lines and drops the rest silently; the server sets that
 * one above this, so that a head with more lines is recognised (and refused) instead of read in
 * part: a duplicate or invalid `Host` among the lines dropped would otherwise go unseen.
 */
export const MAX_FIELD_LINES = 1000;

/**
 * Whether `req`'s head has more than {@link MAX_FIELD_LINES} field lines. Exact when node reads
 * up to `MAX_FIELD_LINES + 1` of them: it stops keeping lines only past that count.
 *
 * @example
 * server.maxHeadersCount = MAX_FIELD_LINES + 1;
 * if (tooManyFieldLines(req)) answer(431);
 */
export function tooManyFieldLines(req: http.IncomingMessage): boolean {
  return req.rawHeaders.length > 2 * MAX_FIELD_LINES;
}
