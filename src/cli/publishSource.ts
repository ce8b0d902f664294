import type { Observable } from "rxjs";
import type { BlockSample } from "../core/blockSample.js";
import { BaseError, formatIssues, ValidationError } from "../core/errors.js";
import { type AptosRestOptions, aptosRest } from "../sources/aptosRest.js";
import { ndjsonFile } from "../sources/ndjsonFile.js";
import { continuedChain } from "../sources/simulator/continuedChain.js";
import { simulator } from "../sources/simulator.js";
import type { LineLogger } from "./createLogLimiter.js";
import { UsageError } from "./io.js";
import { logAptosRestEvent } from "./logAptosRestEvent.js";
import { logInvalidLine, logWaitCut } from "./logInvalidLine.js";
import { pulledFile } from "./pulledFile.js";
import type { SourceSpec } from "./sourceSpec.js";

/** The flags of `gasdigest publish` that shape its source. */
export interface PublishSourceFlags {
  /** The first height to publish: after the stream's newest one (`undefined` for an empty stream). */
  startHeight: bigint | undefined;
  /**
   * The stream's newest block: a simulated chain goes on after it, at its `startHeight`, in its
   * epoch and chain, and after its versions (a sim publisher restarted would otherwise begin again at
   * twice its start height, in the epoch and chain of a fresh simulation, which the replicas
   * take for another chain).
   */
  after?: BlockSample | undefined;
  backfill: number;
  pollIntervalMs: number | undefined;
  seed: number | undefined;
  intervalMs: number | undefined;
  speed: number | undefined;
  /** The node source's limits (`--max-response-bytes`, `--node-timeout-ms`, ...). */
  aptos?: AptosRestOptions;
  /** Also told every event of the source (the metrics' source listener). */
  onEvent?: (event: { readonly type: string }) => void;
  /**
   * Resolves once the sink has room for another block: a file read without `--speed` reads its
   * next line only then (read as fast as the disk goes, the sink dropped what Redis had not
   * taken yet). A node and the simulator, which make blocks at the chain's pace, do not wait.
   */
  room?: ((signal: AbortSignal) => Promise<void>) | undefined;
}

/**
 * The source `gasdigest publish` reads: a node, the simulator or a file (never Redis itself),
 * from `startHeight` on. A node and the simulator start there; a file is read from its first
 * line, and its blocks below `startHeight` are left out before the sink sees them: a publisher
 * restarted on the file it was writing resumes where it stopped, instead of sending the stream
 * again every block it holds (or trimmed), which Redis refuses.
 *
 * @throws {UsageError} for a `redis://` source.
 * @throws {BaseError} when the simulator cannot go on after the stream's newest block (`after`).
 * @example
 * const source$ = publishSource({ kind: "sim" }, log, { startHeight: 1n, backfill: 0, ... });
 */
export function publishSource(
  spec: SourceSpec,
  log: LineLogger,
  f: PublishSourceFlags,
): Observable<BlockSample> {
  switch (spec.kind) {
    case "aptos":
      return aptosRest(spec.url, {
        ...f.aptos,
        backfillBlocks: f.backfill,
        startHeight: f.startHeight,
        pollIntervalMs: f.pollIntervalMs,
        onEvent: logAptosRestEvent(log, f.onEvent),
      });
    case "sim": {
      // After the stream's top (its timestamps are the wall clock's, so its own do not matter).
      const { startTimeUsec: _, ...after } = continuedChain(f.after);
      try {
        return simulator({ seed: f.seed, intervalMs: f.intervalMs, ...after, clock: "wall" });
      } catch (e) {
        // The start options come from the stream's newest block, not from a flag: say so,
        // rather than `invalid configuration: startVersion: ...` for an option no flag sets.
        // (Starting again at the simulator's default versions instead, which go back, wrote
        // blocks every replica refused.)
        if (!(e instanceof ValidationError) || f.after === undefined) throw e;
        throw new BaseError(
          `--source sim cannot go on after the stream's newest block (height ${f.after.height})`,
          { details: formatIssues(e.issues, "; "), cause: e },
        );
      }
    }
    case "ndjson": {
      // Unpaced, as fast as the sink takes the blocks: a file can wait for Redis.
      if (f.room !== undefined && (f.speed === undefined || f.speed === Number.POSITIVE_INFINITY))
        return pulledFile(spec.path, {
          fromHeight: f.startHeight,
          onInvalidLine: logInvalidLine(log, f.onEvent),
          room: f.room,
        });
      // Resumed after the stream's top: the blocks below it are skipped before any pacing, so
      // a publisher restarted during a paced replay writes the next height at once (it waited
      // the recorded time of every block it skipped, and a failover to it stalled the stream).
      return ndjsonFile(spec.path, {
        speed: f.speed,
        fromHeight: f.startHeight,
        onInvalidLine: logInvalidLine(log, f.onEvent),
        onWaitCut: logWaitCut(log),
      });
    }
    case "redis":
      throw new UsageError("--source redis:// cannot be published again");
  }
}
