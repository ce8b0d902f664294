import type { BlockSample } from "../core/blockSample.js";
import type { GasConfig } from "../core/config.js";
import { InvalidConfigError } from "../core/errors.js";
import { defaultEstimate, servedEstimate } from "../core/estimate.js";
import { blockFullness, minInclusionPrice } from "../core/fullness.js";
import { strategyBuilder } from "../core/strategyBuilder.js";
import { TIERS } from "../core/tiers.js";
import type { GasEstimate, Strategy } from "../core/types.js";
import { U64_MAX } from "../core/u64.js";
import { copyCentroids } from "../sketch/centroids.js";
import { MAX_WEIGHT } from "../sketch/sketchError.js";
import { createSlidingDigest, type SlidingDigest } from "../sketch/slidingDigest.js";
import { createTDigest } from "../sketch/tdigest.js";
import {
  parseTDigestOptions,
  type TDigestStrategyConfig,
  type TDigestStrategyOptions,
  tdigestWindows,
} from "./tdigestOptions.js";

/** The `tdigest` strategy: a {@link Strategy} that can also report its memory in centroids. */
export interface TDigestStrategy extends Strategy {
  /** Centroids held by every window (the unit of the memory bound). */
  centroidCount(): number;
  /** The most centroids the windows can hold with these options (docs/strategies.md). */
  readonly maxCentroidCount: number;
}

interface Window {
  readonly sample: "clearing" | "paid";
  readonly digest: SlidingDigest;
}

const NONE = new Float64Array(0);

/**
 * The windowed t-digest strategy: each estimate is a quantile of a sliding window of blocks,
 * kept as t-digests in memory that depends on the compression and the number of chunks, never
 * on how many blocks the window spans. With the default options it serves exactly what
 * `aip34` serves (each window then holds at most 120 distinct values, below the compression,
 * so every digest is exact). Tiers with the same window and sample share one digest.
 *
 * - `clearing`: a block contributes its minimum inclusion price (`nextBucket(min price)` of a
 *   full block); a block that is not full contributes the minimum price in force *at estimate
 *   time*, as AIP-34 does (held as deferred weight, so a changed minimum applies to every such
 *   block at once).
 * - `paid`: a full block contributes the gas unit price of every transaction (weighted by
 *   `gas_used` with `weightByGasUsed`, a transaction that used 0 gas counting as 1); a block
 *   that is not full contributes the minimum price once (weighted by its mean `gas_used`).
 *
 * Results are rounded up to integers, never below the minimum price, monotone
 * (low <= regular <= prioritized), the prioritized one rounded up to the next bucket when
 * `roundPrioritizedToBucket`. `skipLatestBlock` leaves the newest block out of every window.
 *
 * @throws {InvalidConfigError} when the options are invalid (every issue, with its path).
 * @example
 * const engine = createEngine({
 *   strategy: tdigest({ tiers: { prioritized: { windowBlocks: 1_000_000, quantile: 0.99, sample: "paid" } } }),
 * });
 */
export const tdigest: (options?: TDigestStrategyOptions) => (config: GasConfig) => TDigestStrategy =
  strategyBuilder("tdigest", (options: TDigestStrategyOptions = {}) => {
    const parsed = parseTDigestOptions(options);
    return (config: GasConfig) => createTDigestStrategy(parsed, config);
  });

/**
 * Most centroids one window may hold (`SlidingDigest.maxCentroidCount`, `(S + 2)(δ + 1)`). A
 * window's older summaries are rebuilt in one block once they have been used up, a merge of all
 * of them: about 60 ms for the default windows (514,026 centroids), seconds for tens of
 * millions (a 100,000-block exact window took one block 4 s and 600 MB). Past this bound the
 * options are refused rather than letting one block of distinct prices stall the process.
 */
export const MAX_WINDOW_CENTROIDS = 2 ** 22;

function createTDigestStrategy(options: TDigestStrategyConfig, config: GasConfig): TDigestStrategy {
  const sizes = tdigestWindows(options, config);
  const windows = new Map<string, Window>();
  const tiers = TIERS.map((name) => {
    const tier = options.tiers[name];
    const windowBlocks = sizes[name];
    const key = `${tier.sample}:${windowBlocks}`;
    let window = windows.get(key);
    if (!window) {
      const digest = createSlidingDigest({
        windowBlocks,
        chunks: options.chunks,
        exactUpTo: options.exactUpTo,
        compression: options.compression,
      });
      if (digest.maxCentroidCount > MAX_WINDOW_CENTROIDS)
        throw new InvalidConfigError([
          {
            path: `tiers.${name}.windowBlocks`,
            message: `a window of ${windowBlocks} blocks (exactUpTo ${options.exactUpTo}, chunks ${options.chunks}, compression ${options.compression}) may hold ${digest.maxCentroidCount} centroids, more than ${MAX_WINDOW_CENTROIDS}: rebuilding its summaries would stall one block for seconds; lower exactUpTo, chunks or compression`,
          },
        ]);
      window = { sample: tier.sample, digest };
      windows.set(key, window);
    }
    return { quantile: tier.quantile, digest: window.digest };
  });
  const all = [...windows.values()];
  const clearing = all.filter((w) => w.sample === "clearing").map((w) => w.digest);
  const paid = all.filter((w) => w.sample === "paid").map((w) => w.digest);
  const weighted = options.weightByGasUsed;
  const one = new Float64Array(1);
  // One sort per block, shared by every paid window. Its buffer holds a whole block, so a
  // block's digest (and so every window) does not depend on the order of its transactions.
  let blockDigest = createTDigest({ compression: options.compression, bufferSize: 1024 });
  let blockCapacity = 1024;
  let prices = new Float64Array(256);
  let gas = new Float64Array(256);

  // The height each window files the block under. Windows cut their chunks by height, so replicas
  // of one stream agree (docs/operations.md); a block whose height does not increase (an engine
  // never hands one over, a caller of `ingest` might) is filed as the next height, and so are
  // the blocks after it until their heights pass it: the windows take every block, as `aip34`
  // does, but a replica that did not see that block then files the same blocks at other heights.
  let newest: bigint | undefined;

  function feedClearing(block: BlockSample, height: bigint): void {
    const price = minInclusionPrice(block, config);
    if (price === undefined) for (const d of clearing) d.addBlock(NONE, undefined, 1, height);
    else {
      // One single-value summary per block, shared by every clearing window (no sort each).
      const v = Number(price);
      one[0] = v;
      const list = copyCentroids({
        means: one,
        weights: UNIT,
        exact: EXACT,
        length: 1,
        count: 1,
        min: v,
        max: v,
      });
      for (const d of clearing) d.addBlockDigest(list, 0, height);
    }
  }

  function feedPaid(block: BlockSample, height: bigint): void {
    const txs = block.gasUnitPrices;
    const n = txs.length;
    const used = weighted ? block.gasUsed : undefined;
    if (n === 0 || !blockFullness(block, config).full) {
      let deferred = 1;
      if (used && n > 0) {
        let sum = 0;
        for (const g of used) sum += gasWeight(g);
        deferred = sum / n;
      }
      for (const d of paid) d.addBlock(NONE, undefined, deferred, height);
      return;
    }
    if (prices.length < n) {
      prices = new Float64Array(n * 2);
      gas = new Float64Array(n * 2);
    }
    for (let i = 0; i < n; i++) prices[i] = Number(txs[i]!);
    const values = prices.subarray(0, n);
    let weights: Float64Array | undefined;
    if (used) {
      for (let i = 0; i < n; i++) gas[i] = gasWeight(used[i]!);
      weights = gas.subarray(0, n);
    }
    if (n > blockCapacity) {
      blockCapacity = n;
      blockDigest = createTDigest({ compression: options.compression, bufferSize: n });
    }
    blockDigest.reset().addMany(values, weights);
    const list = copyCentroids(blockDigest.centroids());
    for (const d of paid) d.addBlockDigest(list, 0, height);
  }

  function feed(block: BlockSample): void {
    const height = newest === undefined || block.height > newest ? block.height : newest + 1n;
    if (clearing.length > 0) feedClearing(block, height);
    if (paid.length > 0) feedPaid(block, height);
    newest = height;
  }

  function tierValue(i: number, deferredValue: number): bigint {
    const tier = tiers[i]!;
    const x = Math.ceil(tier.digest.quantile(tier.quantile, deferredValue));
    return x >= 2 ** 64 ? U64_MAX : BigInt(x);
  }

  return {
    name: "tdigest",
    get maxCentroidCount() {
      let n = 0;
      for (const w of all) n += w.digest.maxCentroidCount;
      return n;
    },
    ingest(block: BlockSample) {
      feed(block);
    },
    estimate(min = config.minGasUnitPrice): GasEstimate {
      for (const t of tiers) if (t.digest.blocks === 0) return defaultEstimate(min, config.buckets);
      const m = Number(min);
      return servedEstimate(
        tierValue(0, m),
        tierValue(1, m),
        tierValue(2, m),
        min,
        config.buckets,
        options.roundPrioritizedToBucket,
      );
    },
    reset() {
      newest = undefined;
      for (const w of all) w.digest.reset();
    },
    centroidCount() {
      let n = 0;
      for (const w of all) n += w.digest.centroidCount();
      return n;
    },
  };
}

/**
 * A transaction's weight in gas-weighted sampling: its gas_used, at least 1 and at most 2^53
 * (gas figures beyond that all weigh the same; no real block comes near).
 */
function gasWeight(gasUsed: bigint): number {
  const g = Number(gasUsed);
  return g > MAX_WEIGHT ? MAX_WEIGHT : g > 1 ? g : 1;
}

const UNIT = Float64Array.of(1);
const EXACT = Uint8Array.of(1);
