import { open } from "node:fs/promises";
import { BaseError } from "../core/errors.js";
import { DEFAULT_MAX_LINE_BYTES, type NdjsonLine, parseNdjsonLine } from "./parseNdjsonLine.js";

/** The last line of an NDJSON block file, read backwards from its end (never the whole file). */
export interface LastNdjsonLine {
  /** The line parsed as every reader parses it (its `line` is 0: the file is not counted). */
  readonly entry: NdjsonLine;
  /** Whether the file ends with a newline (an interrupted write may leave it without). */
  readonly endsWithNewline: boolean;
  /** The file's size in bytes when it was read (a writer that appends later makes it larger). */
  readonly size: number;
}

/** Bytes read per step, backwards from the end. */
const STEP = 65_536;

const isBlank = (b: number) => b === 0x0a || b === 0x0d || b === 0x20 || b === 0x09;

/**
 * Read the last non-blank line of an NDJSON block file from its end, in 64 KiB steps, and parse
 * it with `parseNdjsonLine` (the same limits and messages as `readNdjson`). `undefined` when the
 * file is missing or holds no line. Each byte is read once: the blank lines and spaces after the
 * last line are skipped step by step (at most `maxLineBytes` of them), then the line's steps are
 * joined once.
 *
 * @throws {BaseError} when the last line is longer than `maxLineBytes`, or when more than
 *   `maxLineBytes` bytes of blank lines and spaces follow it; the file system error when the
 *   file cannot be read.
 * @example
 * const last = await readLastNdjsonLine("history.ndjson"); // last?.entry.ok && last.entry.block.height
 */
export async function readLastNdjsonLine(
  path: string,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
): Promise<LastNdjsonLine | undefined> {
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(path, "r");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
  // The `n` bytes before file offset `pos`, in `into` (a short read means the file shrank).
  const readBefore = async (pos: number, n: number, into: Buffer) => {
    const { bytesRead } = await fh.read(into, 0, n, pos - n);
    if (bytesRead !== n) throw new BaseError(`${path} changed while its last line was read`);
    return into.subarray(0, n);
  };
  try {
    const size = (await fh.stat()).size;
    // 1. The end of the last line: the file offset after its last byte that is not blank.
    const step = Buffer.alloc(Math.min(STEP, size));
    let end = size;
    let endsWithNewline = false;
    for (let found = false; end > 0 && !found; ) {
      const n = Math.min(STEP, end);
      const chunk = await readBefore(end, n, step);
      if (end === size) endsWithNewline = chunk[n - 1] === 0x0a;
      let i = n - 1;
      while (i >= 0 && isBlank(chunk[i]!)) i--;
      found = i >= 0;
      end -= n - (i + 1);
      if (size - end > maxLineBytes)
        throw new BaseError(
          `${path} ends with more than ${maxLineBytes} bytes of blank lines and spaces after its last line`,
        );
    }
    if (end === 0) return undefined;
    // 2. Its start: after the newline before it, or the start of the file.
    const parts: Buffer[] = [];
    let start = end;
    while (start > 0) {
      if (end - start > maxLineBytes)
        throw new BaseError(`the last line of ${path} is longer than ${maxLineBytes} bytes`);
      const n = Math.min(STEP, start);
      const chunk = await readBefore(start, n, Buffer.alloc(n));
      const newline = chunk.lastIndexOf(0x0a);
      parts.push(chunk.subarray(newline + 1));
      start -= n - (newline + 1);
      if (newline >= 0) break;
    }
    const bytes = Buffer.concat(parts.reverse()).subarray(0, end - start);
    const entry = parseNdjsonLine(bytes, 0, { fileStart: start === 0 });
    return entry ? { entry, endsWithNewline, size } : undefined;
  } finally {
    await fh.close();
  }
}
