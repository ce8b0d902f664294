import { createReadStream } from "node:fs";
import { safeParseBlockSample } from "../core/blockSample.js";
import {
  DEFAULT_MAX_LINE_BYTES,
  type NdjsonLine,
  parseLine,
  tooLong,
} from "../sources/readNdjson.js";
import { scanBlockLine } from "./scanBlockLine.js";

/** Options of {@link readHistory}. */
export interface ReadHistoryOptions {
  /** Longest accepted line in bytes; longer lines are rejected without being held. @default 64 MiB */
  maxLineBytes?: number;
  /** Stop reading (and close the file) when this signal aborts. */
  signal?: AbortSignal;
  /** Called after each chunk read from the file with the bytes read so far (for progress). */
  onBytes?: (bytesRead: number) => void;
}

const NEWLINE = 0x0a;

/**
 * Read an NDJSON block file for a backtest: the same entries, line numbers and errors as
 * `readNdjson`, several times faster on large files. Lines in the plain shape that
 * `serializeBlockSample` (and so `gasdigest simulate`) writes are scanned straight from the
 * bytes ({@link scanBlockLine}); any other line goes through `readNdjson`'s own parser.
 * Streams the file in 1 MiB chunks: memory is one chunk plus the longest line.
 *
 * @throws the file system error when the file cannot be opened or read.
 * @example
 * for await (const entry of readHistory("history.ndjson")) if (entry.ok) backtest.push(entry.block);
 */
export async function* readHistory(
  path: string,
  options: ReadHistoryOptions = {},
): AsyncGenerator<NdjsonLine> {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const stream = createReadStream(path, { highWaterMark: 1 << 20, signal: options.signal });
  // The first line may start with a byte order mark (dropped, as readNdjson's decoder does).
  const firstDecoder = new TextDecoder("utf-8", { fatal: false });
  const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  let parts: Buffer[] = [];
  let partsBytes = 0;
  let oversized = false;
  let lineNo = 0;
  let bytesRead = 0;

  const entry = (bytes: Uint8Array): NdjsonLine | undefined => {
    lineNo++;
    if (oversized || bytes.length > maxLineBytes) {
      oversized = false;
      return tooLong(lineNo, maxLineBytes);
    }
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === 0x0d) end--;
    const line = end === bytes.length ? bytes : bytes.subarray(0, end);
    const wire = scanBlockLine(line);
    if (wire) {
      const r = safeParseBlockSample(wire);
      if (r.ok) return { line: lineNo, ok: true, block: r.block };
    }
    if (isBlank(line)) return undefined;
    const text = (lineNo === 1 ? firstDecoder : decoder).decode(bytes);
    return parseLine(text, lineNo);
  };

  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytesRead += chunk.length;
      let start = 0;
      let nl = chunk.indexOf(NEWLINE, start);
      while (nl !== -1) {
        let bytes: Uint8Array;
        if (parts.length > 0) {
          parts.push(chunk.subarray(start, nl));
          bytes = oversized ? new Uint8Array(0) : Buffer.concat(parts);
          parts = [];
          partsBytes = 0;
        } else bytes = chunk.subarray(start, nl);
        const e = entry(bytes);
        if (e) yield e;
        start = nl + 1;
        nl = chunk.indexOf(NEWLINE, start);
      }
      if (start < chunk.length && !oversized) {
        parts.push(chunk.subarray(start));
        partsBytes += chunk.length - start;
        if (partsBytes > maxLineBytes) {
          // Too long already: forget it, and reject the line when it ends.
          oversized = true;
          parts = [Buffer.alloc(0)];
          partsBytes = 0;
        }
      }
      options.onBytes?.(bytesRead);
    }
    if (parts.length > 0) {
      const e = entry(oversized ? new Uint8Array(0) : Buffer.concat(parts));
      if (e) yield e;
    }
  } finally {
    stream.destroy();
  }
}

function isBlank(line: Uint8Array): boolean {
  for (const c of line) if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  return true;
}
