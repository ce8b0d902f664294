import { TIERS, type Tier } from "../core/tiers.js";
import type { GasEstimate } from "../core/types.js";

export { TIERS, type Tier };

/** Blocks a bid may wait: inclusion is scored within 1, 3 and 10 blocks. */
export const HORIZONS = Object.freeze([1, 3, 10] as const);

/** The longest horizon: a bid is settled once it has seen this many blocks. */
export const LOOKAHEAD_BLOCKS = 10;

/** How quickly a tier followed the spikes of the history (blocks are rows of the history). */
export interface SpikeResponse {
  /** Spikes whose outcome is known (the spike was over, or the tier had covered it). */
  readonly spikes: number;
  /** Of those, how many the tier covered (resp. came back after). */
  readonly hits: number;
  /** Median blocks needed, over the hits; `null` without hits. */
  readonly median: number | null;
  /** Mean blocks needed, over the hits; `null` without hits. */
  readonly mean: number | null;
  /** Most blocks needed, over the hits; `null` without hits. */
  readonly max: number | null;
}

/** Scores of one tier of one strategy. */
export interface TierResult {
  /** Bids scored: one per block that had an estimate before it, with its 10-block outcome known. */
  readonly bids: number;
  /** How many of those bids would have been included within 1, 3 and 10 blocks. */
  readonly included: {
    readonly within1: number;
    readonly within3: number;
    readonly within10: number;
  };
  /** The same as shares of `bids` (0..1); `null` when there is no bid. */
  readonly inclusion: {
    readonly within1: number | null;
    readonly within3: number | null;
    readonly within10: number | null;
  };
  /**
   * `estimate / clearing price` of the block each bid got into, over the bids included within
   * 10 blocks (1 = paid exactly the clearing price). `null` when no bid got in.
   */
  readonly overpayment: {
    readonly median: number;
    readonly p90: number;
    readonly mean: number;
  } | null;
  /**
   * What the tier costs its users: the mean price paid by the bids included within 10 blocks
   * (each pays its bid), over the mean clearing price of the scored blocks (`meanClearingPrice`).
   * Where `overpayment` says how far above the block it got into each bid paid, this says how
   * much it paid: a cheap bid that waits for an empty block overpays that block many times
   * over and still costs less than a dear bid that gets in at once. `null` when no bid got in,
   * or when every scored block cleared at 0 (a chain whose minimum is 0: no unit to count in).
   */
  readonly cost: number | null;
  /**
   * The tier's promise, for strategies that make promises (`calibrated`), and the share of its
   * bids that kept it: included within `withinBlocks` (`null` when that is beyond the 10 blocks
   * scored, or without bids). `null` for strategies without promises.
   *
   * `achievedAboveMinimum` is the same share leaving out the bids at the minimum price that got
   * in: a bid at the minimum cannot be cheaper, so inclusion above the promise there is not
   * overpayment. It is the rate the promise is kept at where the price was a choice.
   */
  readonly promise: {
    readonly withinBlocks: number;
    readonly probability: number;
    readonly achieved: number | null;
    readonly achievedAboveMinimum: number | null;
  } | null;
  /** Blocks from a spike's first block until the tier's estimate covers a spike block's clearing price. */
  readonly spikeCover: SpikeResponse;
  /** Blocks from a spike's end until the tier is back at its idle-chain value. */
  readonly spikeReturn: SpikeResponse;
}

/** Longest message of a strategy's first failure kept in the results. */
export const MAX_FAILURE_CHARS = 200;

/** Scores of one strategy. */
export interface StrategyResult {
  /** Label given to the backtest (unique within it). */
  readonly name: string;
  /** The strategy's own name (`Strategy.name`). */
  readonly strategy: string;
  /** Scored blocks it had no estimate before (it threw or broke the invariants): no bid. */
  readonly failures: number;
  /**
   * The first of those blocks and why (the strategy's error, on one line, cut to
   * {@link MAX_FAILURE_CHARS} characters); absent when `failures` is 0.
   */
  readonly firstFailure?: { readonly height: string; readonly message: string };
  /** The scores of each tier's bids. */
  readonly tiers: Readonly<Record<Tier, TierResult>>;
}

/** What a backtest measured; plain JSON (heights as decimal strings). */
export interface BacktestResult {
  /** Blocks replayed (accepted: duplicates are not counted). */
  readonly blocks: number;
  /** Blocks ignored because their height repeated the previous one. */
  readonly duplicates: number;
  /** Blocks with an estimate made before them: every block but the first and those right after a resync. */
  readonly scoredBlocks: number;
  /**
   * Bids left out because their 10-block outcome is unknown: those made before the last
   * (up to 9) scored blocks of the history, per tier of a strategy that bid on each of them (one
   * that failed on some of them has fewer waiting).
   */
  readonly unsettledBids: number;
  /** Height of the first block replayed; `null` for an empty history. */
  readonly firstHeight: string | null;
  /** Height of the last block replayed; `null` for an empty history. */
  readonly lastHeight: string | null;
  /** Blocks whose clearing price was the minimum gas unit price. */
  readonly blocksAtMinimum: number;
  /** Mean clearing price of the scored blocks, the unit of each tier's `cost`; `null` before any. */
  readonly meanClearingPrice: number | null;
  /** The spike rule: blocks at the minimum that must precede a spike and that end it. */
  readonly calmBlocks: number;
  /** Spikes that started in the history. */
  readonly spikes: number;
  /** Each strategy's scores, in the order they were given. */
  readonly strategies: readonly StrategyResult[];
}

/** One scored block, as `onBlock` sees it. */
export interface BacktestBlock {
  /** 0-based position of the block in the history (duplicates skipped). */
  readonly index: number;
  /** The block's height. */
  readonly height: bigint;
  /** The block's clearing price (ground truth). */
  readonly clearing: bigint;
  /** Minimum gas unit price in force for the block. */
  readonly min: bigint;
  /** Each strategy's estimate made before the block (options order); `undefined` on failure. */
  readonly estimates: readonly (GasEstimate | undefined)[];
}
