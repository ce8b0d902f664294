import type { BlockSample } from "./blockSample.js";
import type { GasConfig } from "./config.js";
import { blockFullness } from "./fullness.js";

/** Above this `k`, a sort (O(n log n)) beats the insertion (O(n·k)). */
const INSERTION_MAX_K = 32;

/**
 * What a price under the floor counts as: left out (`"skip"`, as geth's oracle ignores a tip
 * under its `ignorePrice`) or the floor itself (`"floor"`, as `clearingPrice` reads a full block
 * whose cheapest transaction paid less than the minimum in force).
 */
export type BelowFloor = "skip" | "floor";

/** {@link lowestPrices} for a large `k`: the usable prices sorted, the first `k` kept. */
function lowestBySort(
  prices: readonly bigint[],
  k: number,
  floor: bigint,
  out: bigint[],
  below: BelowFloor,
) {
  const keep = below === "floor";
  let usable = 0;
  for (const p of prices) if (keep || p >= floor) usable++;
  if (usable === 0) {
    out.push(floor);
    return out;
  }
  const sorted = new BigUint64Array(usable);
  let i = 0;
  for (const p of prices) if (p >= floor) sorted[i++] = p;
  // Those under the floor, counted as the floor, sort first.
  for (let j = i; j < usable; j++) sorted[j] = floor;
  sorted.sort();
  const n = usable < k ? usable : k;
  for (let j = 0; j < n; j++) out.push(sorted[j]!);
  return out;
}

/**
 * The `k` lowest of `prices` at or above `floor`, ascending, written into `out` (cleared
 * first); `[floor]` when none is. A price under `floor` is left out, or with `below` `"floor"`
 * counts as `floor`. One pass with an insertion into at most `k` slots, so a block
 * costs O(n·k) with no sort and, given a reused `out`, no allocation; above 32 slots, a sort of
 * the usable prices (O(n log n)).
 *
 * @example
 * lowestPrices([300n, 90n, 150n, 100n], 2, 100n) // [100n, 150n]
 * lowestPrices([50n], 3, 100n) // [100n]
 * lowestPrices([50n, 300n], 3, 100n, [], "floor") // [100n, 300n]
 */
export function lowestPrices(
  prices: readonly bigint[],
  k: number,
  floor: bigint,
  out: bigint[] = [],
  below: BelowFloor = "skip",
): bigint[] {
  out.length = 0;
  if (k > INSERTION_MAX_K) return lowestBySort(prices, k, floor, out, below);
  const keep = below === "floor";
  for (const price of prices) {
    let p = price;
    if (p < floor) {
      if (!keep) continue;
      p = floor;
    }
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
 * when it was full ({@link blockFullness}; a price under `floor` left out or counted as `floor`,
 * as `below` says), else `floor` once (a block with room left took anything at the floor).
 * Written into `out`, as {@link lowestPrices}.
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
  below: BelowFloor = "skip",
): bigint[] {
  if (blockFullness(block, config).full)
    return lowestPrices(block.gasUnitPrices, k, floor, out, below);
  out.length = 0;
  out.push(floor);
  return out;
}
