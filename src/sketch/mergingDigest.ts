import { describeValue } from "../core/describeValue.js";
import {
  type Centroids,
  cdfOfCentroids,
  checkCentroids,
  copyCentroids,
  quantileOfCentroids,
} from "./centroids.js";
import { compressCentroids } from "./compressCentroids.js";
import { radixSort } from "./radixSort.js";
import {
  checkFinite,
  checkValues,
  checkWeight,
  MAX_TOTAL_WEIGHT,
  SketchError,
} from "./sketchError.js";
import type { TDigest, TDigestJSON } from "./tdigest.js";

/**
 * The implementation behind `createTDigest` (internal to the sketch layer): typed arrays, the
 * buffer allocated on first use, the centroid arrays grown as needed.
 */
export class MergingDigest implements TDigest {
  readonly compression: number;
  private readonly bufferSize: number;
  // Unmerged values and weights (negative = from a centroid that is not exact); `unit` while
  // every buffered weight is 1 (then only the values need sorting).
  private bufValues: Float64Array | undefined;
  private bufWeights: Float64Array | undefined;
  private bufLength = 0;
  private unit = true;
  // Merged centroids, ascending by mean.
  private means = new Float64Array(0);
  private weights = new Float64Array(0);
  private exact = new Uint8Array(0);
  private length = 0;
  private total = 0;
  private lo = Number.POSITIVE_INFINITY;
  private hi = Number.NEGATIVE_INFINITY;
  private view: Centroids | undefined;

  constructor(compression: number, bufferSize: number) {
    this.compression = compression;
    this.bufferSize = bufferSize;
  }

  get count(): number {
    return this.total;
  }
  get min(): number {
    this.flush();
    return this.total > 0 ? this.lo : Number.NaN;
  }
  get max(): number {
    this.flush();
    return this.total > 0 ? this.hi : Number.NaN;
  }

  add(value: number, weight?: number): this {
    checkFinite("value", value);
    if (weight !== undefined) checkWeight("weight", weight);
    this.push(value, weight ?? 1);
    return this;
  }

  addMany(values: ArrayLike<number>, weights?: ArrayLike<number>): this {
    checkValues(values, weights);
    const n = values.length;
    if (weights === undefined) for (let i = 0; i < n; i++) this.push(values[i]!, 1);
    else for (let i = 0; i < n; i++) this.push(values[i]!, weights[i]!);
    return this;
  }

  merge(other: TDigest | Centroids): this {
    let list: Centroids;
    if (other instanceof MergingDigest)
      list = other === this ? copyCentroids(this.centroids()) : other.centroids();
    else {
      checkCentroids("other", other);
      // A view of this digest's own arrays would change under the merge.
      list = other.means === this.means ? copyCentroids(other) : other;
    }
    const k = list.length;
    if (k === 0) return this;
    // Adds cannot pass the bound (2^75 values of the largest weight), merges of merges can.
    if (this.total + list.count > MAX_TOTAL_WEIGHT)
      throw new SketchError(
        "other",
        `would bring the digest's total weight to ${this.total + list.count}, past 2^128 (it holds ${this.total})`,
      );
    if (k <= this.bufferSize - this.bufLength && k <= this.bufferSize >> 1) {
      // A small list waits in the buffer like single values (keeping its exact flags).
      for (let i = 0; i < k; i++) this.push(list.means[i]!, list.weights[i]!, list.exact[i] === 1);
      if (list.min < this.lo) this.lo = list.min;
      if (list.max > this.hi) this.hi = list.max;
      return this;
    }
    this.flush();
    this.mergeSorted(list);
    return this;
  }

  quantile(q: number): number {
    if (typeof q !== "number" || !(q >= 0 && q <= 1))
      throw new SketchError("q", `must be a number from 0 to 1, got ${describeValue(q)}`);
    return quantileOfCentroids(this.centroids(), q);
  }

  cdf(x: number): number {
    checkFinite("x", x);
    return cdfOfCentroids(this.centroids(), x);
  }

  centroids(): Centroids {
    this.flush();
    if (this.view === undefined)
      this.view = {
        means: this.means,
        weights: this.weights,
        exact: this.exact,
        length: this.length,
        count: this.total,
        min: this.min,
        max: this.max,
      };
    return this.view;
  }

  centroidCount(): number {
    this.flush();
    return this.length;
  }

  toJSON(): TDigestJSON {
    const c = this.centroids();
    const empty = c.length === 0;
    return {
      type: "tdigest",
      version: 1,
      compression: this.compression,
      min: empty ? null : c.min,
      max: empty ? null : c.max,
      means: Array.from(c.means.subarray(0, c.length)),
      weights: Array.from(c.weights.subarray(0, c.length)),
      exact: Array.from(c.exact.subarray(0, c.length)),
    };
  }

  reset(): this {
    this.bufLength = 0;
    this.unit = true;
    this.length = 0;
    this.total = 0;
    this.lo = Number.POSITIVE_INFINITY;
    this.hi = Number.NEGATIVE_INFINITY;
    this.view = undefined;
    return this;
  }

  /** Replace the content with a checked centroid list, as it is (no merge pass). */
  load(list: Centroids): void {
    this.reset();
    this.reserve(list.length);
    this.means.set(list.means.subarray(0, list.length));
    this.weights.set(list.weights.subarray(0, list.length));
    this.exact.set(list.exact.subarray(0, list.length));
    this.length = list.length;
    this.total = list.count;
    if (list.length > 0) {
      this.lo = list.min;
      this.hi = list.max;
    }
  }

  /** Buffer one checked value; merge when the buffer is full. */
  private push(x: number, weight: number, exact = true): void {
    let values = this.bufValues;
    if (values === undefined) {
      values = this.bufValues = new Float64Array(this.bufferSize);
      this.bufWeights = new Float64Array(this.bufferSize);
    }
    const i = this.bufLength;
    values[i] = x + 0; // -0 is kept as 0
    // Weights are only written once one differs from 1 (min and max come from the sort).
    if (weight !== 1 || !exact) {
      if (this.unit) {
        this.bufWeights!.fill(1, 0, i);
        this.unit = false;
      }
      this.bufWeights![i] = exact ? weight : -weight;
    } else if (!this.unit) this.bufWeights![i] = 1;
    this.bufLength = i + 1;
    this.total += weight;
    if (i + 1 === this.bufferSize) this.flush();
  }

  /** Sort the buffer and merge it into the centroids. */
  private flush(): void {
    const n = this.bufLength;
    if (n === 0) return;
    const values = this.bufValues!;
    const bufWeights = this.bufWeights!;
    radixSort(values, n, this.unit ? undefined : bufWeights);
    if (values[0]! < this.lo) this.lo = values[0]!;
    if (values[n - 1]! > this.hi) this.hi = values[n - 1]!;
    // Fold runs of equal exact values first (prices repeat a lot): fewer entries to merge.
    let k = 0;
    if (this.unit) {
      for (let j = 0; j < n; ) {
        const v = values[j]!;
        let r = j + 1;
        while (r < n && values[r] === v) r++;
        values[k] = v;
        bufWeights[k] = r - j;
        k++;
        j = r;
      }
    } else {
      for (let j = 0; j < n; j++) {
        const v = values[j]!;
        const w = bufWeights[j]!;
        if (k > 0 && w > 0 && bufWeights[k - 1]! > 0 && values[k - 1] === v)
          bufWeights[k - 1]! += w;
        else {
          values[k] = v;
          bufWeights[k] = w;
          k++;
        }
      }
    }
    this.bufLength = 0;
    this.unit = true;
    this.mergeBack(values, bufWeights, undefined, k);
  }

  /** Merge a sorted centroid list (not this digest's own arrays) into the flushed centroids. */
  private mergeSorted(list: Centroids): void {
    this.total += list.count;
    if (list.min < this.lo) this.lo = list.min;
    if (list.max > this.hi) this.hi = list.max;
    this.mergeBack(list.means, list.weights, list.exact, list.length);
  }

  /**
   * Merge `k` sorted entries (not in this digest's own arrays) into the centroids, from the back
   * so the centroids can stay where they are, then compress. Without `srcExact`, a negative
   * weight marks an entry that is not exact (the buffer's form); centroid weights are positive.
   */
  private mergeBack(
    srcMeans: Float64Array,
    srcWeights: Float64Array,
    srcExact: Uint8Array | undefined,
    k: number,
  ): void {
    this.reserve(this.length + k);
    const { means, weights, exact } = this;
    let i = this.length - 1;
    let j = k - 1;
    let o = this.length + k - 1;
    while (j >= 0) {
      const x = srcMeans[j]!;
      if (i >= 0 && means[i]! > x) {
        means[o] = means[i]!;
        weights[o] = weights[i]!;
        exact[o] = exact[i]!;
        i--;
      } else {
        const w = srcWeights[j]!;
        means[o] = x;
        weights[o] = w > 0 ? w : -w;
        exact[o] = srcExact === undefined ? (w > 0 ? 1 : 0) : srcExact[j]!;
        j--;
      }
      o--;
    }
    this.length = compressCentroids(
      means,
      weights,
      exact,
      this.length + k,
      this.total,
      this.compression,
    );
    this.view = undefined;
  }

  /** Grow the centroid arrays to hold at least `size` entries. */
  private reserve(size: number): void {
    if (size <= this.means.length) return;
    const cap = Math.max(size, Math.ceil(this.means.length * 1.5), 16);
    const means = new Float64Array(cap);
    const weights = new Float64Array(cap);
    const exact = new Uint8Array(cap);
    means.set(this.means.subarray(0, this.length));
    weights.set(this.weights.subarray(0, this.length));
    exact.set(this.exact.subarray(0, this.length));
    this.means = means;
    this.weights = weights;
    this.exact = exact;
  }
}
