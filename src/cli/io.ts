import type { Writable } from "node:stream";
import { BaseError } from "../core/errors.js";

/** Where a command writes; tests pass collectors, the binary passes the process streams. */
export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  /** Whether stderr is a terminal (progress bars only then). */
  isTTY?: boolean;
  /** Milliseconds of a monotonic clock, for progress lines off a terminal. @default performance.now */
  now?: () => number;
}

/** The process's own streams. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, isTTY: Boolean(process.stderr.isTTY) };
}

/**
 * Buffers small writes into large chunks and waits for `drain` when the stream is full. With
 * `diagnostics`, a stream that fails or goes away (the reader of stderr left: `2> >(head -1)`)
 * drops what is written to it instead of stopping the command: only diagnostics are lost.
 */
export class LineWriter {
  private buffer: string[] = [];
  private size = 0;
  constructor(
    private readonly stream: Writable,
    private readonly flushAt = 64 * 1024,
    private readonly diagnostics = false,
  ) {}

  async line(text: string): Promise<void> {
    this.buffer.push(text, "\n");
    this.size += text.length + 1;
    if (this.size >= this.flushAt) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.size === 0) return;
    const chunk = this.buffer.join("");
    this.buffer = [];
    this.size = 0;
    if (this.stream.destroyed) {
      if (this.diagnostics) return;
      throw outputError(this.stream.errored);
    }
    if (!this.stream.write(chunk))
      await new Promise<void>((resolve, reject) => {
        const done = (err?: Error) => {
          this.stream.off("drain", onDrain);
          this.stream.off("error", done);
          if (err && !this.diagnostics) reject(outputError(err));
          else resolve();
        };
        const onDrain = () => done();
        this.stream.once("drain", onDrain);
        this.stream.once("error", done);
      });
  }
}

/**
 * The reader of a command's output went away (`gasdigest replay ... | head -1`): the command
 * stops quietly with exit code 141 (128 + SIGPIPE), as a Unix tool killed by SIGPIPE would.
 */
export class OutputClosedError extends BaseError {
  override name = "OutputClosedError";
}

/** Exit code of a command whose output was closed under it (128 + SIGPIPE). */
export const OUTPUT_CLOSED_EXIT = 141;

/** Error codes meaning "the reading end is gone", not "the output is broken". */
const CLOSED_CODES = new Set(["EPIPE", "ERR_STREAM_DESTROYED", "ERR_STREAM_WRITE_AFTER_END"]);

/**
 * `error` as an {@link OutputClosedError} when it says the reader of a file flag's output went
 * away (EPIPE: `--out /dev/stdout | head -1`), else `undefined`.
 *
 * @example
 * const closed = readerGone(e); if (closed) throw closed;
 */
export function readerGone(error: unknown): OutputClosedError | undefined {
  if ((error as { code?: unknown } | null | undefined)?.code !== "EPIPE") return undefined;
  return new OutputClosedError("the output was closed", {
    details: (error as Error).message,
    cause: error,
  });
}

function outputError(cause: Error | null | undefined): BaseError {
  const code = (cause as { code?: string } | null | undefined)?.code;
  if (cause === null || cause === undefined || (code !== undefined && CLOSED_CODES.has(code)))
    return new OutputClosedError("the output was closed", { details: cause?.message, cause });
  return new BaseError("cannot write the output", { details: cause.message, cause });
}

/**
 * A usage error: bad flags or arguments (exit code 1; the command's usage is printed after it).
 *
 * @example
 * throw new UsageError("--input FILE.ndjson is required");
 */
export class UsageError extends BaseError {
  override name = "UsageError";
}
