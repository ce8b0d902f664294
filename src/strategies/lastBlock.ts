import type { BlockSample } from "../core/blockSample.js";
import { clearingPrice } from "../core/clearingPrice.js";
import type { GasConfig } from "../core/config.js";
import { defaultEstimate, servedEstimate } from "../core/fullness.js";
import type { GasEstimate, Strategy } from "../core/types.js";

/**
 * The naive baseline: the next block will clear where the last one did. A block's clearing
 * price is the cheapest gas unit price among its user transactions when it was full (fullness
 * as AIP-34 defines it), else the minimum gas unit price in force: the same ground truth the
 * backtest scores against (`clearingPrice` in `src/core`). Serves that price for the
 * deprioritized and regular tiers and `nextBucket` of it for the prioritized one (strictly
 * outbid, as AIP-34 rounds its prioritized tier; an idle chain then serves the default
 * estimate min/min/nextBucket(min) like every strategy). Never below the minimum price.
 *
 * "The last block" is the newest block of the epoch, or the one before it when
 * `skipLatestBlock` is set (the default, which every strategy honours: the newest block may be
 * partial on a live node). With no usable block, the default estimate.
 *
 * @example
 * const engine = createEngine({ strategy: lastBlock, config: { skipLatestBlock: false } });
 */
export function lastBlock(config: GasConfig): Strategy {
  // Clearing price of the last block given (the engine holds back the newest one when
  // `skipLatestBlock` is set).
  let last: bigint | undefined;

  return {
    name: "last-block",
    ingest(block: BlockSample) {
      last = clearingPrice(block, config);
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
