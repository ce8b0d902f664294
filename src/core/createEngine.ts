import { type Observable, ReplaySubject, Subject, type Subscription } from "rxjs";
import { arrivalOf } from "./blockArrival.js";
import { type BlockSample, type BlockSampleInput, safeParseBlockSample } from "./blockSample.js";
import type { GasConfig, GasConfigInput } from "./config.js";
import { createBlockOrder } from "./createBlockOrder.js";
import { createDrainQueue } from "./createDrainQueue.js";
import { createLedger } from "./createLedger.js";
import { createSourceConnections, type ObservableLike } from "./createSourceConnections.js";
import { createStrategyRunner } from "./createStrategyRunner.js";
import {
  BaseError,
  type BlockOrderError,
  InvalidBlockSampleError,
  type StrategyError,
} from "./errors.js";
import { effectiveMinPrice } from "./estimate.js";
import { readClock } from "./readClock.js";
import { resolveEngineOptions } from "./resolveEngineOptions.js";
import type { Snapshot, StrategyFactory } from "./types.js";

/** Options of {@link createEngine}. */
export interface CreateEngineOptions {
  /** Makes the strategy from the validated config: a built-in's builder called with its options (`aip34()`, `calibrated({...})`), or your own factory. */
  strategy: StrategyFactory;
  /** Estimator settings; validated, defaults filled in. @default {} */
  config?: GasConfigInput | GasConfig | undefined;
  /** Wall clock in ms, for `receivedAtMs` (tests inject one). @default Date.now */
  now?: (() => number) | undefined;
}

/** What {@link Engine.ingest} did with a block. */
export type IngestOutcome = "accepted" | "duplicate";

/** Running totals of what the engine did with the blocks it was given. */
export interface EngineCounters {
  /** Blocks ingested (each made a snapshot). */
  readonly accepted: number;
  /** Blocks at the newest height again, ignored. */
  readonly duplicate: number;
  /** Blocks refused: invalid, out of order, another chain, or too far ahead. */
  readonly rejected: number;
  /** Accepted blocks after which the strategy failed (the snapshot then carries `failure`). */
  readonly strategyFailures: number;
  /** Times the engine followed a run of rejected blocks (see `resyncAfterBlocks`). */
  readonly resyncs: number;
}

/** Something that happened in the engine worth logging. */
export type EngineEvent =
  /** A block refused; `height` when it was a valid block (refused by its order or chain). */
  | { type: "rejected"; error: BaseError; height?: bigint }
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
  /** The validated configuration, defaults filled in (frozen). */
  readonly config: GasConfig;
  /** The name of the strategy computing the estimates (`aip34`, `calibrated`, or yours). */
  readonly strategyName: string;
  /**
   * Validate and ingest one block sample (NDJSON wire shape, or a parsed `BlockSample`). Data
   * whose shape is not known at compile time (a queue, a socket) is validated all the same:
   * pass it with `as BlockSampleInput`.
   * A duplicate (the newest height again, same chain and epoch) is ignored and counted.
   * @throws {InvalidBlockSampleError} the block does not match the format (state untouched).
   * @throws {BlockOrderError} lower height, another epoch at the newest height, lower epoch than the newest block, an epoch rising
   * faster than once per block, another chain id than the newest block's, a jump of more
   * than `maxHeightJump` heights, or versions not above the newest version (state untouched; `resyncAfterBlocks` such blocks in a row, in
   * order among themselves, are followed instead). Each is also counted and published as a
   * `rejected` event.
   * @throws {InvalidArgumentError} the engine's clock (`now`) threw or returned a non-number
   * (state untouched; not counted as a rejection).
   * @throws {BaseError} the engine is closed, or `ingest` was called from inside its strategy.
   */
  ingest(input: BlockSampleInput | BlockSample): IngestOutcome;
  /** Latest snapshot in O(1), or `undefined` before the first block. */
  snapshot(): Snapshot | undefined;
  /** Every new snapshot; a new subscriber first gets the latest one, if any. */
  readonly snapshots$: Observable<Snapshot>;
  /**
   * Rejections, duplicates, epoch changes, strategy failures, source errors and completion. A
   * block's epoch change, resync and strategy failure come after its snapshot, once the engine's
   * state is whole: a handler may call `ingest` (what that block publishes waits until every
   * subscriber has been told of the current one, so each sees blocks in height order).
   */
  readonly events$: Observable<EngineEvent>;
  /**
   * Subscribe a source; its bad blocks become `rejected` events and never stop it. Unsubscribing
   * the returned subscription detaches the source (it no longer counts for `sourcesCompleted`).
   */
  connect(source$: ObservableLike): Subscription;
  /** What the engine did with the blocks it was given so far. */
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
  const ledger = createLedger(config);
  const runner = createStrategyRunner(strategy, config);
  let latest: Snapshot | undefined;
  let newest: BlockSample | undefined;
  let sequence = 0;
  let accepted = 0;
  let duplicate = 0;
  let rejected = 0;
  let strategyFailures = 0;
  let resyncs = 0;
  let closed = false;
  // With skipLatestBlock, the newest block waits here until the next one arrives.
  let deferred: BlockSample | undefined;

  // Everything the engine publishes goes through one queue, in order. A subscriber that calls
  // `ingest` from its handler gets the new block processed at once (its state, its outcome),
  // but that block's snapshot and events wait until every subscriber has been told of the block
  // being published: each subscriber sees snapshots in height order, each block's events after
  // its snapshot and before the next block's.
  const outbox = createDrainQueue<() => void>();
  let publishing = false;
  function publish(...items: (() => void)[]): void {
    for (const item of items) outbox.push(item);
    if (publishing) return;
    publishing = true;
    try {
      for (let next = outbox.take(); next; next = outbox.take()) next();
    } finally {
      publishing = false;
      outbox.clear();
    }
  }
  const emit = (event: EngineEvent) => () => events.next(event);

  // The errors `reject` counted and published: a source fed through `connect` is not told of
  // them twice (a handler of the rejection may reject another block before `ingest` returns);
  // anything else `ingest` throws there (a failing clock) is a source_error.
  const counted = new WeakSet<object>();
  function reject(error: BaseError, height?: bigint): never {
    rejected++;
    counted.add(error);
    publish(
      emit(
        height === undefined ? { type: "rejected", error } : { type: "rejected", error, height },
      ),
    );
    throw error;
  }

  /** Forget the windows (epoch change or resync): the strategy is reset before the next feed. */
  function startAfresh() {
    ledger.forget();
    deferred = undefined;
    runner.resetBeforeNext();
  }

  /** Where `block` goes: a duplicate, the next block, or the first of a run to follow. */
  function place(block: BlockSample): "duplicate" | "next" | "resync" {
    try {
      return order.check(block);
    } catch (error) {
      reject(error as BlockOrderError, block.height);
    }
  }

  // Set while the strategy runs: a strategy that feeds its own engine (ingest called from its
  // ingest, estimate or reset) would publish snapshots out of order, so that ingest is refused
  // (and fails the strategy like any throw).
  let strategyRunning = false;

  function ingest(input: unknown): IngestOutcome {
    if (closed) throw new BaseError("the engine is closed");
    if (strategyRunning)
      throw new BaseError(
        "engine.ingest was called from inside the engine's strategy; a strategy must not feed its own engine",
      );
    const parsed = safeParseBlockSample(input);
    if (!parsed.ok) reject(new InvalidBlockSampleError(parsed.issues));
    const block = parsed.block;
    // Read the clock before anything changes: a clock that fails leaves the engine as it was.
    // A block that arrived earlier elsewhere (at the publisher of a Redis replica) is as old
    // as that arrival, so staleness counts from it.
    const clock = readClock(now, "the engine's clock");
    const arrived = arrivalOf(block);
    const receivedAtMs = arrived !== undefined && arrived < clock ? arrived : clock;
    const where = place(block);
    if (where === "duplicate") {
      duplicate++;
      publish(emit({ type: "duplicate", height: block.height }));
      return "duplicate";
    }
    // The block's events are published after its snapshot, once the engine's state is whole:
    // a subscriber may feed the engine again from its handler (an ingest there is a new block
    // after this one, never in the middle of it).
    let change: EngineEvent | undefined;
    if (where === "resync" && newest) {
      resyncs++;
      change = {
        type: "resynced",
        from: newest.height,
        to: block.height,
        epoch: block.epoch,
        rejected: config.resyncAfterBlocks - 1,
      };
      startAfresh();
    } else if (newest && block.epoch !== newest.epoch) {
      change = { type: "epoch_changed", from: newest.epoch, to: block.epoch, height: block.height };
      startAfresh();
    }
    // skipLatestBlock: the strategy gets a block only once a newer one exists (the newest may
    // be partial on a live node), so no strategy has to implement the rule itself.
    const toFeed = config.skipLatestBlock ? deferred : block;
    if (config.skipLatestBlock) deferred = block;
    strategyRunning = true;
    let outcome: ReturnType<typeof runner.outcome>;
    let min: bigint;
    try {
      const fed = runner.feed(toFeed);
      accepted++;
      order.accept(block);
      newest = block;
      ledger.record(block);
      min = effectiveMinPrice(block, config);
      outcome = runner.outcome(min, fed);
    } finally {
      strategyRunning = false;
    }
    const { estimate, failure, promises } = outcome;
    if (failure) strategyFailures++;
    latest = Object.freeze({
      estimate,
      failure,
      ledger: ledger.state(block),
      minGasUnitPrice: min,
      strategy: name,
      receivedAtMs,
      sequence: ++sequence,
      // A block the strategy failed on keeps the last record it reported: the bids it counts
      // are still the served ones, and the series exported from it do not blink out.
      promises: failure ? (promises ?? latest?.promises) : promises,
    });
    const snapshot = latest;
    publish(
      () => snapshots.next(snapshot),
      ...(change ? [emit(change)] : []),
      ...(failure ? [emit({ type: "strategy_failed", error: failure })] : []),
    );
    return "accepted";
  }

  const sources = createSourceConnections({
    next(value) {
      try {
        ingest(value);
      } catch (error) {
        // Rejections were already counted and published as events; anything else (the clock
        // failed) is published here. Either way the source keeps running.
        if (!(typeof error === "object" && error !== null && counted.has(error)))
          publish(emit({ type: "source_error", error }));
      }
    },
    error: (error) => publish(emit({ type: "source_error", error })),
    complete: () => publish(emit({ type: "source_completed" })),
  });

  function connect(source$: ObservableLike): Subscription {
    if (closed) throw new BaseError("the engine is closed");
    return sources.connect(source$);
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
      return sources.allCompleted;
    },
    close() {
      if (closed) return;
      closed = true;
      sources.closeAll();
      snapshots.complete();
      events.complete();
    },
  };
}
