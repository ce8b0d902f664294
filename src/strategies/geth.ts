import * as z from "zod";
import type { BlockSample } from "../core/blockSample.js";
import type { GasConfig } from "../core/config.js";
import { InvalidConfigError, type ValidationIssue } from "../core/errors.js";
import { defaultEstimate, effectiveMinPrice, servedEstimate } from "../core/estimate.js";
import { blockLowestPrices } from "../core/lowestPrices.js";
import { wholeNumberError } from "../core/optionSchemas.js";
import { strategyBuilder } from "../core/strategyBuilder.js";
import type { GasEstimate, Strategy, StrategyFactory } from "../core/types.js";
import { validateShape } from "../core/validate.js";

/** Options of {@link geth}. */
export interface GethOptions {
  /** Blocks sampled (go-ethereum's `GPO.Blocks`). @default 20 */
  blocks?: number | undefined;
  /** Lowest prices taken from each block (go-ethereum's `sampleNumber`). @default 3 */
  samplesPerBlock?: number | undefined;
  /** Percentile (0..100) of the collected prices behind each tier. @default { deprioritized: 30, regular: 60, prioritized: 90 } */
  percentiles?:
    | {
        deprioritized?: number | undefined;
        regular?: number | undefined;
        prioritized?: number | undefined;
      }
    | undefined;
}

/** {@link GethOptions} validated, defaults filled in. */
export interface ResolvedGethOptions {
  readonly blocks: number;
  readonly samplesPerBlock: number;
  readonly percentiles: {
    readonly deprioritized: number;
    readonly regular: number;
    readonly prioritized: number;
  };
}

const percent = (fallback: number) =>
  z
    .int({ error: "must be a whole percentile from 0 to 100" })
    .min(0, "must be a whole percentile from 0 to 100")
    .max(100, "must be a whole percentile from 0 to 100")
    .default(fallback);

/**
 * Most prices the window may hold (`blocks × samplesPerBlock`): every estimate sorts them all,
 * 100,000 in a few milliseconds. Geth's own window is 20 × 3.
 */
const MAX_WINDOW_PRICES = 100_000;

const shape = {
  blocks: z
    .int({ error: wholeNumberError("blocks") })
    .min(1, "must be at least 1")
    .max(100_000, "must be at most 100000")
    .default(20),
  samplesPerBlock: z
    .int({ error: wholeNumberError("transactions") })
    .min(1, "must be at least 1")
    .max(10_000, "must be at most 10000")
    .default(3),
  percentiles: z
    .strictObject({ deprioritized: percent(30), regular: percent(60), prioritized: percent(90) })
    .default({ deprioritized: 30, regular: 60, prioritized: 90 }),
};

/**
 * Validate {@link GethOptions} and fill in the defaults.
 *
 * @throws {InvalidConfigError} listing every problem (path + message).
 * @example
 * parseGethOptions({ blocks: 40 }).percentiles.regular; // 60
 */
export function parseGethOptions(input: GethOptions = {}): ResolvedGethOptions {
  const r = validateShape(shape, input, (f) => {
    const issues: ValidationIssue[] = [];
    const p = f.percentiles as ResolvedGethOptions["percentiles"] | undefined;
    if (p && !(p.deprioritized <= p.regular && p.regular <= p.prioritized))
      issues.push({
        path: "percentiles",
        message: `must satisfy deprioritized <= regular <= prioritized, got ${p.deprioritized}/${p.regular}/${p.prioritized}`,
      });
    const blocks = f.blocks as number | undefined;
    const k = f.samplesPerBlock as number | undefined;
    if (blocks !== undefined && k !== undefined && blocks * k > MAX_WINDOW_PRICES)
      issues.push({
        path: "samplesPerBlock",
        message: `the window holds blocks × samplesPerBlock prices, at most ${MAX_WINDOW_PRICES} (each estimate sorts them all), got ${blocks} × ${k} = ${blocks * k}`,
      });
    return issues;
  });
  if (!r.ok) throw new InvalidConfigError(r.issues);
  return Object.freeze({ ...r.value, percentiles: Object.freeze({ ...r.value.percentiles }) });
}

/**
 * A baseline after go-ethereum's gas price oracle (`eth/gasprice`, `SuggestPrice` /
 * `SuggestTipCap`, defaults `GPO.Blocks = 20`, `GPO.Percentile = 60`, `sampleNumber = 3`):
 * from each of the newest `blocks` blocks take its `samplesPerBlock` lowest prices, sort all
 * of them and serve the element at index `floor((n - 1) × percentile / 100)`, as geth does.
 *
 * What is kept and what is not:
 * - geth skips transactions priced at or below its ignore price and the block producer's own;
 *   here transactions priced below the block's minimum gas unit price are skipped (they could
 *   not have been valid bids) and every other one counts (a block sample names no sender).
 * - geth samples its previous suggestion for a block with no usable transaction; here such a
 *   block contributes the minimum gas unit price once (an empty block says the minimum was
 *   enough), which keeps the estimate a function of the window alone.
 * - geth reads every block as a price signal (Ethereum blocks are nearly always full); here a
 *   block that was not full (AIP-34 fullness, `blockFullness`) contributes the minimum price
 *   once, like an empty block: any valid bid got into it, whatever its cheapest transactions
 *   happened to pay. Without this an idle chain whose users overpay would look busy.
 * - geth widens the window up to 2 × blocks when blocks yield a single price, and caps at
 *   `MaxPrice`; neither is done here (a fixed window, no cap).
 * - geth serves one price; the tiers are the 30th (deprioritized), 60th (regular, geth's
 *   own) and 90th (prioritized) percentiles of the same collection, the prioritized one
 *   rounded up with `nextBucket` (so it strictly outbids, and an idle chain serves the default
 *   estimate min/min/nextBucket(min), as aip34, tdigest and last-block do). Never below the
 *   minimum price.
 *
 * The window holds the current epoch's blocks, leaving out the newest when `skipLatestBlock`.
 *
 * @throws {InvalidConfigError} when the options are invalid.
 * @example
 * const engine = createEngine({ strategy: geth({ blocks: 40 }) });
 */
export const geth: (options?: GethOptions) => StrategyFactory = strategyBuilder(
  "geth",
  (options: GethOptions = {}) => {
    const o = parseGethOptions(options);
    return (config: GasConfig) => createGethStrategy(o, config);
  },
);

function createGethStrategy(o: ResolvedGethOptions, config: GasConfig): Strategy {
  const k = o.samplesPerBlock;
  const capacity = o.blocks;
  // Ring of per-block samples (each the block's k lowest usable prices, ascending).
  const ring: (readonly bigint[])[] = new Array(capacity);
  let head = 0;
  let size = 0;
  // Every collected price of the window, sorted natively as unsigned 64-bit integers.
  const all = new BigUint64Array(o.blocks * k);

  return {
    name: "geth",
    ingest(block: BlockSample) {
      const floor = effectiveMinPrice(block, config);
      ring[head] = blockLowestPrices(block, config, k, floor);
      head = (head + 1) % capacity;
      if (size < capacity) size++;
    },
    estimate(min = config.minGasUnitPrice): GasEstimate {
      const n = size;
      if (n === 0) return defaultEstimate(min, config.buckets);
      let count = 0;
      for (let i = 0; i < n; i++)
        for (const p of ring[(head - 1 - i + capacity) % capacity]!) all[count++] = p;
      const sorted = all.subarray(0, count).sort();
      const at = (pct: number) => {
        const v = sorted[Math.floor(((count - 1) * pct) / 100)]!;
        return v < min ? min : v;
      };
      const { deprioritized, regular, prioritized } = o.percentiles;
      return servedEstimate(at(deprioritized), at(regular), at(prioritized), min, config.buckets);
    },
    reset() {
      head = 0;
      size = 0;
    },
  };
}
