import type { Centroids } from "./centroids.js";

/** A centroid list whose arrays and fields can be rewritten (a reusable merge target). */
export interface MutableCentroids {
  means: Float64Array;
  weights: Float64Array;
  exact: Uint8Array;
  length: number;
  count: number;
  min: number;
  max: number;
}

/** An empty reusable list with room for `capacity` centroids. */
export function emptyList(capacity = 0): MutableCentroids {
  return {
    means: new Float64Array(capacity),
    weights: new Float64Array(capacity),
    exact: new Uint8Array(capacity),
    length: 0,
    count: 0,
    min: Number.NaN,
    max: Number.NaN,
  };
}

function reserve(list: MutableCentroids, size: number): void {
  if (list.means.length >= size) return;
  const cap = Math.max(size, Math.ceil(list.means.length * 1.5));
  list.means = new Float64Array(cap);
  list.weights = new Float64Array(cap);
  list.exact = new Uint8Array(cap);
}

/**
 * Merge sorted centroid lists into `out` (no compression), merging pairwise through `scratch`.
 * `out` and `scratch` grow as needed and must not be one of the lists.
 *
 * @example
 * mergeCentroidLists([a.centroids(), b.centroids()], out, scratch);
 */
export function mergeCentroidLists(
  lists: readonly Centroids[],
  out: MutableCentroids,
  scratch: MutableCentroids,
): void {
  let size = 0;
  let count = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const l of lists) {
    size += l.length;
    count += l.count;
    if (l.min < min) min = l.min;
    if (l.max > max) max = l.max;
  }
  reserve(out, size);
  reserve(scratch, size);
  const k = lists.length;
  if (k === 1) {
    const only = lists[0]!;
    out.means.set(only.means.subarray(0, only.length));
    out.weights.set(only.weights.subarray(0, only.length));
    out.exact.set(only.exact.subarray(0, only.length));
  }
  let src: Centroids | undefined = lists[0];
  for (let i = 1; i < k; i++) {
    // Alternate so the last merge lands in `out`.
    const dst = (k - 1 - i) % 2 === 0 ? out : scratch;
    mergeTwo(src!, lists[i]!, dst);
    src = dst;
  }
  out.length = size;
  out.count = count;
  out.min = size > 0 ? min : Number.NaN;
  out.max = size > 0 ? max : Number.NaN;
}

/** Two-pointer merge of two sorted lists into `dst` (which is neither of them). */
function mergeTwo(a: Centroids, b: Centroids, dst: MutableCentroids): void {
  const am = a.means;
  const aw = a.weights;
  const ae = a.exact;
  const bm = b.means;
  const bw = b.weights;
  const be = b.exact;
  const om = dst.means;
  const ow = dst.weights;
  const oe = dst.exact;
  const an = a.length;
  const bn = b.length;
  let i = 0;
  let j = 0;
  let o = 0;
  while (i < an && j < bn) {
    if (bm[j]! < am[i]!) {
      om[o] = bm[j]!;
      ow[o] = bw[j]!;
      oe[o] = be[j]!;
      j++;
    } else {
      om[o] = am[i]!;
      ow[o] = aw[i]!;
      oe[o] = ae[i]!;
      i++;
    }
    o++;
  }
  for (; i < an; i++, o++) {
    om[o] = am[i]!;
    ow[o] = aw[i]!;
    oe[o] = ae[i]!;
  }
  for (; j < bn; j++, o++) {
    om[o] = bm[j]!;
    ow[o] = bw[j]!;
    oe[o] = be[j]!;
  }
  dst.length = o;
}
