import { STATUS_CODES } from "node:http";
import type { HandlerResponse } from "../../http/index.js";

/**
 * A response as raw HTTP/1.1 bytes, for answers written straight to a socket (a malformed
 * request, a refused connection): the handler's status, headers and body, plus the `Date`
 * node adds to its own responses, `extra` headers, and `Connection: close`.
 *
 * @example
 * socket.end(rawResponse(handler.errorResponse(400, "web_framework_error", "malformed request")));
 */
export function rawResponse(
  res: HandlerResponse,
  extra: Readonly<Record<string, string>> = {},
): Buffer {
  let head = `HTTP/1.1 ${res.status} ${STATUS_CODES[res.status] ?? ""}\r\n`;
  for (const [name, value] of Object.entries(res.headers)) head += `${name}: ${value}\r\n`;
  for (const [name, value] of Object.entries(extra)) head += `${name}: ${value}\r\n`;
  head += `Date: ${new Date().toUTCString()}\r\nConnection: close\r\n\r\n`;
  const body = res.body === undefined ? Buffer.alloc(0) : Buffer.from(res.body);
  return Buffer.concat([Buffer.from(head, "latin1"), body]);
}
