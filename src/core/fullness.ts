import type { BlockSample } from "./blockSample.js";
import { nextBucket } from "./buckets.js";
import type { GasConfig } from "./config.js";

/** Which AIP-34 rule decided a block's fullness (for explanations and tests). */
export type FullnessRule =
  | "majority_use_case"
  | "txn_count"
  | "gas_limit_reached"
  | "gas_used"
  | "default";

/**
 * Whether a block was full, by the first AIP-34 rule that applies:
 * (a) one contract address > half the user transactions: not full (when
 * `incorporateReorderingEffects`); (b) at least `fullBlockTxns` user transactions: full;
 * (c) the block says whether it hit its gas/output limit: that; (d) a block gas limit is known
 * and `gas_used` is given: full when their sum reaches the limit; (e) otherwise not full.
 *
 * @example
 * blockFullness(block, parseGasConfig({})); // { full: true, rule: "txn_count" } for 250 user transactions
 */
export function blockFullness(
  block: BlockSample,
  config: Pick<GasConfig, "fullBlockTxns" | "incorporateReorderingEffects">,
): { full: boolean; rule: FullnessRule } {
  if (
    config.incorporateReorderingEffects &&
    block.majorityUseCaseFraction !== undefined &&
    block.majorityUseCaseFraction > 0.5
  )
    return { full: false, rule: "majority_use_case" };
  if (block.gasUnitPrices.length >= config.fullBlockTxns) return { full: true, rule: "txn_count" };
  if (block.blockGasLimitReached !== undefined)
    return { full: block.blockGasLimitReached, rule: "gas_limit_reached" };
  if (block.blockGasLimit !== undefined && block.gasUsed !== undefined) {
    let sum = 0n;
    for (const g of block.gasUsed) sum += g;
    return { full: sum >= block.blockGasLimit, rule: "gas_used" };
  }
  return { full: false, rule: "default" };
}

/** The smallest value in a non-empty list of prices. */
export function minPrice(prices: readonly bigint[]): bigint {
  let m = prices[0]!;
  for (let i = 1; i < prices.length; i++) {
    const p = prices[i]!;
    if (p < m) m = p;
  }
  return m;
}

/**
 * A block's minimum inclusion price as AIP-34 defines it: for a full block with user
 * transactions, `nextBucket(min gas unit price)`; otherwise `undefined`, which stands for the
 * chain's minimum gas unit price at estimate time.
 *
 * @example
 * minInclusionPrice(fullBlockClearingAt120, parseGasConfig({})); // 150n (the bucket above 120)
 */
export function minInclusionPrice(
  block: BlockSample,
  config: Pick<GasConfig, "fullBlockTxns" | "incorporateReorderingEffects" | "buckets">,
): bigint | undefined {
  if (block.gasUnitPrices.length === 0) return undefined;
  if (!blockFullness(block, config).full) return undefined;
  return nextBucket(minPrice(block.gasUnitPrices), config.buckets);
}
