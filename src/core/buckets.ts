/** AIP-34's default price buckets. */
export const DEFAULT_BUCKETS: readonly bigint[] = Object.freeze([
  0n,
  150n,
  300n,
  500n,
  1000n,
  3000n,
  5000n,
  10000n,
  100000n,
  1000000n,
]);

/**
 * The first bucket strictly greater than `price`, or `price` itself when none is.
 * `buckets` must be sorted ascending.
 *
 * @example
 * nextBucket(100n, DEFAULT_GAS_CONFIG.buckets) // 150n
 * nextBucket(150n, DEFAULT_GAS_CONFIG.buckets) // 300n
 * nextBucket(2_000_000n, DEFAULT_GAS_CONFIG.buckets) // 2000000n
 */
export function nextBucket(price: bigint, buckets: readonly bigint[]): bigint {
  for (const b of buckets) if (b > price) return b;
  return price;
}

/**
 * The smallest bucket at or above `price`, or `price` itself above the last bucket (what a
 * strategy's `roundToBuckets` serves). `buckets` must be sorted ascending.
 *
 * @example
 * bucketAtOrAbove(150n, DEFAULT_GAS_CONFIG.buckets) // 150n
 * bucketAtOrAbove(151n, DEFAULT_GAS_CONFIG.buckets) // 300n
 */
export function bucketAtOrAbove(price: bigint, buckets: readonly bigint[]): bigint {
  for (const b of buckets) if (b >= price) return b;
  return price;
}
