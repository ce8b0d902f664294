import type { BlockSample } from "./blockSample.js";
import type { GasConfig } from "./config.js";
import { blockFullness } from "./fullness.js";

/**
 * The `k` lowest of `prices` at or above `floor`, ascending, written into `out` (cleared
 * first); `[floor]` when none is. One pass with an insertion into at most `k` slots, so a block
 * costs O(n·k) with no sort and, given a reused `out`, no allocation.
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
