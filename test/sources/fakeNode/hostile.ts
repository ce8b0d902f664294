import type { ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";

const MIB = 1024 * 1024;
/** 64 KiB of a JSON-looking body that never ends (a huge string value). */
const PADDING = Buffer.from(`{"chain_id":4,"padding":"${"x".repeat(65_536 - 25)}`);
let member: Buffer | undefined;

/**
 * A gzip stream that inflates to `inflatedBytes` (rounded up to whole MiB) of spaces: one gzip
 * member of 1 MiB (about 1 KB on the wire) repeated, as gunzip reads concatenated members as one
 * stream. 2 GiB inflated is about 2 MB sent.
 */
export function gzipBomb(inflatedBytes: number): { member: Buffer; count: number } {
  member ??= gzipSync(Buffer.alloc(MIB, 0x20), { level: 9 });
  return { member, count: Math.ceil(inflatedBytes / MIB) };
}

/**
 * Answer 200 with a body of `bytes` bytes, generated as it is sent (the fake node never holds
 * it) and with backpressure; stops when the client goes away. With `gzip`, the body is a gzip
 * bomb inflating to `bytes` instead. `declareLength` sets Content-Length (the real length on
 * the wire).
 */
export function streamHugeBody(
  res: ServerResponse,
  headers: Record<string, string>,
  bytes: number,
  options: { gzip?: boolean; declareLength?: boolean } = {},
): void {
  const bomb = options.gzip ? gzipBomb(bytes) : undefined;
  const chunk = bomb ? bomb.member : PADDING;
  const total = bomb ? bomb.count * bomb.member.length : bytes;
  const h: Record<string, string> = { ...headers };
  if (bomb) h["content-encoding"] = "gzip";
  if (options.declareLength) h["content-length"] = String(total);
  res.writeHead(200, h);
  let sent = 0;
  const write = () => {
    while (sent < total) {
      if (res.destroyed) return;
      const piece = total - sent >= chunk.length ? chunk : chunk.subarray(0, total - sent);
      sent += piece.length;
      if (!res.write(piece)) {
        res.once("drain", write);
        return;
      }
    }
    res.end();
  };
  res.on("close", () => {
    sent = total;
  });
  write();
}
