import * as z from "zod";
import type { BlockSample } from "../core/blockSample.js";
import { clearingPrice } from "../core/clearingPrice.js";
import type { GasConfig } from "../core/config.js";
import { InvalidConfigError } from "../core/errors.js";
import { defaultEstimate, servedEstimate } from "../core/estimate.js";
import { describeNumber } from "../core/optionSchemas.js";
import { strategyBuilder } from "../core/strategyBuilder.js";
import type { GasEstimate, Strategy, StrategyFactory } from "../core/types.js";
import { U64_MAX } from "../core/u64.js";
import { validateShape } from "../core/validate.js";

const lastBlockShape = {
  /** Bid this multiple of the last block's clearing price (rounded up). @default 1 */
  multiplier: z
    .number({
      error: (iss) => `must be a number from 1 to 1000000, got ${describeNumber(iss.input)}`,
    })
    .min(1, {
      error: (iss) => `must be a number from 1 to 1000000, got ${describeNumber(iss.input)}`,
    })
    .max(1_000_000, {
      error: (iss) => `must be a number from 1 to 1000000, got ${describeNumber(iss.input)}`,
    })
    .default(1),
};

/** Options of {@link lastBlock}. */
export type LastBlockOptions = z.input<z.ZodObject<typeof lastBlockShape>>;

/**
 * `price · multiplier`, rounded up, within u64: exact in BigInt for the decimal the multiplier
 * reads as (`1.1` is 11/10, not the double just above it), at any price (a double's product
 * loses the low digits of a price above 2^53).
 */
function scale(price: bigint, multiplier: number): bigint {
  if (multiplier === 1) return price;
  // From 1 to 10^6, String() writes the shortest decimal that reads back as it: no exponent.
  const [whole, fraction = ""] = String(multiplier).split(".");
  const num = BigInt(whole! + fraction);
  const den = 10n ** BigInt(fraction.length);
  const v = (price * num + den - 1n) / den;
  return v > U64_MAX ? U64_MAX : v;
}

/**
 * The naive baseline: the next block will clear where the last one did. A block's clearing
 * price is the cheapest gas unit price among its user transactions when it was full (fullness
 * as AIP-34 defines it), else the minimum gas unit price in force: the same ground truth the
 * backtest scores against (`clearingPrice`). Serves that price (times `multiplier`) for the
 * deprioritized and regular tiers and `nextBucket` of it for the prioritized one (strictly
 * outbid, as AIP-34 rounds its prioritized tier; with the default multiplier 1 an idle chain
 * then serves the default estimate min/min/nextBucket(min), as aip34, tdigest and geth do;
 * with a larger one that multiple of the minimum). Never below the minimum price.
 *
 * "The last block" is the newest block of the epoch, or the one before it when
 * `skipLatestBlock` is set (the default, which every strategy honours: the newest block may be
 * partial on a live node). With no usable block, the default estimate.
 *
 * @throws {InvalidConfigError} an invalid multiplier.
 * @example
 * const engine = createEngine({ strategy: lastBlock({ multiplier: 1.25 }), config: { skipLatestBlock: false } });
 */
export const lastBlock: (options?: LastBlockOptions) => StrategyFactory = strategyBuilder(
  "lastBlock",
  (options: LastBlockOptions = {}) => {
    const r = validateShape(lastBlockShape, options, () => []);
    if (!r.ok) throw new InvalidConfigError(r.issues);
    const { multiplier } = r.value;
    return (config) => createLastBlock(config, multiplier);
  },
);

function createLastBlock(config: GasConfig, multiplier: number): Strategy {
  // Clearing price of the last block given (the engine holds back the newest one when
  // `skipLatestBlock` is set), times the multiplier.
  let last: bigint | undefined;

  return {
    name: "last-block",
    ingest(block: BlockSample) {
      last = scale(clearingPrice(block, config), multiplier);
    },
    estimate(min = config.minGasUnitPrice): GasEstimate {
      if (last === undefined) return defaultEstimate(min, config.buckets);
      return servedEstimate(last, last, last, min, config.buckets);
    },
    reset() {
      last = undefined;
    },
  };
}
