import { once } from "node:events";
import { createWriteStream, fstatSync, type WriteStream } from "node:fs";
import { open, stat, truncate } from "node:fs/promises";
import type { BlockSample } from "../core/blockSample.js";
import { BaseError, formatIssues } from "../core/errors.js";
import { readLastNdjsonLine } from "../sources/readLastNdjsonLine.js";
import { descriptorOf, writtenInPlace } from "./outputFile.js";

// The file `gasdigest record` writes: where it continues (`--append`), how it is opened, and
// what is left of it after a write error.

/**
 * Whether `path` leads to a regular file, through links and descriptors: `/dev/stdout` under the
 * shell's `>> h.ndjson` is that file, and has a last line to read and to cut back to.
 */
const isRegularFile = async (path: string) =>
  (await stat(path).catch(() => undefined))?.isFile() === true;

/** Whether the file at `path` starts with gzip's magic bytes, `1f 8b`. */
async function startsWithGzip(path: string): Promise<boolean> {
  const fh = await open(path, "r");
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await fh.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

/**
 * The last block of an NDJSON file (`undefined` when the file is missing or empty, or is not a
 * regular file: a FIFO has no last line to read, and opening one to read it waits for a writer),
 * and whether the file ends with a newline. `/dev/stdout` sent to a file (`--append --out
 * /dev/stdout >> h.ndjson`) is that file: its heights were written twice before.
 *
 * @throws {BaseError} when the last line is not a valid block sample, or the file cannot be
 *   opened or read (`cannot read FILE`).
 */
export async function readLastBlock(
  path: string,
): Promise<{ block: BlockSample; endsWithNewline: boolean; size: number } | undefined> {
  const found = await stat(path).catch(() => undefined);
  // (A directory goes on, to be refused as one that cannot be read.)
  if (found !== undefined && !found.isFile() && !found.isDirectory()) return undefined;
  let last: Awaited<ReturnType<typeof readLastNdjsonLine>>;
  try {
    // Every reader takes a gzip file, but plain lines appended to one would be lost to them.
    if (found?.isFile() && (await startsWithGzip(path)))
      throw new BaseError(`cannot append to ${path}: it is gzip-compressed`, {
        details:
          "record writes plain NDJSON: decompress it first (gunzip), or record to a new file",
      });
    last = await readLastNdjsonLine(path);
  } catch (e) {
    if (e instanceof BaseError) throw e;
    // Opening or reading it: a directory (EISDIR), a file without read permission, ...
    throw new BaseError(`cannot read ${path}`, { details: (e as Error).message, cause: e });
  }
  if (!last) return undefined;
  const { entry, endsWithNewline, size } = last;
  if (entry.ok) return { block: entry.block, endsWithNewline, size };
  const [first] = entry.issues;
  if (first?.code === "invalid_json")
    throw new BaseError(`cannot append to ${path}: its last line is not JSON`, {
      details: `${first.message}; a cut-off last line can be removed by hand`,
    });
  throw new BaseError(`cannot append to ${path}: its last line is not a block sample`, {
    details: formatIssues(entry.issues, "; "),
  });
}

/**
 * Open `path` for `record`. Every mode appends (`O_APPEND`): each line goes to the file's end,
 * so a file truncated under the recorder (logrotate's `copytruncate`) goes on from its start
 * instead of from the old offset behind a hole of NUL bytes. A new file is created exclusively
 * (an existing one is an error unless `append` or `force`; `force` empties it first); a path
 * written in place (`writtenInPlace`) is never emptied.
 *
 * @throws {BaseError} `PATH exists` (with the flags to pass), or `cannot write PATH`.
 */
export async function openRecordFile(
  path: string,
  o: { append: boolean; force: boolean },
): Promise<WriteStream> {
  const inPlace = await writtenInPlace(path);
  const fail = async (e: unknown): Promise<never> => {
    const code = (e as NodeJS.ErrnoException).code;
    const directory =
      (code === "EEXIST" || code === "EISDIR") &&
      (await stat(path).catch(() => undefined))?.isDirectory();
    if (directory) throw new BaseError(`cannot write ${path}`, { details: "it is a directory" });
    if (code === "EEXIST")
      throw new BaseError(`${path} exists`, {
        details: "pass --append to continue it or --force to overwrite it",
      });
    throw new BaseError(`cannot write ${path}`, { details: (e as Error).message, cause: e });
  };
  if (o.force && !inPlace)
    await truncate(path, 0).catch((e) => {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") return fail(e);
    });
  const stream = createWriteStream(path, { flags: o.append || o.force || inPlace ? "a" : "ax" });
  try {
    await once(stream, "open");
  } catch (e) {
    return fail(e);
  }
  return stream;
}

/**
 * After a write error (a full disk, a file size limit), cut `path` back to its last whole line,
 * so `--append` continues it: what is left is the newest height kept, `undefined` when no line
 * is left or the file could not be cut (a device or FIFO is not touched; `/dev/stdout` sent to a
 * file is that file). A file of `floor` bytes, the size it had before this run wrote to it, is
 * left as it was: nothing of the run got in, and its last line, which may lack its newline (the
 * run's first write, which failed, was to add it), is a block the file already held.
 */
export async function cutToLastLine(path: string, floor = 0): Promise<bigint | undefined> {
  if (!(await isRegularFile(path))) return undefined;
  try {
    const fh = await open(path, "r+");
    try {
      const size = (await fh.stat()).size;
      const step = Buffer.alloc(65_536);
      let end = size;
      let keep = 0;
      while (end > 0) {
        const n = Math.min(step.length, end);
        await fh.read(step, 0, n, end - n);
        const i = step.subarray(0, n).lastIndexOf(0x0a);
        if (i >= 0) {
          keep = end - n + i + 1;
          break;
        }
        end -= n;
      }
      // Nothing of this run got in (its first write, a newline the file's last line lacked,
      // failed): the file is as it was, and its last line is a block it held. (A file truncated
      // under the run and grown again is cut at its last newline, whatever it held before.)
      if (keep < floor && size === floor) keep = size;
      if (keep < size) await fh.truncate(keep);
    } finally {
      await fh.close();
    }
    const last = await readLastNdjsonLine(path);
    return last?.entry.ok ? last.entry.block.height : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The size of the regular file `stream` writes, by its descriptor (a rotation by rename between
 * opening and asking does not change which file it is); 0 for anything else.
 */
export function sizeOf(stream: WriteStream): number {
  const fd = descriptorOf(stream);
  if (fd === undefined) return 0;
  try {
    const st = fstatSync(fd);
    return st.isFile() ? st.size : 0;
  } catch {
    return 0;
  }
}

/** The error of a file that grew by `bytes` this run did not write, after `height`. */
export function otherWriter(out: string, bytes: number, height: bigint | undefined): BaseError {
  return new BaseError(`another process writes ${out} too; stopped`, {
    details: `it grew by ${bytes} bytes this run did not write, after height ${height ?? "none"}: two recorders on one file mix their lines (check it with gasdigest replay); record each file from one process`,
  });
}

/**
 * Watch a regular file `record` appends to for bytes it did not write: another process appending
 * to it too (two `record --append` runs on one file each went on from the same height, and both
 * ended 0 with the file's heights mixed). Each time everything this run wrote is in the file,
 * its size must be what it held before plus that; less is a rotation that truncated it
 * (`copytruncate`, which `record` goes on after), more is another writer: `found()` then gives
 * how many bytes more.
 */
export function watchOtherWriters(stream: WriteStream, before: number) {
  let base = before;
  let other: number | undefined;
  const watcher = {
    check: () => {
      // The file this run writes, by its descriptor: renamed away by a rotation, it is still
      // that file, and a new one under its name is nobody's doing here.
      const fd = descriptorOf(stream);
      if (other !== undefined || stream.writableLength > 0 || fd === undefined) return;
      let size: number;
      try {
        const st = fstatSync(fd);
        if (!st.isFile()) return;
        size = st.size;
      } catch {
        return;
      }
      const expected = base + stream.bytesWritten;
      if (size > expected) other = size - expected;
      else if (size < expected) base = size - stream.bytesWritten;
    },
    found: () => other,
  };
  // Once more when everything is written, before the descriptor closes: the last write's check
  // ran while nothing more was asked of the watcher.
  stream.once("finish", watcher.check);
  return watcher;
}
