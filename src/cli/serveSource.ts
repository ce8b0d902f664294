import type { Observable } from "rxjs";
import type { BlockSample } from "../core/blockSample.js";
import { type AptosRestOptions, aptosRest } from "../sources/aptosRest.js";
import { ndjsonFile } from "../sources/ndjsonFile.js";
import { redisStream } from "../sources/redisStream.js";
import { simulator } from "../sources/simulator.js";
import type { LimitedLogger } from "./createLogLimiter.js";
import { logAptosRestEvent } from "./logAptosRestEvent.js";
import { logInvalidLine, logWaitCut } from "./logInvalidLine.js";
import { logRedisEvent } from "./logRedisEvent.js";
import type { SourceSpec } from "./sourceSpec.js";

/** The flags of `gasdigest serve` that shape its source. */
export interface ServeSourceFlags {
  seed: number | undefined;
  scenario: string | undefined;
  intervalMs: number | undefined;
  speed: number | undefined;
  pollIntervalMs: number | undefined;
  /** The node source's limits (`--max-response-bytes`, `--node-timeout-ms`, ...). */
  aptos?: AptosRestOptions;
  stream: string | undefined;
  /** The Redis warm start's transaction budget (`--warm-start-transactions`). */
  warmStartTransactions?: number | undefined;
  windowBlocks: number;
  /** Blocks read back from a node's tip at start (`--backfill`, else what the strategy needs). */
  backfillBlocks: number;
  /** Also told every event of the source (the metrics' source listener). */
  onEvent?: (event: { readonly type: string }) => void;
}

/**
 * The source `gasdigest serve` reads, its events logged through `limited` (rate-limited per
 * event type) and told to `flags.onEvent` too (the metrics' source listener).
 *
 * @example
 * engine.connect(serveSource({ kind: "sim" }, limited, flags));
 */
export function serveSource(
  spec: SourceSpec,
  limited: LimitedLogger,
  flags: ServeSourceFlags,
): Observable<BlockSample> {
  switch (spec.kind) {
    case "sim":
      return simulator({
        seed: flags.seed,
        scenario: flags.scenario as never,
        intervalMs: flags.intervalMs,
        clock: "wall",
      });
    case "ndjson":
      return ndjsonFile(spec.path, {
        speed: flags.speed,
        onInvalidLine: logInvalidLine(limited, flags.onEvent),
        onWaitCut: logWaitCut(limited),
      });
    case "aptos":
      return aptosRest(spec.url, {
        ...flags.aptos,
        backfillBlocks: flags.backfillBlocks,
        pollIntervalMs: flags.pollIntervalMs,
        onEvent: logAptosRestEvent(limited, flags.onEvent),
      });
    case "redis":
      return redisStream(spec.url, {
        stream: flags.stream,
        warmStartBlocks: flags.windowBlocks,
        warmStartTransactions: flags.warmStartTransactions,
        onEvent: logRedisEvent(limited, flags.onEvent),
      });
  }
}
