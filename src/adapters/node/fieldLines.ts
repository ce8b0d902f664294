import type http from "node:http";

/**
 * Header field lines of a request head the node server reads (node's own default count). More
 * are answered 431 by the answerer ({@link tooManyFieldLines}), before the `Host` rules: a
 * duplicate or invalid `Host` past the lines read must not go unseen.
 */
export const MAX_FIELD_LINES = 1000;

/**
 * The `server.maxHeadersCount` for heads of at most `maxHeaderSize` bytes: more lines than such
 * a head can hold (node counts a line's name and value against that size, not its colon and
 * CRLF: a line `a:` counts 1 byte), and more than {@link MAX_FIELD_LINES}.
 *
 * - node without the fix of CVE-2026-58044 (Node 20) keeps the first `maxHeadersCount` lines and
 *   drops the rest silently: the count must pass `MAX_FIELD_LINES`, or a head with too many
 *   would not be seen.
 * - node with it (22.23.2, 24.18.1, 26.5.1 and later) refuses a head over the count as it
 *   refuses one over the bytes (`HPE_HEADER_OVERFLOW` both): the count must not be reached
 *   before the bytes are. Set one above `MAX_FIELD_LINES`, a head of 1,100 lines (6.6 KB) was
 *   answered 400 "request head is too large (over 16384 bytes)".
 *
 * The lines a head can carry stay bounded by `maxHeaderSize`: 16,384 lines of `a:` by default,
 * 64 KB read, answered 431 and closed.
 *
 * @example
 * server.maxHeadersCount = headerLinesKept(16_384); // 16385
 */
export function headerLinesKept(maxHeaderSize: number): number {
  return Math.max(MAX_FIELD_LINES, maxHeaderSize) + 1;
}

/**
 * Whether `req`'s head has more than {@link MAX_FIELD_LINES} field lines. Exact when node reads
 * more than `MAX_FIELD_LINES` of them ({@link headerLinesKept}).
 *
 * @example
 * server.maxHeadersCount = headerLinesKept(16_384);
 * if (tooManyFieldLines(req)) answer(431);
 */
export function tooManyFieldLines(req: http.IncomingMessage): boolean {
  return req.rawHeaders.length > 2 * MAX_FIELD_LINES;
}
