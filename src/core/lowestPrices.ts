import type { BlockSample } from "./blockSample.js";
import type { GasConfig } from "./config.js";
import { blockFullness } from "./fullness.js";

/** Above this `k`, a sort (O(n log n)) beats the insertion (O(n·k)). */
const INSERTION_MAX_K = 32;

/** {@link lowestPrices} for a large `k`: the usable prices sorted, the first `k` kept. */
function lowestBySort(prices: readonly bigint[], k: number, floor: bigint, out: bigint[]) {
  let usable = 0;
  for (const p of prices) if (p >= floor) usable++;
  if (usable === 0) {
    out.push(floor);
    return out;
  }
  const sorted = new BigUint64Array(usable);
  let i = 0;
  for (const p of prices) if (p >= floor) sorted[i++] = p;
  sorted.sort();
  const n = usable < k ? usable : k;
  for (let j = 0; j < n; j++) out.push(sorted[j]!);
  return out;
}

/**
 * The `k` lowest of `prices` at or above `floor`, ascending, written into `out` (cleared
 * first); `[floor]` when none is. One pass with an insertion into at most `k` slots, so a block
 * costs O(n·k) with no sort and, given a reused `out`, no allocation; above 32 slots, a sort of
 * the usable prices (O(n log n)).
 *
 * @example
 * lowestPrices([300n, 90n, 150n, 100n], 2, 100n) // [100n, 150n]
 * lowestPrices([50n], 3, 100n) // [100n]
 */
export function lowestPrices(
  prices: readonly bigint[],
  k: number,
  floor: bigint,
  out: bigint[] = [],
): bigint[] {
  out.length = 0;
  if (k > INSERTION_MAX_K) return lowestBySort(prices, k, floor, out);
  for (const p of prices) {
    if (p < floor) continue;
    if (out.length < k) out.push(p);
    else if (p < out[k - 1]!) out[k - 1] = p;
    else continue;
    // The new price sits last: move it down to its place (k is small).
    for (let i = out.length - 1; i > 0 && out[i]! < out[i - 1]!; i--) {
      const t = out[i]!;
      out[i] = out[i - 1]!;
      out[i - 1] = t;
    }
  }
  if (out.length === 0) out.push(floor);
  return out;
}

/**
 * What a block says about the price needed to get in: its `k` lowest prices at or above `floor`
 * when it was full ({@link blockFullness}), else `floor` once (a block with room left took
 * anything at the floor). Written into `out`, as {@link lowestPrices}.
 *
 * @example
 * blockLowestPrices(block, config, 3, effectiveMinPrice(block, config)); // [100n, 120n, 150n]
 */
export function blockLowestPrices(
  block: BlockSample,
  config: GasConfig,
  k: number,
  floor: bigint,
  out: bigint[] = [],
): bigint[] {
  if (blockFullness(block, config).full) return lowestPrices(block.gasUnitPrices, k, floor, out);
  out.length = 0;
  out.push(floor);
  return out;
}
