import { setTimeout as sleep } from "node:timers/promises";
import { Observable } from "rxjs";
import type { BlockSample } from "../core/blockSample.js";
import { InvalidBlockSampleError } from "../core/errors.js";
import { MAX_TIMER_MS } from "../core/maxTimerMs.js";
import { checkNdjsonArguments, ndjsonFileShape } from "./ndjsonOptions.js";
import { readNdjson } from "./readNdjson.js";

/** A rejected line of an NDJSON file. */
export class InvalidLineError extends InvalidBlockSampleError {
  override name = "InvalidLineError";
  readonly line: number;
  constructor(line: number, issues: InvalidBlockSampleError["issues"]) {
    super(issues);
    this.line = line;
  }
}

/** Options of {@link ndjsonFile}. */
export interface NdjsonFileOptions {
  /** Called for every rejected line; reading continues. @default ignore */
  onInvalidLine?: (error: InvalidLineError) => void;
  /** Longest accepted line in bytes. @default 64 MiB */
  maxLineBytes?: number;
  /**
   * Replay at `speed` times the pace of the recorded `timestamp_usec` (2 = twice as fast),
   * measured from the first block with a timestamp; blocks without one come at once.
   * `undefined` or `Infinity`: as fast as the subscriber takes them. @default undefined
   */
  speed?: number;
}

/**
 * A source that replays an NDJSON block file as fast as the subscriber takes it (or paced by
 * the recorded timestamps with `speed`), streaming the file (never loading it whole), and
 * completes at the end of the file. Bad lines are reported through `onInvalidLine` and skipped;
 * a file that cannot be read errors the Observable.
 *
 * @throws {InvalidConfigError} at call time when the path or an option is invalid (`speed` not a
 * positive number, an unknown key, ...), listing every problem.
 * @example
 * engine.connect(ndjsonFile("history.ndjson", { onInvalidLine: (e) => console.error(e.message) }));
 * engine.connect(ndjsonFile("history.ndjson", { speed: 10 })); // ten times real time
 */
export function ndjsonFile(path: string, options: NdjsonFileOptions = {}): Observable<BlockSample> {
  const o = checkNdjsonArguments(ndjsonFileShape, path, options);
  const speed = o.speed;
  const paced = speed !== undefined && Number.isFinite(speed);
  return new Observable<BlockSample>((subscriber) => {
    const abort = new AbortController();
    // Pacing: block i is due `(timestamp_i - timestamp_first) / speed` after the first one.
    let firstUsec: bigint | undefined;
    let startMs = 0;
    (async () => {
      for await (const entry of readNdjson(path, {
        signal: abort.signal,
        maxLineBytes: o.maxLineBytes,
      })) {
        if (subscriber.closed) return;
        if (!entry.ok) {
          o.onInvalidLine?.(new InvalidLineError(entry.line, entry.issues));
          continue;
        }
        const ts = entry.block.timestampUsec;
        if (paced && ts !== undefined) {
          if (firstUsec === undefined) {
            firstUsec = ts;
            startMs = performance.now();
          } else {
            const dueMs = startMs + Number(ts - firstUsec) / 1000 / speed;
            const waitMs = dueMs - performance.now();
            // In steps a timer can take (MAX_TIMER_MS; a longer delay fires after 1 ms), and
            // a 30-day gap between timestamps at --speed 1 would not be paced at all.
            for (let left = waitMs; left > 0; left = dueMs - performance.now())
              await sleep(Math.min(left, MAX_TIMER_MS), undefined, { signal: abort.signal });
            if (subscriber.closed) return;
          }
        }
        subscriber.next(entry.block);
      }
      subscriber.complete();
    })().catch((error) => {
      if (!abort.signal.aborted) subscriber.error(error);
    });
    return () => abort.abort();
  });
}
