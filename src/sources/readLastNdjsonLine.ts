import { open } from "node:fs/promises";
import { BaseError } from "../core/errors.js";
import { DEFAULT_MAX_LINE_BYTES, type NdjsonLine, parseNdjsonLine } from "./parseNdjsonLine.js";

/** The last line of an NDJSON block file, read backwards from its end (never the whole file). */
export interface LastNdjsonLine {
  /** The line parsed as every reader parses it (its `line` is 0: the file is not counted). */
  readonly entry: NdjsonLine;
  /** Whether the file ends with a newline (an interrupted write may leave it without). */
  readonly endsWithNewline: boolean;
}

/**
 * Read the last non-blank line of an NDJSON block file from its end, in 64 KiB steps, and parse
 * it with `parseNdjsonLine` (the same limits and messages as `readNdjson`). `undefined` when the
 * file is missing or holds no line.
 *
 * @throws {BaseError} when the last line is longer than `maxLineBytes`; the file system error
 *   when the file cannot be read.
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
  try {
    const size = (await fh.stat()).size;
    let pos = size;
    let tail = Buffer.alloc(0);
    let end = -1; // index in `tail` of the last byte of the last line
    while (pos > 0) {
      const n = Math.min(65_536, pos);
      pos -= n;
      const chunk = Buffer.alloc(n);
      await fh.read(chunk, 0, n, pos);
      tail = Buffer.concat([chunk, tail]);
      if (end >= 0) end += n;
      else
        for (let i = tail.length - 1; i >= 0; i--)
          if (tail[i] !== 0x0a && tail[i] !== 0x0d && tail[i] !== 0x20 && tail[i] !== 0x09) {
            end = i;
            break;
          }
      if (end < 0) continue;
      const start = tail.lastIndexOf(0x0a, end);
      if (start === -1 && pos > 0) {
        if (tail.length > maxLineBytes)
          throw new BaseError(`the last line of ${path} is longer than ${maxLineBytes} bytes`);
        continue;
      }
      const bytes = tail.subarray(start + 1, end + 1);
      const entry = parseNdjsonLine(bytes, 0, { fileStart: start === -1 && pos === 0 });
      const endsWithNewline = tail[tail.length - 1] === 0x0a;
      if (entry) return { entry, endsWithNewline };
      return undefined;
    }
    return undefined;
  } finally {
    await fh.close();
  }
}
