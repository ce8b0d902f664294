import { setTimeout as sleep } from "node:timers/promises";
import type { Observable } from "rxjs";
import type { BlockSample } from "../core/blockSample.js";
import { InvalidBlockSampleError } from "../core/errors.js";
import { guarded } from "../core/guarded.js";
import { MAX_TIMER_MS } from "../core/maxTimerMs.js";
import type { U64Input } from "../core/u64.js";
import { createTurnPacer } from "./createTurnPacer.js";
import { loopObservable } from "./loopObservable.js";
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

/** A wait between two blocks that `speed` made longer than `maxWaitMs`, cut to it. */
export interface WaitCutEvent {
  /** The 1-based line of the block that came early. */
  readonly line: number;
  /** Its height. */
  readonly height: bigint;
  /** The wait its timestamp asked for after the block before it (ms of replay, at `speed`). */
  readonly gapMs: number;
  /** The wait made instead: `maxWaitMs`. */
  readonly waitedMs: number;
}

/** Options of {@link ndjsonFile}. */
export interface NdjsonFileOptions {
  /**
   * Called for every rejected line; reading continues (also if it throws: what it throws is
   * dropped). @default ignore
   */
  onInvalidLine?: ((error: InvalidLineError) => void) | undefined;
  /** Longest accepted line in bytes. @default 64 MiB */
  maxLineBytes?: number | undefined;
  /**
   * Replay at `speed` times the pace of the recorded `timestamp_usec` (2 = twice as fast),
   * measured from the first block with a timestamp; blocks without one come at once.
   * `undefined` or `Infinity`: as fast as the subscriber takes them. @default undefined
   */
  speed?: number | undefined;
  /**
   * With `speed`: the longest wait between two blocks, in ms of replay. A longer gap between
   * their timestamps (an outage in the recording, or a timestamp no clock made: 1970, the year
   * 584,000) is cut to it and told to `onWaitCut`; the pace goes on from that block.
   * `Infinity` keeps every gap. @default 60000
   */
  maxWaitMs?: number | undefined;
  /**
   * Skip the blocks below this height, before any pacing: a replay resumed where a stream
   * stands (`gasdigest publish` restarted) comes at once to the next height, instead of after
   * the recorded time of every block it skips. @default undefined (every block)
   */
  fromHeight?: U64Input | undefined;
  /** Called for every wait cut to `maxWaitMs` (also if it throws). @default ignore */
  onWaitCut?: ((event: WaitCutEvent) => void) | undefined;
}

/**
 * A source that replays an NDJSON block file as fast as the subscriber takes it (or paced by
 * the recorded timestamps with `speed`, no wait longer than `maxWaitMs`), streaming the file
 * (never loading it whole), and completes at the end of the file. It lets the event loop take
 * a turn at least every `SOURCE_TURN_MS` (5) ms, so a server fed by it keeps answering. Bad lines are reported
 * through `onInvalidLine` and skipped; a file that cannot be read errors the Observable.
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
  // What the application's callbacks throw is dropped: the file is still read to its end.
  const onInvalidLine = guarded(o.onInvalidLine);
  const onWaitCut = guarded(o.onWaitCut);
  return loopObservable<BlockSample>(async (subscriber, signal) => {
    // Pacing: a block is due `(timestamp - anchor's timestamp) / speed` after the anchor was
    // due (the first block with a timestamp; again a block dated before the one before it, which
    // comes at once, and one whose wait was cut). `prev`: the last paced block. `before`: the
    // pace before a block (or run of blocks) dated back; the block after goes on from there when
    // it is not dated before it too (the one dated back was a bad timestamp: a single 1970 in the
    // middle of a file held the next block for `maxWaitMs`, blamed on its good timestamp).
    let anchor: { usec: bigint; ms: number } | undefined;
    let prev: { usec: bigint; dueMs: number } | undefined;
    let before: { anchor: typeof anchor; prev: typeof prev } | undefined;
    const dueOf = (usec: bigint) => anchor!.ms + Number(usec - anchor!.usec) / 1000 / speed!;
    const pace = createTurnPacer();
    for await (const entry of readNdjson(path, {
      signal,
      maxLineBytes: o.maxLineBytes,
    })) {
      if (subscriber.closed) return;
      await pace();
      if (subscriber.closed) return;
      if (!entry.ok) {
        onInvalidLine(new InvalidLineError(entry.line, entry.issues));
        continue;
      }
      if (o.fromHeight !== undefined && entry.block.height < o.fromHeight) continue;
      const ts = entry.block.timestampUsec;
      if (paced && ts !== undefined) {
        if (before !== undefined && ts >= before.prev!.usec) ({ anchor, prev } = before);
        const back = prev !== undefined && ts < prev.usec;
        before = back ? (before ?? { anchor, prev }) : undefined;
        if (prev === undefined || back) {
          anchor = { usec: ts, ms: performance.now() };
          prev = { usec: ts, dueMs: anchor.ms };
        } else {
          let dueMs = dueOf(ts);
          if (dueMs - prev.dueMs > o.maxWaitMs) {
            onWaitCut({
              line: entry.line,
              height: entry.block.height,
              gapMs: dueMs - prev.dueMs,
              waitedMs: o.maxWaitMs,
            });
            dueMs = prev.dueMs + o.maxWaitMs;
            anchor = { usec: ts, ms: dueMs };
          }
          prev = { usec: ts, dueMs };
          // In steps a timer can take (MAX_TIMER_MS; a longer delay fires after 1 ms), and
          // a 30-day maxWaitMs at speed 1 would not be paced at all.
          for (let left = dueMs - performance.now(); left > 0; left = dueMs - performance.now())
            await sleep(Math.min(left, MAX_TIMER_MS), undefined, { signal });
          if (subscriber.closed) return;
        }
      }
      subscriber.next(entry.block);
    }
  });
}
