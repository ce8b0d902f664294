import { type Observable, ReplaySubject, Subject, type Subscription } from "rxjs";
import { type BlockSample, safeParseBlockSample } from "./blockSample.js";
import { checkEstimate } from "./checkEstimate.js";
import type { GasConfig, GasConfigInput } from "./config.js";
import { createBlockOrder } from "./createBlockOrder.js";
import { createHeldBlocks } from "./createHeldBlocks.js";
import {
  BaseError,
  type BlockOrderError,
  InvalidBlockSampleError,
  StrategyError,
} from "./errors.js";
import { defaultEstimate, effectiveMinPrice } from "./fullness.js";
import { resolveEngineOptions } from "./resolveEngineOptions.js";
import type { GasEstimate, LedgerState, Snapshot, StrategyFactory } from "./types.js";

/** Options of {@link createEngine}. */
export interface CreateEngineOptions {
  /** Makes the strategy from the validated config: a built-in's builder called with its options (`aip34()`, `calibrated({...})`), or your own factory. */
  strategy: StrategyFactory;
  /** Estimator settings; validated, defaults filled in. @default {} */
  config?: GasConfigInput | GasConfig;
  /** Wall clock in ms, for `receivedAtMs` (tests inject one). @default Date.now */
  now?: () => number;
}

/** What {@link Engine.ingest} did with a block. */
export type IngestOutcome = "accepted" | "duplicate";

/** Running totals of what the engine did with the blocks it was given. */
export interface EngineCounters {
  readonly accepted: number;
  readonly duplicate: number;
  readonly rejected: number;
  /** Accepted blocks after which the strategy failed (the snapshot then carries `failure`). */
  readonly strategyFailures: number;
  /** Times the engine followed a run of rejected blocks (see `resyncAfterBlocks`). */
  readonly resyncs: number;
}

/** Something that happened in the engine worth logging. */
export type EngineEvent =
  | { type: "rejected"; error: BaseError }
  | { type: "duplicate"; height: bigint }
  | { type: "epoch_changed"; from: bigint; to: bigint; height: bigint }
  /**
   * `rejected` blocks in a row were in order among themselves but not after the newest block
   * (at `from`): the engine dropped it and followed them from `to` (see `resyncAfterBlocks`).
   */
  | { type: "resynced"; from: bigint; to: bigint; epoch: bigint; rejected: number }
  | { type: "strategy_failed"; error: StrategyError }
  | { type: "source_error"; error: unknown }
  | { type: "source_completed" };

/** The estimator: validated blocks in, one immutable snapshot per block out. */
export interface Engine {
  readonly config: GasConfig;
  readonly strategyName: string;
  /**
   * Validate and ingest one block sample (NDJSON wire shape, or a parsed `BlockSample`).
   * A duplicate height is ignored and counted.
   * @throws {InvalidBlockSampleError} the block does not match the format (state untouched).
   * @throws {BlockOrderError} lower height, lower epoch than the newest block, or a jump of more
   * than `maxHeightJump` heights (state untouched; `resyncAfterBlocks` such blocks in a row, in
   * order among themselves, are followed instead).
   */
  ingest(input: unknown): IngestOutcome;
  /** Latest snapshot in O(1), or `undefined` before the first block. */
  snapshot(): Snapshot | undefined;
  /** Every new snapshot; a new subscriber first gets the latest one, if any. */
  readonly snapshots$: Observable<Snapshot>;
  /** Rejections, duplicates, epoch changes, strategy failures, source errors and completion. */
  readonly events$: Observable<EngineEvent>;
  /** Subscribe a source; its bad blocks become `rejected` events and never stop it. */
  connect(source$: Observable<unknown>): Subscription;
  counters(): EngineCounters;
  /** True when at least one source was connected and every connected source has completed. */
  readonly sourcesCompleted: boolean;
  /** Unsubscribe every source and complete the observables. Idempotent. */
  close(): void;
}

/**
 * Create an estimator engine.
 *
 * @example
 * import { createEngine, aip34 } from "gasdigest";
 * const engine = createEngine({ strategy: aip34() });
 * engine.ingest({ height: "1", epoch: "1", gas_unit_prices: ["100"] });
 * engine.snapshot()?.estimate; // { deprioritized: 100n, regular: 100n, prioritized: 150n }
 */
export function createEngine(options: CreateEngineOptions): Engine {
  const { config, now, strategy } = resolveEngineOptions(options);
  const name = strategy.name;
  const order = createBlockOrder(config);
  const snapshots = new ReplaySubject<Snapshot>(1);
  const events = new Subject<EngineEvent>();
  const subscriptions = new Set<Subscription>();
  // The blocks the configured windows can still refer to, for the "oldest" ledger fields:
  // aggressiveBlockHistory blocks, plus the newest one when it is left out of them.
  const held = createHeldBlocks(config.aggressiveBlockHistory + (config.skipLatestBlock ? 1 : 0));
  let latest: Snapshot | undefined;
  let newest: BlockSample | undefined;
  let chainId = 0;
  let ledgerVersion = 0n;
  let sequence = 0;
  let accepted = 0;
  let duplicate = 0;
  let rejected = 0;
  let strategyFailures = 0;
  let resyncs = 0;
  let connected = 0;
  let completed = 0;
  let closed = false;
  let resetPending = false;
  // With skipLatestBlock, the newest block waits here until the next one arrives.
  let deferred: BlockSample | undefined;

  function reject(error: BaseError): never {
    rejected++;
    events.next({ type: "rejected", error });
    throw error;
  }

  function computeEstimate(min: bigint): { estimate?: GasEstimate; failure?: StrategyError } {
    if (!config.enabled) return { estimate: defaultEstimate(min, config.buckets) };
    if (config.staticOverride) {
      const o = config.staticOverride;
      return { estimate: o };
    }
    return checkEstimate(strategy, name, min);
  }

  /** Forget the windows (epoch change or resync): the strategy is reset before the next feed. */
  function startAfresh() {
    held.clear();
    deferred = undefined;
    resetPending = true;
  }

  // A strategy that makes promises reports them once per block; one that throws there fails
  // like any other strategy method (the block is kept, the snapshot carries the failure).
  function readPromises(result: { estimate?: GasEstimate; failure?: StrategyError }) {
    if (!strategy.promises) return undefined;
    try {
      return Object.freeze({ ...strategy.promises() });
    } catch (cause) {
      result.estimate = undefined;
      result.failure = new StrategyError(`strategy ${name} failed to report its promises`, {
        cause,
        details: String(cause),
      });
      return undefined;
    }
  }

  function ingest(input: unknown): IngestOutcome {
    if (closed) throw new BaseError("the engine is closed");
    const parsed = safeParseBlockSample(input);
    if (!parsed.ok) reject(new InvalidBlockSampleError(parsed.issues));
    const block = parsed.block;
    let place: "duplicate" | "next" | "resync";
    try {
      place = order.check(block);
    } catch (error) {
      reject(error as BlockOrderError);
    }
    if (place === "duplicate") {
      duplicate++;
      events.next({ type: "duplicate", height: block.height });
      return "duplicate";
    }
    let strategyError: StrategyError | undefined;
    if (place === "resync" && newest) {
      resyncs++;
      events.next({
        type: "resynced",
        from: newest.height,
        to: block.height,
        epoch: block.epoch,
        rejected: config.resyncAfterBlocks - 1,
      });
      startAfresh();
    } else if (newest && block.epoch !== newest.epoch) {
      events.next({
        type: "epoch_changed",
        from: newest.epoch,
        to: block.epoch,
        height: block.height,
      });
      startAfresh();
    }
    // A reset that failed is tried again before every block, so blocks of an older epoch never
    // mix with the new one: until it succeeds, every block is a strategy failure.
    if (resetPending) {
      try {
        strategy.reset();
        resetPending = false;
      } catch (cause) {
        strategyError = new StrategyError(`strategy ${name} failed to reset`, {
          cause,
          details: String(cause),
        });
      }
    }
    // skipLatestBlock: the strategy gets a block only once a newer one exists (the newest may
    // be partial on a live node), so no strategy has to implement the rule itself.
    const toFeed = config.skipLatestBlock ? deferred : block;
    if (config.skipLatestBlock) deferred = block;
    if (!strategyError && toFeed) {
      try {
        strategy.ingest(toFeed);
      } catch (cause) {
        strategyError = new StrategyError(
          `strategy ${name} failed to ingest block ${toFeed.height}`,
          { cause, details: String(cause) },
        );
      }
    }
    accepted++;
    order.accept(block);
    newest = block;
    held.hold(block);
    if (block.chainId !== undefined) chainId = block.chainId;
    if (block.lastVersion !== undefined) ledgerVersion = block.lastVersion;
    else if (block.firstVersion !== undefined) ledgerVersion = block.firstVersion;
    const min = effectiveMinPrice(block, config);
    const result: { estimate?: GasEstimate; failure?: StrategyError } = strategyError
      ? { failure: strategyError }
      : computeEstimate(min);
    const promises = result.failure ? undefined : readPromises(result);
    if (result.failure) {
      strategyFailures++;
      events.next({ type: "strategy_failed", error: result.failure });
    }
    const oldest = held.oldest();
    const ledger: LedgerState = Object.freeze({
      chainId,
      epoch: block.epoch,
      ledgerVersion,
      oldestLedgerVersion: oldest.firstVersion ?? oldest.lastVersion ?? ledgerVersion,
      timestampUsec: block.timestampUsec ?? 0n,
      blockHeight: block.height,
      oldestBlockHeight: oldest.height,
    });
    latest = Object.freeze({
      estimate: result.estimate,
      failure: result.failure,
      ledger,
      minGasUnitPrice: min,
      strategy: name,
      receivedAtMs: now(),
      sequence: ++sequence,
      promises,
    });
    snapshots.next(latest);
    return "accepted";
  }

  function connect(source$: Observable<unknown>): Subscription {
    if (closed) throw new BaseError("the engine is closed");
    connected++;
    let done = false;
    let sub: Subscription | undefined;
    const finish = () => {
      done = true;
      if (sub) subscriptions.delete(sub);
    };
    sub = source$.subscribe({
      next(value) {
        try {
          ingest(value);
        } catch (error) {
          // Rejections were already counted and published as events; keep the source running.
          if (!(error instanceof BaseError)) events.next({ type: "source_error", error });
        }
      },
      error(error) {
        finish();
        events.next({ type: "source_error", error });
      },
      complete() {
        finish();
        completed++;
        events.next({ type: "source_completed" });
      },
    });
    if (!done) subscriptions.add(sub);
    return sub;
  }

  return {
    config,
    strategyName: name,
    ingest,
    snapshot: () => latest,
    snapshots$: snapshots.asObservable(),
    events$: events.asObservable(),
    connect,
    counters: () => ({ accepted, duplicate, rejected, strategyFailures, resyncs }),
    get sourcesCompleted() {
      return connected > 0 && completed === connected;
    },
    close() {
      if (closed) return;
      closed = true;
      for (const sub of subscriptions) sub.unsubscribe();
      subscriptions.clear();
      snapshots.complete();
      events.complete();
    },
  };
}
