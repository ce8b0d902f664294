import type { BlockSample } from "../core/blockSample.js";
import { bucketAtOrAbove } from "../core/buckets.js";
import { clearingPrice } from "../core/clearingPrice.js";
import type { GasConfig } from "../core/config.js";
import { effectiveMinPrice } from "../core/estimate.js";
import { blockLowestPrices } from "../core/lowestPrices.js";
import { strategyBuilder } from "../core/strategyBuilder.js";
import { TIERS, type Tier } from "../core/tiers.js";
import type { GasEstimate, PromiseRecord, Strategy, StrategyFactory } from "../core/types.js";
import { anchored } from "./calibrated/anchored.js";
import { createTierLearner, type TierLearner } from "./calibrated/createTierLearner.js";
import {
  type CalibratedConfig,
  type CalibratedOptions,
  parseCalibratedOptions,
} from "./calibrated/options.js";
import { createSortedWindow, type SortedWindow } from "./calibrated/sortedWindow.js";

/**
 * The windows of recent prices: the 3 lowest prices of each of the newest 5 and 20 blocks (a
 * block that was not full contributes the minimum price once), and the clearing prices of the
 * newest 100 and 500 blocks. Short windows follow a chain whose prices are sticky; the long ones
 * estimate the tail of a chain whose blocks clear independently, and remember the last spike
 * when a promise must cover the next one. A spike is many blocks: the long windows read no rank
 * above what more than 1 % of their blocks (6 of 500, 2 of 100) or a run of two reached
 * (`trimTop`), so a few blocks far above the rest move the tiers only while the short windows
 * hold them, not for the hundreds of blocks a long one would.
 */
const WINDOWS = [
  { blocks: 5, sample: "lowest", trimTop: false },
  { blocks: 20, sample: "lowest", trimTop: false },
  { blocks: 100, sample: "clearing", trimTop: true },
  { blocks: 500, sample: "clearing", trimTop: true },
] as const;
/**
 * The samples a tier chooses from (its experts): each window twice, as plain prices and as
 * prices relative to the minimum in force before their block, brought to today's minimum. On a
 * chain whose minimum does not move the two are the same prices (and the plain one is served);
 * on one whose minimum moves every block like a base fee, the relative one follows it, where
 * plain prices of 500 blocks ago say little; on one whose minimum moves with no bearing on what
 * blocks clear at, the plain one keeps the lower loss.
 */
const EXPERTS = [false, true].flatMap((relative) => WINDOWS.map((w) => ({ ...w, relative })));
const LOWEST = 3;
/**
 * The plain 100-block window of clearing prices (the shortest trimmed one: its top is the
 * second-highest price),
 * newest block included: the experts' losses read no outcome above its top, so one block far
 * above the rest does not rank them (see {@link TierLearner.settle}).
 */
const CAP_WINDOW = EXPERTS.findIndex((e) => !e.relative && e.trimTop);

/**
 * The calibrated strategy: every tier is a promise, "a bid at this price gets in within
 * `withinBlocks` blocks with `probability`" (defaults: prioritized 99 % in 1 block, regular
 * 95 % in 3, deprioritized 90 % in 10), and serves the lowest price that recent history says
 * keeps it, correcting itself online from the outcome of each of its own bids.
 *
 * A bid's outcome is known `withinBlocks` blocks later (plus the skipped newest block with
 * `skipLatestBlock`): it got in iff some block of its horizon cleared at or below it
 * (`clearingPrice`, the backtest's ground truth). Each tier runs adaptive conformal inference
 * over eight samples of recent prices (four windows, each as plain prices and relative to the
 * minimum price) and serves the one with the lowest recent pinball loss (see
 * {@link createTierLearner}; docs/strategies.md has the model, its guarantee and its limits).
 *
 * Bids are observed prices (on a chain whose minimum moves, observed prices over the minimum
 * brought to today's), never below the minimum price, monotone across tiers, and not
 * rounded to buckets unless `roundToBuckets`. Deterministic; memory is fixed by the promises
 * (about 1,400 prices), never by the history's length. An epoch change empties the price
 * windows and drops the bids waiting for an outcome (with `epochReset: "all"`, the learned
 * calibration too); the observed inclusion record ({@link Strategy.promises}) keeps counting,
 * the estimates served before an epoch's first block is handed over included.
 *
 * @throws {InvalidConfigError} when the options are invalid (every issue, with its path).
 * @example
 * const engine = createEngine({ strategy: calibrated({ tiers: { prioritized: { probability: 0.995 } } }) });
 * engine.snapshot()?.promises?.prioritized.rate; // share of prioritized bids that got in next block
 */
export const calibrated: (options?: CalibratedOptions) => StrategyFactory = strategyBuilder(
  "calibrated",
  (options: CalibratedOptions = {}) => {
    const settings: CalibratedConfig = parseCalibratedOptions(options);
    const every = settings.anchorBlocks;
    return (config) =>
      every === undefined
        ? createCalibrated(settings, config)
        : anchored(() => createCalibrated(settings, config), BigInt(every));
  },
);

function createCalibrated(settings: CalibratedConfig, config: GasConfig): Strategy {
  const lag = config.skipLatestBlock ? 1 : 0;
  const horizon = Math.max(...TIERS.map((t) => settings.tiers[t].withinBlocks));
  const samples: SortedWindow[] = EXPERTS.map((e) =>
    createSortedWindow(e.blocks, e.sample === "lowest" ? LOWEST : 1, {
      relative: e.relative,
      trimTop: e.trimTop,
    }),
  );
  const learners = TIERS.map((tier) =>
    createTierLearner({
      ...settings.tiers[tier],
      lag,
      learningRate: settings.learningRate,
      correctionRate: settings.correctionRate,
      experts: EXPERTS.length,
    }),
  ) as [TierLearner, TierLearner, TierLearner];
  // Clearing prices of the newest `horizon` blocks, to settle bids.
  const clearing: bigint[] = new Array(horizon);
  let head = 0;
  const lowest: bigint[] = [];
  const one: bigint[] = [0n];
  // Each tier's bid after the newest block given (before the minimum in force is applied).
  let tierBids: bigint[] | undefined;
  // A block was ingested and its bids are not made yet: they are made by the first `estimate`,
  // at the minimum the engine serves under (with skipLatestBlock, the newest block's, not the
  // ingested one's), so each tier learns from the price it actually served.
  let due = false;
  // The ingested block's own minimum: the bids' floor if no estimate is asked before the next block.
  let ingestedMin = 0n;
  // An estimate was served with no window to bid from since the last block or reset (recorded once).
  let servedEmpty = false;
  // Whether a block was ingested since the strategy started or was reset (so `ingestedMin` is
  // the minimum in force before the next block).
  let sawBlock = false;

  const outcome = (k: number) => {
    let y = clearing[(head - 1 + horizon) % horizon]!;
    for (let i = 2; i <= k; i++) {
      const c = clearing[(head - i + horizon) % horizon]!;
      if (c < y) y = c;
    }
    return y;
  };

  function serve(bids: readonly bigint[], min: bigint): GasEstimate {
    let low = bids[0]! < min ? min : bids[0]!;
    let regular = bids[1]! < low ? low : bids[1]!;
    let prioritized = bids[2]! < regular ? regular : bids[2]!;
    if (settings.roundToBuckets) {
      low = bucketAtOrAbove(low, config.buckets);
      regular = bucketAtOrAbove(regular, config.buckets);
      prioritized = bucketAtOrAbove(prioritized, config.buckets);
    }
    return { deprioritized: low, regular, prioritized };
  }

  /**
   * The lowest price a tier can serve under minimum `min`: the minimum, or with
   * `roundToBuckets` the bucket at or above it (a hit there was no choice, and teaches nothing).
   */
  const lowestServed = (min: bigint) =>
    settings.roundToBuckets ? bucketAtOrAbove(min, config.buckets) : min;

  /** Make and record each tier's bid for the newest block, served at floor `min`. */
  function bidAndServe(min: bigint): GasEstimate {
    due = false;
    tierBids = learners.map((l) => l.bid(samples, min));
    const served = serve(tierBids, min);
    const floor = lowestServed(min);
    for (let i = 0; i < TIERS.length; i++) learners[i]!.served(served[TIERS[i]!], floor);
    return served;
  }

  return {
    name: "calibrated",
    ingest(block: BlockSample) {
      if (due) bidAndServe(ingestedMin);
      const min = effectiveMinPrice(block, config);
      clearing[head] = clearingPrice(block, config);
      head = (head + 1) % horizon;
      // A price under the minimum counts as the minimum, as in the block's clearing price: left
      // out, a full block's dearest few were read as its lowest (an audit served 127 times the
      // going price for 20 blocks on a history whose minimum was raised over its prices).
      blockLowestPrices(block, config, LOWEST, min, lowest, "floor");
      one[0] = clearing[(head - 1 + horizon) % horizon]!;
      // Each price relative to the minimum in force before its block (the floor a bid it could
      // include was made at): on a chain whose minimum moves every block, the windows follow it.
      // A minimum that more than doubled or halved in one block is no base fee (EIP-1559's
      // moves 12.5 % at most) but a new rule: prices relative to the old one say nothing of
      // the new one (raised 10 times, they were served 10 times over for 17 blocks), so the
      // relative windows start again, from this block at its own minimum. A minimum of 0 is
      // compared on the `+ 1` scale the relative prices are brought on: from 0 to 1 doubles,
      // from 0 to more than 1 (or back) jumps (left out, a minimum raised from 0 to 100 had
      // the old prices served 101 times over, about 80 times the going price).
      const jumped =
        sawBlock &&
        (min === 0n || ingestedMin === 0n
          ? min + ingestedMin > 1n
          : min > 2n * ingestedMin || 2n * min < ingestedMin);
      const ref = sawBlock && !jumped ? ingestedMin : min;
      for (let i = 0; i < EXPERTS.length; i++) {
        if (jumped && EXPERTS[i]!.relative) samples[i]!.clear();
        samples[i]!.push(EXPERTS[i]!.sample === "lowest" ? lowest : one, ref);
      }
      const capWindow = samples[CAP_WINDOW]!;
      const cap = capWindow.at(capWindow.size - 1, 0n);
      for (const learner of learners) learner.settle(outcome, cap);
      sawBlock = true;
      ingestedMin = min;
      due = true;
      servedEmpty = false;
    },
    estimate(min = config.minGasUnitPrice): GasEstimate {
      if (due) return bidAndServe(min);
      if (!tierBids) {
        // Served all the same (the first block of an epoch is held back): the record counts it.
        const m = lowestServed(min);
        if (!servedEmpty) for (const l of learners) l.servedWithoutBid(m, m);
        servedEmpty = true;
        return { deprioritized: m, regular: m, prioritized: m };
      }
      return serve(tierBids, min);
    },
    reset() {
      for (const s of samples) s.clear();
      for (const l of learners) l.reset(settings.epochReset === "all");
      head = 0;
      sawBlock = false;
      tierBids = undefined;
      due = false;
      servedEmpty = false;
    },
    promises(): Record<Tier, PromiseRecord> {
      return {
        deprioritized: learners[0].record(),
        regular: learners[1].record(),
        prioritized: learners[2].record(),
      };
    },
  };
}
