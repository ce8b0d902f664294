import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";

/** The first two bytes of every gzip member (RFC 1952). */
const GZIP_MAGIC = [0x1f, 0x8b] as const;

/**
 * The bytes of `source`, decompressed when they are gzip (they start with the gzip magic
 * bytes `1f 8b`, which no NDJSON line can start with): a history kept compressed
 * (`history.ndjson.gz`, several members one after the other as `cat a.gz b.gz` makes) is read
 * as it is, still as a stream. `read.bytes` counts the bytes taken from `source`, compressed or
 * not (for progress against the file's size). A gzip stream that is cut short or corrupt throws
 * an error that says so.
 *
 * @example
 * const read = { bytes: 0 };
 * for await (const chunk of plainBytes(createReadStream("history.ndjson.gz"), read)) use(chunk);
 */
export async function* plainBytes(
  source: AsyncIterable<Buffer>,
  read: { bytes: number },
): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  // Enough bytes to tell: a pipe may hand over one byte first.
  let head: Buffer = Buffer.alloc(0);
  let done = false;
  while (head.length < GZIP_MAGIC.length && !done) {
    const r = await it.next();
    if (r.done) done = true;
    else {
      read.bytes += r.value.length;
      head = head.length === 0 ? r.value : Buffer.concat([head, r.value]);
    }
  }
  async function* all(): AsyncGenerator<Buffer> {
    if (head.length > 0) yield head;
    if (done) return;
    for (let r = await it.next(); !r.done; r = await it.next()) {
      read.bytes += r.value.length;
      yield r.value;
    }
  }
  if (head[0] !== GZIP_MAGIC[0] || head[1] !== GZIP_MAGIC[1]) {
    yield* all();
    return;
  }
  const compressed = Readable.from(all(), { objectMode: false });
  const gunzip = createGunzip();
  compressed.on("error", (e) => gunzip.destroy(e));
  compressed.pipe(gunzip);
  try {
    yield* gunzip as AsyncIterable<Buffer>;
  } catch (e) {
    // zlib's own words ("unexpected end of file", "incorrect header check") do not say which
    // layer failed; the source's own errors (a read error, an abort) pass as they are.
    if ((e as { code?: unknown }).code?.toString().startsWith("Z_"))
      throw new Error(`gzip data cut short or corrupt: ${(e as Error).message}`, { cause: e });
    throw e;
  } finally {
    compressed.destroy();
    gunzip.destroy();
  }
}
