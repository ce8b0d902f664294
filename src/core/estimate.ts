import type { BlockSample } from "./blockSample.js";
import { nextBucket } from "./buckets.js";
import type { GasConfig } from "./config.js";
import type { GasEstimate } from "./types.js";

/**
 * The minimum gas unit price in force after `block`: its own, else the configured one.
 *
 * @example
 * effectiveMinPrice(undefined, { minGasUnitPrice: 100n }); // 100n
 */
export function effectiveMinPrice(
  block: BlockSample | undefined,
  config: Pick<GasConfig, "minGasUnitPrice">,
): bigint {
  return block?.minGasUnitPrice ?? config.minGasUnitPrice;
}

/**
 * The estimate of a chain with no usable block: (min, min, nextBucket(min)).
 *
 * @example
 * defaultEstimate(100n, DEFAULT_GAS_CONFIG.buckets); // { deprioritized: 100n, regular: 100n, prioritized: 150n }
 */
export function defaultEstimate(min: bigint, buckets: readonly bigint[]): GasEstimate {
  return { deprioritized: min, regular: min, prioritized: nextBucket(min, buckets) };
}

/**
 * The served form of three raw tier values: deprioritized at least the minimum price, regular
 * at least deprioritized, prioritized at least regular and then, with `round` (AIP-34's rule),
 * rounded to the next bucket. Every built-in strategy ends its estimate with it.
 *
 * @example
 * servedEstimate(100n, 150n, 150n, 100n, DEFAULT_GAS_CONFIG.buckets) // { deprioritized: 100n, regular: 150n, prioritized: 300n }
 */
export function servedEstimate(
  low: bigint,
  regular: bigint,
  prioritized: bigint,
  min: bigint,
  buckets: readonly bigint[],
  round = true,
): GasEstimate {
  const deprioritized = low < min ? min : low;
  const reg = regular < deprioritized ? deprioritized : regular;
  const prio = prioritized < reg ? reg : prioritized;
  return { deprioritized, regular: reg, prioritized: round ? nextBucket(prio, buckets) : prio };
}
