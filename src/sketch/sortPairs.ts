/**
 * Sort the first `n` entries of `keys` ascending in place, moving `values` along with them.
 * Quicksort (median-of-three pivot, Hoare partition, so long runs of equal keys stay balanced)
 * with insertion sort for short ranges. Not stable; deterministic.
 *
 * @example
 * const keys = Float64Array.of(3, 1, 2);
 * const values = Float64Array.of(30, 10, 20);
 * sortPairs(keys, values, 3); // keys 1,2,3; values 10,20,30
 */
export function sortPairs(keys: Float64Array, values: Float64Array, n: number): void {
  let lo = 0;
  let hi = n - 1;
  // Recurse into the smaller side, loop on the larger: stack depth stays O(log n).
  while (hi - lo > 16) {
    const mid = (lo + hi) >>> 1;
    const a = keys[lo]!;
    const b = keys[mid]!;
    const c = keys[hi]!;
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (keys[i]! < pivot) i++;
      while (keys[j]! > pivot) j--;
      if (i <= j) {
        const k = keys[i]!;
        keys[i] = keys[j]!;
        keys[j] = k;
        const v = values[i]!;
        values[i] = values[j]!;
        values[j] = v;
        i++;
        j--;
      }
    }
    if (j - lo < hi - i) {
      sortRange(keys, values, lo, j);
      lo = i;
    } else {
      sortRange(keys, values, i, hi);
      hi = j;
    }
  }
  insertionSort(keys, values, lo, hi);
}

function sortRange(keys: Float64Array, values: Float64Array, lo: number, hi: number): void {
  if (hi - lo > 16) sortPairs(keys.subarray(lo, hi + 1), values.subarray(lo, hi + 1), hi - lo + 1);
  else insertionSort(keys, values, lo, hi);
}

function insertionSort(keys: Float64Array, values: Float64Array, lo: number, hi: number): void {
  for (let i = lo + 1; i <= hi; i++) {
    const k = keys[i]!;
    const v = values[i]!;
    let j = i - 1;
    while (j >= lo && keys[j]! > k) {
      keys[j + 1] = keys[j]!;
      values[j + 1] = values[j]!;
      j--;
    }
    keys[j + 1] = k;
    values[j + 1] = v;
  }
}
