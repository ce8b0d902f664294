import type { BlockSample } from "./blockSample.js";
import type { StrategyError } from "./errors.js";
import type { Tier } from "./tiers.js";

/** The three gas unit price estimates, in octas per gas unit. */
export interface GasEstimate {
  /** Low estimate, for a transaction that can wait (`deprioritized_gas_estimate`). */
  readonly deprioritized: bigint;
  /** The regular estimate (`gas_estimate`). */
  readonly regular: bigint;
  /** Aggressive estimate, for a transaction that should get in next (`prioritized_gas_estimate`). */
  readonly prioritized: bigint;
}

/** Chain state as of the newest accepted block; sent as the chain-state headers. */
export interface LedgerState {
  /** Chain id, 0..255 (the newest block's, else the last one seen, else 0). */
  readonly chainId: number;
  /** Newest block's epoch. */
  readonly epoch: bigint;
  /** Newest block's `last_version`. */
  readonly ledgerVersion: bigint;
  /** `first_version` of the oldest block still held in the windows. */
  readonly oldestLedgerVersion: bigint;
  /**
   * Newest block's timestamp, microseconds since the Unix epoch (the last one a block gave: 0
   * before any did).
   */
  readonly timestampUsec: bigint;
  /** Newest block's height. */
  readonly blockHeight: bigint;
  /** Height of the oldest block still held in the windows. */
  readonly oldestBlockHeight: bigint;
}

/** Immutable result of ingesting one block: what every request reads until the next block. */
export interface Snapshot {
  /**
   * The estimate, or `undefined` when the strategy failed (see `failure`); with `staticOverride`
   * or `enabled: false` always the one served, whatever the strategy did.
   */
  readonly estimate: GasEstimate | undefined;
  /**
   * Why there is no estimate: the strategy threw or broke the invariants (with `staticOverride`
   * or `enabled: false`, a failure to reset or ingest, reported beside the estimate served).
   */
  readonly failure: StrategyError | undefined;
  /** Chain state as of this block (the chain-state headers of every answer). */
  readonly ledger: LedgerState;
  /** Minimum gas unit price in force (newest block's, else the configured one). */
  readonly minGasUnitPrice: bigint;
  /** Strategy that produced the estimate. */
  readonly strategy: string;
  /**
   * Wall-clock time (ms since the Unix epoch) the block arrived, used for staleness: when it was
   * ingested, or earlier when it arrived first elsewhere (a Redis replica's blocks arrived at
   * the publisher, which writes that time into each entry).
   */
  readonly receivedAtMs: number;
  /** Increases by one with every published snapshot. */
  readonly sequence: number;
  /**
   * For a strategy that makes promises (`calibrated`): each tier's promise and the inclusion
   * rate its bids achieved so far. `undefined` for strategies without promises, and with
   * `staticOverride` or `enabled: false` (what is served is not the strategy's estimate). On a
   * block the strategy failed on, the last record it reported.
   */
  readonly promises?: Readonly<Record<Tier, PromiseRecord>> | undefined;
}

/** What a tier promises: a bid at its estimate gets in within `withinBlocks` blocks with `probability`. */
export interface TierPromise {
  /** Blocks the bid may wait, counting the first block it could enter. */
  readonly withinBlocks: number;
  /** Share of bids that must get in within `withinBlocks` blocks (above 0, at most 1; `calibrated` takes below 1). */
  readonly probability: number;
}

/** A tier's promise and how its own bids fared against it, as a strategy observed them. */
export interface PromiseRecord extends TierPromise {
  /**
   * Bids whose outcome is known (made at least `withinBlocks` blocks ago, plus the skipped block).
   * `calibrated` drops the bids still waiting at an epoch change: they are never counted.
   */
  readonly bids: number;
  /** Of those, the bids that got in within `withinBlocks` blocks. */
  readonly included: number;
  /** `included / bids`; `null` before the first outcome. */
  readonly rate: number | null;
  /** Bids among the most recent outcomes (at most 1,000): a moving view for alerts. */
  readonly recentBids: number;
  /** Inclusion rate over those recent outcomes; `null` before the first outcome. */
  readonly recentRate: number | null;
  /**
   * Optional: of `included`, the bids served at the minimum price in force (inclusion that cost
   * nothing: no lower bid was possible; with `calibrated`'s `roundToBuckets`, at the lowest
   * bucket it can serve). The rate where the price was a choice is
   * `(included - includedAtMinimum) / (bids - includedAtMinimum)`, what the backtest reports as
   * `achievedAboveMinimum` (which counts bids at the minimum itself, so with rounding the two
   * differ). `calibrated` fills it.
   */
  readonly includedAtMinimum?: number;
  /**
   * Optional: the same among the recent outcomes (at most the recent included bids,
   * `recentRate × recentBids` rounded). `calibrated` fills it.
   */
  readonly recentIncludedAtMinimum?: number;
}

/**
 * An estimation strategy. The engine owns validation, ordering, epochs, `skipLatestBlock`, the
 * minimum price and snapshots; a strategy only sees accepted blocks of the current epoch, in
 * height order. Every method is synchronous: one returning a promise (an `async` method) is a
 * `StrategyError` ("it returned a promise"), and the promise is ignored.
 *
 * @example
 * const cheapest: StrategyFactory = () => {
 *   let low: bigint | undefined;
 *   return {
 *     name: "cheapest",
 *     ingest(block) { for (const p of block.gasUnitPrices) if (low === undefined || p < low) low = p },
 *     estimate(min) { const p = low !== undefined && low > min ? low : min; return { deprioritized: min, regular: p, prioritized: p } },
 *     reset() { low = undefined },
 *   };
 * };
 */
export interface Strategy {
  /** Short name used in logs, snapshots and the CLI (`aip34`, `tdigest`, ...). */
  readonly name: string;
  /**
   * Take one accepted block (heights increase; same epoch as the previous one since `reset`).
   * With `skipLatestBlock` the engine hands a block over only once a newer one has arrived, so
   * a strategy never implements that rule.
   */
  ingest(block: BlockSample): void;
  /**
   * Current estimate. Must be deterministic and cheap; called once per block. `min` is the
   * minimum gas unit price in force (the newest block's, else the configured one).
   */
  estimate(min: bigint): GasEstimate;
  /** Forget every block (called at an epoch change). */
  reset(): void;
  /**
   * Optional: each tier's promise and the inclusion rate observed so far (strategies that make
   * promises, such as `calibrated`). Read once per block, after `estimate`; the snapshot carries it.
   */
  promises?(): Readonly<Record<Tier, PromiseRecord>>;
}

/** Makes a strategy from the validated configuration. */
export type StrategyFactory = (config: import("./config.js").GasConfig) => Strategy;
