/** What {@link readBody} got: the text, or how far it read before the cap stopped it. */
export type BodyRead = { ok: true; text: string } | { ok: false; bytesRead: number };

/**
 * Read a response body as UTF-8 text, at most `maxBytes` bytes, never holding more. Bytes are
 * counted as the stream yields them, that is after fetch's own decompression: a gzip bomb is
 * stopped at `maxBytes` inflated bytes, whatever its size on the wire. A `Content-Length` above
 * the cap (without `Content-Encoding`) is refused before reading. Past the cap, the stream is
 * cancelled, which closes the connection. Each chunk is decoded as it comes, so a body in
 * flight costs its length once; the parts are joined only at the end.
 *
 * Rejects when the stream fails (connection reset, abort, timeout) like `res.text()` does.
 *
 * @example
 * const body = await readBody(res, 64 * 1024 * 1024);
 * if (!body.ok) throw new Error(`larger than the cap (${body.bytesRead} bytes read)`);
 */
export async function readBody(res: Response, maxBytes: number): Promise<BodyRead> {
  const declared = Number(res.headers.get("content-length"));
  if (declared > maxBytes && !res.headers.has("content-encoding")) {
    await res.body?.cancel().catch(() => undefined);
    return { ok: false, bytesRead: 0 };
  }
  if (!res.body) return { ok: true, text: "" };
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return { ok: false, bytesRead: bytes };
    }
    parts.push(decoder.decode(value, { stream: true }));
  }
  parts.push(decoder.decode());
  return { ok: true, text: parts.length === 1 ? parts[0]! : parts.join("") };
}
