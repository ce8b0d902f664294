/** Exact reference answers for the sketch tests (sorted arrays, no sketch code). */

/** Ascending copy. */
export function sortedCopy(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values).sort();
}

/** AIP-34's convention: the element at index floor(q * n) of the sorted values (last for q = 1). */
export function exactQuantile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Number of values strictly below x and at or below x. */
export function ranks(sorted: Float64Array, x: number): { below: number; atOrBelow: number } {
  const search = (strict: boolean) => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (strict ? sorted[mid]! < x : sorted[mid]! <= x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return { below: search(true), atOrBelow: search(false) };
}

/**
 * How far q lies outside the rank interval of x: 0 when some position of x in the sorted data
 * has rank fraction q, else the distance to the nearest one.
 */
export function rankError(sorted: Float64Array, x: number, q: number): number {
  const n = sorted.length;
  const { below, atOrBelow } = ranks(sorted, x);
  if (q < below / n) return below / n - q;
  if (q > atOrBelow / n) return q - atOrBelow / n;
  return 0;
}

/**
 * The rank error bound asserted for q in [0.01, 0.99]: the k1 size of one centroid at q,
 * 2π·sqrt(q(1 − q))/δ, plus one value's share 1/n.
 */
export function rankErrorBound(q: number, compression: number, n: number): number {
  return (2 * Math.PI * Math.sqrt(q * (1 - q))) / compression + 1 / n;
}

export { mulberry32 } from "../helpers/prng.js";
