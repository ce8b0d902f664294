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
