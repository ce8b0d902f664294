import type http from "node:http";
import { hostValueProblem } from "../../http/index.js";

/**
 * Why a request must get 400 for its `Host` header (RFC 9112 §3.2), or `undefined`: an HTTP/1.1
 * request without one, any request with more than one `Host` field line (node keeps the first
 * and drops the rest, so a proxy that reads another one would disagree with us about the
 * target), or one whose value is not a host (`hostValueProblem`, shared with the fetch
 * adapter). Node's own check (`requireHostHeader`, off in our server so that this answer carries
 * our error object) looks only for a missing one.
 * Every field line must be in `req.rawHeaders`: heads with more than node keeps are refused
 * before this is asked (see `fieldLines.ts`).
 *
 * @example
 * hostProblem(req); // "more than one Host header" for "Host: a\r\nHost: b"
 */
export function hostProblem(req: http.IncomingMessage): string | undefined {
  const raw = req.rawHeaders;
  let lines = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && name.toLowerCase() === "host") lines++;
  }
  if (lines === 0) return req.httpVersion === "1.1" ? "missing Host header" : undefined;
  if (lines > 1) return "more than one Host header";
  return hostValueProblem(req.headers.host ?? "");
}
