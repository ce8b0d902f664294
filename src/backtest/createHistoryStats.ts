import type { BlockSample } from "../core/blockSample.js";
import { clearingPrice } from "../core/clearingPrice.js";
import { type GasConfig, type GasConfigInput, parseGasConfig } from "../core/config.js";
import { effectiveMinPrice } from "../core/estimate.js";
import { blockFullness } from "../core/fullness.js";
import { createTDigest, type TDigest } from "../sketch/tdigest.js";

/** Quantile levels reported for each distribution. */
export const STATS_QUANTILES: readonly number[] = Object.freeze([
  0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99,
]);

/** A distribution's quantiles at {@link STATS_QUANTILES} (`null` when empty). */
export type Quantiles = Readonly<Record<string, number>> | null;

/** What {@link createHistoryStats} measured: the statistics a simulated chain is compared on. */
export interface HistoryStats {
  /** Blocks read. */
  readonly blocks: number;
  /** Share of blocks that were full (AIP-34's fullness rules). */
  readonly fullShare: number | null;
  /** Share of blocks whose clearing price was the minimum price. */
  readonly atMinimumShare: number | null;
  /** Runs of consecutive full blocks: how many, their mean length, quantiles and the longest. */
  readonly fullRuns: {
    readonly count: number;
    readonly mean: number | null;
    readonly quantiles: Quantiles;
    readonly max: number;
  };
  /** Lag-1 autocorrelation of log(clearing price); `null` below 3 blocks or without variation. */
  readonly clearingAutocorrelation: number | null;
  /** Quantiles of clearing(t) / clearing(t - 1). */
  readonly clearingRatio: Quantiles;
  /** Quantiles of the clearing price, as a multiple of the minimum price in force. */
  readonly clearingOverMinimum: Quantiles;
  /** Quantiles of the minimum gas unit price. */
  readonly minimumPrice: Quantiles;
}

/** Statistics of a block history, fed block by block; see {@link createHistoryStats}. */
export interface HistoryStatsCollector {
  push(block: BlockSample): void;
  result(): HistoryStats;
}

const quantiles = (d: TDigest): Quantiles =>
  d.count === 0 ? null : Object.fromEntries(STATS_QUANTILES.map((q) => [String(q), d.quantile(q)]));

/**
 * Collect a history's statistics in bounded memory (t-digests and running sums): the share of
 * full blocks, full-block run lengths, the lag-1 autocorrelation of the log clearing price,
 * quantiles of block-to-block clearing ratios, and quantiles of the minimum price. Clearing
 * prices are the backtest's ground truth (`clearingPrice`); a clearing price of 0 counts as 1.
 *
 * @example
 * const stats = createHistoryStats({ minGasUnitPrice: "1000000000" });
 * for (const block of blocks) stats.push(block);
 * stats.result().clearingAutocorrelation;
 */
export function createHistoryStats(config: GasConfigInput | GasConfig = {}): HistoryStatsCollector {
  const c = parseGasConfig(config);
  const runs = createTDigest({ compression: 300 });
  const ratios = createTDigest({ compression: 300 });
  const overMin = createTDigest({ compression: 300 });
  const minimum = createTDigest({ compression: 300 });
  let blocks = 0;
  let full = 0;
  let atMin = 0;
  let run = 0;
  let runCount = 0;
  let runSum = 0;
  let runMax = 0;
  // Running sums of x = log(clearing / the first clearing) for the lag-1 autocorrelation:
  // shifted by the first block's, so that prices of 10^10 varying by 10^-4 of themselves keep
  // their digits (sums of log(clearing) lost them: 20,000 alternating blocks read -1.197).
  let ref = 1;
  let first = 0;
  let last = 0;
  let sum = 0;
  let sumSq = 0;
  let lagged = 0;
  let previous: bigint | undefined;

  function endRun() {
    if (run === 0) return;
    runs.add(run);
    runCount++;
    runSum += run;
    if (run > runMax) runMax = run;
    run = 0;
  }

  return {
    push(block) {
      const clearing = clearingPrice(block, c);
      const min = effectiveMinPrice(block, c);
      if (blockFullness(block, c).full && block.gasUnitPrices.length > 0) {
        full++;
        run++;
      } else endRun();
      if (clearing <= min) atMin++;
      const price = Number(clearing > 0n ? clearing : 1n);
      if (blocks === 0) ref = price;
      const x = Math.log(price / ref);
      if (blocks === 0) first = x;
      else lagged += x * last;
      sum += x;
      sumSq += x * x;
      last = x;
      if (previous !== undefined) ratios.add(price / Number(previous > 0n ? previous : 1n));
      previous = clearing;
      overMin.add(price / Number(min > 0n ? min : 1n));
      minimum.add(Number(min));
      blocks++;
    },
    result() {
      const n = blocks;
      let autocorrelation: number | null = null;
      if (n >= 3) {
        const mean = sum / n;
        const variance = sumSq - n * mean * mean;
        const cov = lagged - mean * (2 * sum - first - last) + (n - 1) * mean * mean;
        // Relative to the sums' own rounding: prices of 10^10 that differ by 1 still vary.
        if (variance > 1e-12 * sumSq) autocorrelation = cov / variance;
      }
      const pendingRun = run;
      const count = runCount + (pendingRun > 0 ? 1 : 0);
      const runQuantiles = (() => {
        if (pendingRun === 0) return quantiles(runs);
        const copy = createTDigest({ compression: 300 });
        copy.merge(runs);
        copy.add(pendingRun);
        return quantiles(copy);
      })();
      return {
        blocks: n,
        fullShare: n > 0 ? full / n : null,
        atMinimumShare: n > 0 ? atMin / n : null,
        fullRuns: {
          count,
          mean: count > 0 ? (runSum + pendingRun) / count : null,
          quantiles: runQuantiles,
          max: Math.max(runMax, pendingRun),
        },
        clearingAutocorrelation: autocorrelation,
        clearingRatio: quantiles(ratios),
        clearingOverMinimum: quantiles(overMin),
        minimumPrice: quantiles(minimum),
      };
    },
  };
}
