import { describeValue } from "../core/describeValue.js";
import { MAX_TOTAL_WEIGHT, SketchError } from "./sketchError.js";

/**
 * A list of centroids sorted by mean, the state of a t-digest. An *exact* centroid holds
 * copies of one value only (a point mass); any other centroid stands for values spread
 * around its mean. Arrays may be longer than `length`; only the first `length` entries count.
 */
export interface Centroids {
  /** Centroid means, ascending. */
  readonly means: Float64Array;
  /** Centroid weights, each > 0. */
  readonly weights: Float64Array;
  /** 1 when every value merged into the centroid equals its mean, else 0. */
  readonly exact: Uint8Array;
  /** Number of centroids. */
  readonly length: number;
  /** Sum of the weights. */
  readonly count: number;
  /** Smallest value seen (exact); `NaN` when empty. */
  readonly min: number;
  /** Largest value seen (exact); `NaN` when empty. */
  readonly max: number;
}

/**
 * Linear interpolation of y at x between (x0, y0) and (x1, y1); y1 when the span is empty.
 * Spans wider than the largest double (-1e308 to 1e308) are taken in halves, so values near the
 * ends of the number line interpolate instead of giving NaN.
 */
function lerp(x0: number, y0: number, x1: number, y1: number, x: number): number {
  if (!(x1 > x0)) return y1;
  let t = (x - x0) / (x1 - x0);
  if (t - t !== 0) t = (x / 2 - x0 / 2) / (x1 / 2 - x0 / 2);
  const dy = y1 - y0;
  return dy - dy === 0 ? y0 + t * dy : y0 * (1 - t) + y1 * t;
}

/**
 * The q-quantile of a centroid list. Ranks run from 0 to `count`; the target rank is
 * `t = q * count`. An exact centroid covering ranks [c, c + w) answers its value for every
 * t in that range, so when every centroid is exact the result is the element at index
 * `floor(q * n)` of the sorted values (clamped to the last one): the same convention as
 * AIP-34's window quantiles. Between anchors (the ends of exact centroids, the rank midpoint
 * of the other centroids, `(0, min)` and `(count, max)`) the value is interpolated linearly.
 * `q = 0` gives `min`, `q = 1` gives `max`; an empty list gives `NaN`.
 *
 * @example
 * quantileOfCentroids(digest.centroids(), 0.99);
 */
export function quantileOfCentroids(c: Centroids, q: number): number {
  const n = c.length;
  if (n === 0 || !(c.count > 0)) return Number.NaN;
  if (q <= 0) return c.min;
  if (q >= 1) return c.max;
  const { means, weights, exact } = c;
  const t = q * c.count;
  let r0 = 0;
  let v0 = c.min;
  let start = 0;
  let out = c.max;
  let found = false;
  for (let i = 0; i < n; i++) {
    const w = weights[i]!;
    const m = means[i]!;
    if (exact[i] === 1) {
      if (t < start) {
        out = lerp(r0, v0, start, m, t);
        found = true;
        break;
      }
      if (t < start + w) {
        out = m;
        found = true;
        break;
      }
      r0 = start + w;
    } else {
      const mid = start + w / 2;
      if (t < mid) {
        out = lerp(r0, v0, mid, m, t);
        found = true;
        break;
      }
      r0 = mid;
    }
    v0 = m;
    start += w;
  }
  if (!found) out = lerp(r0, v0, c.count, c.max, t);
  // Rounding in the running means can step a hair outside the exact extremes.
  return out < c.min ? c.min : out > c.max ? c.max : out;
}

/**
 * The estimated fraction of the weight at or below `x` (0 below `min`, 1 from `max` on),
 * the inverse of {@link quantileOfCentroids} on the same anchors. For an all-exact list it is
 * the exact empirical CDF. An empty list gives `NaN`.
 *
 * @example
 * cdfOfCentroids(digest.centroids(), 1000); // share of prices <= 1000
 */
export function cdfOfCentroids(c: Centroids, x: number): number {
  const n = c.length;
  if (n === 0 || !(c.count > 0)) return Number.NaN;
  if (x < c.min) return 0;
  if (x >= c.max) return 1;
  const { means, weights, exact } = c;
  let r0 = 0;
  let v0 = c.min;
  let start = 0;
  for (let i = 0; i < n; i++) {
    const w = weights[i]!;
    const m = means[i]!;
    const anchor = exact[i] === 1 ? start : start + w / 2;
    if (x < m) return lerp(v0, r0, m, anchor, x) / c.count;
    r0 = exact[i] === 1 ? start + w : anchor;
    v0 = m;
    start += w;
  }
  return lerp(v0, r0, c.max, c.count, x) / c.count;
}

/** Lists made by {@link copyCentroids}: well formed by construction, never checked again. */
const checked = new WeakSet<object>();

/**
 * A compact copy (arrays exactly `length` long) of a centroid list. Treat it as immutable:
 * it is trusted by {@link checkCentroids} without a second look.
 */
export function copyCentroids(c: Centroids): Centroids {
  const n = c.length;
  // One allocation: means, then weights, then the exact flags.
  const buffer = new ArrayBuffer(17 * n);
  const means = new Float64Array(buffer, 0, n);
  const weights = new Float64Array(buffer, 8 * n, n);
  const exact = new Uint8Array(buffer, 16 * n, n);
  const m = c.means;
  const w = c.weights;
  const e = c.exact;
  if (n >= 32) {
    // memcpy beats an element loop by far once the views are made.
    means.set(m.length === n ? m : m.subarray(0, n));
    weights.set(w.length === n ? w : w.subarray(0, n));
    exact.set(e.length === n ? e : e.subarray(0, n));
  } else
    for (let i = 0; i < n; i++) {
      means[i] = m[i]!;
      weights[i] = w[i]!;
      exact[i] = e[i]!;
    }
  const copy: Centroids = {
    means,
    weights,
    exact,
    length: n,
    count: c.count,
    min: c.min,
    max: c.max,
  };
  checked.add(copy);
  return copy;
}

/** `c` itself when it came from {@link copyCentroids} (so is never changed), else such a copy. */
export function immutableCentroids(c: Centroids): Centroids {
  return checked.has(c) ? c : copyCentroids(c);
}

/**
 * Check that a value is a well-formed {@link Centroids} (typed arrays, ascending finite means
 * within [min, max], finite weights > 0 summing to `count`, exact flags 0/1).
 *
 * @param field prefix of the paths in messages (`other` gives `other.means[3]`); `""` for none.
 * @throws {SketchError} naming the first field at fault.
 */
export function checkCentroids(field: string, value: unknown): asserts value is Centroids {
  if (typeof value === "object" && value !== null && checked.has(value)) return;
  const at = (key: string) => (field ? `${field}.${key}` : key);
  if (typeof value !== "object" || value === null)
    throw new SketchError(
      field || "centroids",
      `must be a t-digest or a centroid list, got ${describeValue(value)}`,
    );
  const c = value as Record<string, unknown>;
  const n = c.length;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0)
    throw new SketchError(at(`length`), `must be a whole number >= 0, got ${describeValue(n)}`);
  for (const [key, type] of [
    ["means", Float64Array],
    ["weights", Float64Array],
    ["exact", Uint8Array],
  ] as const) {
    const arr = c[key];
    if (!(arr instanceof type) || arr.length < n)
      throw new SketchError(at(`${key}`), `must be a ${type.name} of at least ${n} entries`);
  }
  const { means, weights, exact } = c as unknown as Centroids;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const m = means[i]!;
    if (m - m !== 0) throw new SketchError(at(`means[${i}]`), `must be a finite number, got ${m}`);
    if (i > 0 && m < means[i - 1]!)
      throw new SketchError(
        at(`means[${i}]`),
        `must not be below the previous mean (${means[i - 1]}), got ${m}`,
      );
    const w = weights[i]!;
    if (!(w > 0) || w === Number.POSITIVE_INFINITY)
      throw new SketchError(
        at(`weights[${i}]`),
        `must be a finite number greater than 0, got ${w}`,
      );
    if (exact[i]! > 1) throw new SketchError(at(`exact[${i}]`), `must be 0 or 1, got ${exact[i]}`);
    sum += w;
  }
  if (n === 0) return;
  const { min, max, count } = c as unknown as Centroids;
  if (typeof min !== "number" || min - min !== 0 || !(min <= means[0]!))
    throw new SketchError(
      at(`min`),
      `must be a finite number not above the first mean (${means[0]}), got ${describeValue(min)}`,
    );
  if (typeof max !== "number" || !(max >= means[n - 1]!) || max === Number.POSITIVE_INFINITY)
    throw new SketchError(
      at(`max`),
      `must be a finite number not below the last mean (${means[n - 1]}), got ${describeValue(max)}`,
    );
  if (typeof count !== "number" || !(Math.abs(count - sum) <= 1e-9 * sum))
    throw new SketchError(
      at(`count`),
      `must equal the sum of the weights (${sum}), got ${describeValue(count)}`,
    );
  if (count > MAX_TOTAL_WEIGHT)
    throw new SketchError(at(`count`), `must be at most 2^128, got ${count}`);
}
