/** What {@link readBody} got: the text, or how far it read before the cap stopped it. */
export type BodyRead = { ok: true; text: string } | { ok: false; bytesRead: number };

/**
 * Read a response body as UTF-8 text, at most `maxBytes` bytes, never holding more. Bytes are
 * counted as the stream yields them, that is after fetch's own decompression: a gzip bomb is
 * stopped at `maxBytes` inflated bytes, whatever its size on the wire. A `Content-Length` above
 * the cap (without `Content-Encoding`) is refused before reading. Past the cap, the stream is
 * cancelled, which closes the connection. A body in flight costs its length once, and twice
 * that only for the moment it is decoded into one string. A body longer than its declared
 * length is treated as too large.
 *
 * Rejects when the stream fails (connection reset, abort, timeout) like `res.text()` does.
 *
 * @example
 * const body = await readBody(res, 64 * 1024 * 1024);
 * if (!body.ok) throw new Error(`larger than the cap (${body.bytesRead} bytes read)`);
 */
export async function readBody(res: Response, maxBytes: number): Promise<BodyRead> {
  const header = res.headers.get("content-length");
  const declared = header !== null && /^\d{1,15}$/.test(header) ? Number(header) : undefined;
  const encoded = res.headers.has("content-encoding");
  if (declared !== undefined && declared > maxBytes && !encoded) {
    await res.body?.cancel().catch(() => undefined);
    return { ok: false, bytesRead: 0 };
  }
  if (!res.body) return { ok: true, text: "" };
  const reader = res.body.getReader();
  // With the length known (and no decoding), bytes go straight into one buffer; otherwise the
  // chunks are kept and copied into one buffer at the end. Either way the body costs its length
  // while read, and twice that for the moment it is decoded into one string.
  const into = declared !== undefined && !encoded ? Buffer.allocUnsafe(declared) : undefined;
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (bytes + value.byteLength > maxBytes || (into && bytes + value.byteLength > into.length)) {
      await reader.cancel().catch(() => undefined);
      return { ok: false, bytesRead: bytes + value.byteLength };
    }
    if (into) into.set(value, bytes);
    else chunks.push(value);
    bytes += value.byteLength;
  }
  if (into) return decode(into, bytes);
  if (chunks.length === 1) {
    const only = chunks[0]!;
    return decode(Buffer.from(only.buffer, only.byteOffset, only.byteLength), bytes);
  }
  const all = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (let i = 0; i < chunks.length; i++) {
    all.set(chunks[i]!, at);
    at += chunks[i]!.byteLength;
  }
  chunks.length = 0;
  return decode(all, bytes);
}

/**
 * The first `bytes` bytes of `buffer` as UTF-8 text; a text longer than the runtime's longest
 * string (V8: 0x1fffffe8 characters) counts as a body past the cap, not as a network failure.
 */
function decode(buffer: Buffer, bytes: number): BodyRead {
  // A leading byte order mark (some gateways add one) is dropped, as fetch's own text() does:
  // JSON.parse would refuse the body for a character the log line cannot even show.
  const bom = bytes >= 3 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
  try {
    return { ok: true, text: buffer.toString("utf8", bom, bytes) };
  } catch (e) {
    if ((e as { code?: unknown }).code === "ERR_STRING_TOO_LONG")
      return { ok: false, bytesRead: bytes };
    throw e;
  }
}
