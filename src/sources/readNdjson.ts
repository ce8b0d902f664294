import { closeSync, constants, createReadStream, openSync, statSync } from "node:fs";
import { addAbortSignal } from "node:stream";
import { createTurnPacer } from "./createTurnPacer.js";
import { checkNdjsonArguments, readNdjsonShape } from "./ndjsonOptions.js";
import {
  DEFAULT_MAX_LINE_BYTES,
  type NdjsonLine,
  parseNdjsonLine,
  tooLong,
} from "./parseNdjsonLine.js";
import { plainBytes } from "./plainBytes.js";
import { isStdinSocket } from "./stdinSocket.js";

export {
  DEFAULT_MAX_LINE_BYTES,
  MAX_CONTAINERS,
  MAX_MEMBERS,
  type NdjsonLine,
  parseLine,
  tooLong,
} from "./parseNdjsonLine.js";

/** Options of {@link readNdjson}. */
export interface ReadNdjsonOptions {
  /** Longest accepted line in bytes; longer lines are rejected without being held. @default 64 MiB */
  maxLineBytes?: number | undefined;
  /** Stop reading (and close the file) when this signal aborts. */
  signal?: AbortSignal | undefined;
  /** Called as each chunk is read, before its lines, with the bytes read so far (for progress). */
  onBytes?: ((bytesRead: number) => void) | undefined;
  /**
   * Read lines in the plain shape `serializeBlockSample` writes straight from the bytes (several
   * times faster); `false` parses every line with the general parser. Both give the same
   * entries. @default true
   */
  fastPath?: boolean | undefined;
}

const NEWLINE = 0x0a;
/** How often a stopped read tries again to release a FIFO open that had not reached the kernel. */
const RELEASE_RETRY_MS = 20;
const EMPTY = new Uint8Array(0);
/** Blank lines skipped between two looks at the time taken (a blank line costs about 0.1 µs). */
const BLANKS_PER_LOOK = 1024;

/**
 * Read an NDJSON block file as a stream (never whole), yielding one entry per non-blank line
 * with its 1-based line number. A gzip-compressed file (`history.ndjson.gz`) is decompressed as
 * it is read. Bad lines are yielded with their issues; reading goes on. Each
 * line goes through `parseNdjsonLine` (the byte scanner, then the general parser); the file is
 * read in 1 MiB chunks, so memory is one chunk plus the longest line (at most `maxLineBytes`:
 * a longer line is forgotten as it comes and rejected with its number).
 *
 * @throws {InvalidConfigError} when called, if the path or an option is invalid (every problem
 * named); the file system error on the first read when the file cannot be opened or read.
 * @example
 * for await (const entry of readNdjson("history.ndjson")) if (!entry.ok) console.error(entry.line, entry.issues);
 */
export function readNdjson(
  path: string,
  options: ReadNdjsonOptions = {},
): AsyncGenerator<NdjsonLine> {
  // Checked here, not in the generator, whose body runs only at the first read.
  return ndjsonLines(path, checkNdjsonArguments(readNdjsonShape, path, options));
}

async function* ndjsonLines(
  path: string,
  o: ReturnType<typeof checkNdjsonArguments<typeof readNdjsonShape>>,
): AsyncGenerator<NdjsonLine> {
  const maxLineBytes = o.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const parse = { fastPath: o.fastPath };
  // Standard input given by a Node parent is a socket, which cannot be opened by its path.
  const stream = isStdinSocket(path)
    ? stdin(o.signal)
    : createReadStream(path, { highWaterMark: 1 << 20, signal: o.signal });
  // Stopping while the open still waits for a FIFO's writer: the open sits in a libuv pool
  // thread, and a process cannot exit until it returns (`serve --source ndjson:FIFO` ignored
  // SIGTERM with no writer). Opening the write end ourselves, without blocking, lets it return.
  // The open may not have reached the kernel yet when the signal comes (queued for a pool
  // thread: a SIGTERM soon after start, on a busy machine): then no reader waits, and the
  // release is tried again every RELEASE_RETRY_MS until the open has returned.
  let releasing: NodeJS.Timeout | undefined;
  const unblock = () => {
    // (A stream closed already is `pending` again, its fd gone: nothing waits then.)
    if (!stream.pending || stream.closed || releasing !== undefined) return;
    releaseFifoOpen(path);
    // Unref'd: the open waiting in the pool keeps the process alive, and the retries with it.
    releasing = setInterval(() => releaseFifoOpen(path), RELEASE_RETRY_MS).unref();
    // The open returned: the stream opens (then, destroyed, closes) or fails and closes.
    const stop = () => clearInterval(releasing);
    stream.once("open", stop);
    stream.once("close", stop);
  };
  o.signal?.addEventListener("abort", unblock, { once: true });
  if (o.signal?.aborted) unblock();
  // The start of the current line, in pieces: only new bytes are searched for a newline, and a
  // long line is joined once, so a line costs time in proportion to its length.
  let parts: Buffer[] = [];
  let partsBytes = 0;
  let oversized = false;
  let lineNo = 0;
  // Bytes taken from the file (compressed ones, for a gzip file): progress is against its size.
  const read = { bytes: 0 };
  // Blank lines yield nothing, so a consumer that takes turns between entries (ndjsonFile) never
  // gets one in a run of them: a chunk of a million blank lines held its server for 150 ms.
  const pace = createTurnPacer();
  let blanks = 0;

  const entry = (bytes: Uint8Array): NdjsonLine | undefined => {
    lineNo++;
    if (oversized || bytes.length > maxLineBytes) {
      oversized = false;
      return tooLong(lineNo, maxLineBytes);
    }
    return parseNdjsonLine(bytes, lineNo, parse);
  };

  try {
    chunks: for await (const chunk of plainBytes(stream as AsyncIterable<Buffer>, read)) {
      // Before the chunk's lines, so that progress shown while they are taken counts it.
      o.onBytes?.(read.bytes);
      let start = 0;
      let nl = chunk.indexOf(NEWLINE, start);
      while (nl !== -1) {
        // Aborted while an entry was taken: not a line more of the chunk (the stream, destroyed
        // by the signal, then throws its AbortError; a consumer got the rest of a 1 MiB chunk).
        if (o.signal?.aborted) continue chunks;
        let bytes: Uint8Array;
        if (parts.length > 0) {
          parts.push(chunk.subarray(start, nl));
          bytes = oversized ? EMPTY : Buffer.concat(parts);
          parts = [];
          partsBytes = 0;
        } else bytes = chunk.subarray(start, nl);
        const e = entry(bytes);
        if (e) yield e;
        else if (++blanks % BLANKS_PER_LOOK === 0) await pace();
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
    }
    if (parts.length > 0 && !o.signal?.aborted) {
      const e = entry(oversized ? EMPTY : Buffer.concat(parts));
      if (e) yield e;
    }
  } finally {
    o.signal?.removeEventListener("abort", unblock);
    stream.destroy();
    unblock();
  }
}

/** `process.stdin`, destroyed when `signal` aborts (as a file's stream is). */
function stdin(signal: AbortSignal | undefined) {
  return signal === undefined ? process.stdin : addAbortSignal(signal, process.stdin);
}

/**
 * Let an open of the FIFO at `path` that waits for a writer return: open its write end without
 * blocking (which succeeds only while a reader waits) and close it at once, so the reader sees
 * an empty stream. Anything but a FIFO, or no reader waiting (`ENXIO`), is left alone.
 */
function releaseFifoOpen(path: string): void {
  try {
    if (!statSync(path).isFIFO()) return;
    closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // no reader waiting, or no permission to write: nothing to release
  }
}
