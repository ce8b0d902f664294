import { type BlockSample, type BlockSampleInput, parseBlockSample } from "../core/blockSample.js";
import { clearingPrice } from "../core/clearingPrice.js";
import { type GasConfig, type GasConfigInput, parseGasConfig } from "../core/config.js";
import { createBlockOrder } from "../core/createBlockOrder.js";
import { BlockOrderError, InvalidConfigError, type ValidationIssue } from "../core/errors.js";
import { defaultEstimate, effectiveMinPrice } from "../core/estimate.js";
import type { GasEstimate, StrategyFactory } from "../core/types.js";
import { checkBacktestOptions } from "./backtestOptions.js";
import { createLane, laneResult, noteFailure, verifyLane } from "./createLane.js";
import { createSpikeDetector } from "./createSpikeDetector.js";
import { type BacktestBlock, type BacktestResult, TIERS } from "./types.js";

/** One strategy to score. */
export interface BacktestStrategy {
  /** Its label in the results; must be unique. @default the strategy's own name */
  name?: string | undefined;
  /** Makes the strategy; the backtest drives it through its own engine. */
  strategy: StrategyFactory;
  /** Config of this strategy's engine. @default the backtest's `config` */
  config?: GasConfigInput | GasConfig | undefined;
}

/** Options of {@link createBacktest}. */
export interface CreateBacktestOptions {
  /** The strategies to score, side by side on the same blocks. */
  strategies: readonly BacktestStrategy[];
  /** Config for the ground truth (fullness, minimum price) and every strategy's default. @default {} */
  config?: GasConfigInput | GasConfig | undefined;
  /** Blocks at the minimum that precede a spike and that end one. @default 10 */
  calmBlocks?: number | undefined;
  /**
   * Check that the estimate scored was published before the block was known, and that the
   * strategy gives the same estimate when asked again while the block is known (catches a
   * strategy that reads anything but the blocks it was given). @default true
   */
  verify?: boolean | undefined;
  /**
   * Ask the strategies again on every n-th scored block only (the first scored block always):
   * the check costs one extra `estimate()` per checked block and strategy. The snapshot checks
   * run on every block. @default 1
   */
  verifyEvery?: number | undefined;
  /**
   * Called with every scored block (for charts), once the block is wholly taken: if it throws,
   * `push` throws that error and the block stays counted (pushing it again is a duplicate).
   */
  onBlock?: ((block: BacktestBlock) => void) | undefined;
}

/** Internal sizes, to show that memory does not grow with the history. */
export interface BacktestStats {
  /** Blocks accepted so far. */
  readonly blocks: number;
  /** Bids waiting for their outcome, over every strategy and tier. */
  readonly pendingBids: number;
  /** The most bids that ever waited at once (bounded by 10 × tiers × strategies). */
  readonly maxPendingBids: number;
}

/** A push-driven backtest; see {@link createBacktest}. */
export interface Backtest {
  /**
   * Score every strategy's estimate (published before this block) against the block, then give
   * the block to every strategy. A repeated height is ignored.
   * @throws {InvalidBlockSampleError} the block does not match the format (nothing changes).
   * @throws {BlockOrderError} lower height, lower epoch at a higher height, or a jump above
   * `maxHeightJump` (nothing is scored; `resyncAfterBlocks` such blocks in a row, in order among
   * themselves, are followed as the engine follows them).
   * @throws {LookaheadError} a strategy was caught looking ahead (with `verify`).
   */
  push(block: BlockSample | BlockSampleInput): "accepted" | "duplicate";
  /** The scores so far. */
  result(): BacktestResult;
  /**
   * The run's internal sizes so far: blocks accepted and bids waiting (what the CLI's progress
   * line reads). A history's statistics, as `gasdigest stats` prints them, are not here.
   */
  stats(): BacktestStats;
}

/**
 * Create a streaming backtest: push a history's blocks in order and read the scores. Each
 * strategy runs in its own engine (epochs, ordering and invariants are the engine's). Before
 * block `t` is given to any strategy, each strategy's snapshot published after block `t - 1`
 * is scored against `t`: the strategies only ever receive blocks through their engine, after
 * the estimate was taken. Memory depends on the number of strategies, never on the history.
 *
 * @throws {InvalidConfigError} invalid options (every issue, with its path).
 * @example
 * const bt = createBacktest({ strategies: [{ strategy: aip34() }, { strategy: lastBlock() }] });
 * for (const block of simulateBlocks({ scenario: "spike", blocks: 5000 })) bt.push(block);
 * bt.result().strategies[0]?.tiers.regular.inclusion.within1; // aip34's regular tier, next block
 */
export function createBacktest(options: CreateBacktestOptions): Backtest {
  checkBacktestOptions(options);
  const issues: ValidationIssue[] = [];
  const calmBlocks = options.calmBlocks ?? 10;
  const verifyEvery = options.verifyEvery ?? 1;
  const truth = parseGasConfig(options.config ?? {});
  const verify = options.verify ?? true;
  // Every engine follows the main config's ordering rules, so that all of them (and the
  // harness) accept, reject and resync on the same blocks.
  const ordering = {
    maxHeightJump: truth.maxHeightJump,
    resyncAfterBlocks: truth.resyncAfterBlocks,
  };
  const lanes = options.strategies.map((s, i) =>
    createLane(s, s.config ? { ...s.config, ...ordering } : truth, i),
  );
  const order = createBlockOrder(truth);
  const seen = new Set<string>();
  lanes.forEach((lane, i) => {
    if (seen.has(lane.name))
      issues.push({ path: `strategies[${i}].name`, message: `"${lane.name}" is used twice` });
    seen.add(lane.name);
  });
  if (issues.length > 0) throw new InvalidConfigError(issues);

  const detector = createSpikeDetector(calmBlocks);
  let blocks = 0;
  let duplicates = 0;
  let atMinimum = 0;
  // Sum of the scored blocks' clearing prices (a float: only their mean is reported).
  let clearingSum = 0;
  let scored = 0;
  // Only what the order checks and the result need of the first and newest blocks.
  let firstHeight: bigint | undefined;
  let last: { height: bigint; epoch: bigint } | undefined;
  let maxPending = 0;
  const estimates: (GasEstimate | undefined)[] = new Array(lanes.length);

  function pending(): number {
    let n = 0;
    for (const lane of lanes) for (const s of lane.scores) n += s.pending();
    return n;
  }

  return {
    push(input) {
      const block = parseBlockSample(input);
      let place: ReturnType<typeof order.check>;
      try {
        place = order.check(block);
      } catch (error) {
        // The engines see the rejected block too, so that they count the same run of them.
        for (const lane of lanes)
          try {
            lane.engine.ingest(block);
          } catch (refused) {
            // Refused there too, as expected; anything else is a fault to report.
            if (!(refused instanceof BlockOrderError)) throw refused;
          }
        throw error;
      }
      if (place === "duplicate") {
        duplicates++;
        return "duplicate";
      }
      const clearing = clearingPrice(block, truth);
      const min = effectiveMinPrice(block, truth);
      if (clearing <= min) atMinimum++;
      const phase = detector.next(clearing <= min);
      let seen: BacktestBlock | undefined;
      // After a resync the published estimates belong to the dropped newest block: no bid is
      // scored on this one (below, the waiting bids still see it).
      if (blocks > 0 && place === "next") {
        clearingSum += Number(clearing);
        scored++;
        for (let l = 0; l < lanes.length; l++) {
          const lane = lanes[l]!;
          if (verify) verifyLane(lane, block, (blocks - 1) % verifyEvery === 0);
          const snap = lane.published!;
          const e = snap.estimate;
          if (!e) noteFailure(lane, block.height, snap.failure);
          estimates[l] = e;
          // Where each tier rests on an idle chain: the default estimate.
          const idle = defaultEstimate(snap.minGasUnitPrice, lane.engine.config.buckets);
          for (let t = 0; t < TIERS.length; t++) {
            const tier = TIERS[t]!;
            const bid = e?.[tier];
            lane.scores[t]!.observe(
              bid,
              clearing,
              bid !== undefined && bid <= snap.minGasUnitPrice,
            );
            lane.spikes[t]!.observe(phase, clearing, bid, idle[tier]);
          }
        }
        seen = { index: blocks, height: block.height, clearing, min, estimates: [...estimates] };
        const p = pending();
        if (p > maxPending) maxPending = p;
      } else if (place === "resync") {
        // No bid is made on it, but it is a block of the history: the bids waiting see it.
        for (const lane of lanes)
          for (let t = 0; t < TIERS.length; t++) {
            lane.scores[t]!.observe(undefined, clearing);
            lane.spikes[t]!.observe(phase, clearing, undefined, 0n);
          }
      }
      for (const lane of lanes) {
        lane.engine.ingest(block);
        lane.published = lane.engine.snapshot();
      }
      order.accept(block);
      firstHeight ??= block.height;
      last = { height: block.height, epoch: block.epoch };
      blocks++;
      // Told once the block is wholly taken: a callback that throws leaves no block half-scored
      // (the engines behind, so the same block pushed again would be scored twice).
      if (seen) options.onBlock?.(seen);
      return "accepted";
    },
    result(): BacktestResult {
      const meanClearing = scored > 0 ? clearingSum / scored : null;
      return {
        blocks,
        duplicates,
        scoredBlocks: scored,
        unsettledBids: lanes.reduce(
          (most, lane) => Math.max(most, ...lane.scores.map((s) => s.pending())),
          0,
        ),
        firstHeight: firstHeight === undefined ? null : firstHeight.toString(),
        lastHeight: last ? last.height.toString() : null,
        blocksAtMinimum: atMinimum,
        meanClearingPrice: meanClearing,
        calmBlocks,
        spikes: detector.spikes,
        strategies: lanes.map((lane) => laneResult(lane, meanClearing)),
      };
    },
    stats: () => ({ blocks, pendingBids: pending(), maxPendingBids: maxPending }),
  };
}
