import type { BlockSample } from "./blockSample.js";
import type { GasConfig } from "./config.js";
import { effectiveMinPrice } from "./estimate.js";
import { blockFullness, minPrice } from "./fullness.js";

/**
 * The ground truth of a backtest: the lowest gas unit price that got a transaction into
 * `block`. When the block was full (fullness as AIP-34 defines it: `blockFullness`), the
 * cheapest of its user transactions; otherwise the minimum gas unit price in force (the
 * block's `min_gas_unit_price`, else the configured one), since any valid bid got in. Never
 * below that minimum: a transaction priced under it could not have been a valid bid.
 *
 * A bid `p` made before the block would have entered it iff `p >= clearingPrice(block)`.
 *
 * @example
 * clearingPrice(parseBlockSample({ height: 1, epoch: 1, gas_unit_prices: [100, 120] }), DEFAULT_GAS_CONFIG); // 100n (not full)
 */
export function clearingPrice(
  block: BlockSample,
  config: Pick<GasConfig, "fullBlockTxns" | "incorporateReorderingEffects" | "minGasUnitPrice">,
): bigint {
  const min = effectiveMinPrice(block, config);
  if (block.gasUnitPrices.length === 0 || !blockFullness(block, config).full) return min;
  const cheapest = minPrice(block.gasUnitPrices);
  return cheapest < min ? min : cheapest;
}
