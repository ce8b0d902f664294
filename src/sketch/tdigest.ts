import { describeValue } from "../core/describeValue.js";
import type { Centroids } from "./centroids.js";
import { MergingDigest } from "./mergingDigest.js";
import { checkOptionKeys, SketchError } from "./sketchError.js";

/** Options of {@link createTDigest}. */
export interface TDigestOptions {
  /**
   * Compression δ, from 10 to 100000. Memory is at most `ceil(δ) + 1` centroids plus the
   * buffer; the rank error near quantile q is about `2π·sqrt(q(1−q))/δ` (see
   * docs/strategies.md, "Error bound"). Up to `floor(δ)` distinct values are kept exactly.
   * @default 500
   */
  compression?: number | undefined;
  /** Values buffered before a sort + merge pass (more is faster, uses 16 bytes each). @default 8 × compression */
  bufferSize?: number | undefined;
}

/** A t-digest as plain JSON (`JSON.stringify` of a digest gives this). */
export interface TDigestJSON {
  /** Always `"tdigest"`: what this JSON is. */
  readonly type: "tdigest";
  /** Format version, 1: `tdigestFromJSON` refuses any other. */
  readonly version: 1;
  /** The digest's compression (δ). */
  readonly compression: number;
  /** Exact smallest value, `null` when empty. */
  readonly min: number | null;
  /** Exact largest value, `null` when empty. */
  readonly max: number | null;
  /** Centroid means, ascending. */
  readonly means: number[];
  /** Centroid weights, same order and length as `means`. */
  readonly weights: number[];
  /** 1 for a centroid holding a single distinct value, else 0. */
  readonly exact: number[];
}

/**
 * A merging t-digest (Dunning's merging variant, k1 scale function): a streaming summary of a
 * distribution answering quantiles and CDF values in bounded memory. Deterministic: the same
 * calls in the same order give the same centroids.
 */
export interface TDigest {
  /** Compression δ (see {@link TDigestOptions.compression}): larger is more accurate and holds more centroids. */
  readonly compression: number;
  /** Total weight added (the number of values when every weight is 1). */
  readonly count: number;
  /** Exact smallest value, `NaN` when empty. */
  readonly min: number;
  /** Exact largest value, `NaN` when empty. */
  readonly max: number;
  /** Add one value (finite number) with a weight (finite, > 0, default 1). */
  add(value: number, weight?: number): this;
  /** Add many values (and weights, same length). All are checked first; on error nothing is added. */
  addMany(values: ArrayLike<number>, weights?: ArrayLike<number>): this;
  /** Add the content of another digest or centroid list (this digest keeps its compression). */
  merge(other: TDigest | Centroids): this;
  /** The q-quantile, q in [0, 1]; `NaN` when empty. See {@link quantileOfCentroids} for the convention. */
  quantile(q: number): number;
  /** Estimated share of the weight at or below x; `NaN` when empty. */
  cdf(x: number): number;
  /** The merged centroids: a read-only view, valid until this digest changes. */
  centroids(): Centroids;
  /** Number of centroids after merging the buffer. */
  centroidCount(): number;
  /** The digest as plain JSON, for storage or transport (`tdigestFromJSON` reads it back). */
  toJSON(): TDigestJSON;
  /** Forget everything (the compression stays). */
  reset(): this;
}

const MIN_COMPRESSION = 10;
const MAX_COMPRESSION = 100_000;

/**
 * Create an empty merging t-digest.
 *
 * @throws {SketchError} when `compression` or `bufferSize` is out of range.
 * @example
 * const digest = createTDigest({ compression: 500 });
 * digest.addMany([100, 100, 150, 2000]);
 * digest.quantile(0.5); // 150 (exact: fewer distinct values than the compression)
 */
export function createTDigest(given: TDigestOptions = {}): TDigest {
  const options = checkOptionKeys(given, ["compression", "bufferSize"]);
  const compression = options.compression ?? 500;
  if (
    typeof compression !== "number" ||
    !(compression >= MIN_COMPRESSION && compression <= MAX_COMPRESSION)
  )
    throw new SketchError(
      "compression",
      `must be a number from ${MIN_COMPRESSION} to ${MAX_COMPRESSION}, got ${describeValue(compression)}`,
    );
  const bufferSize = options.bufferSize ?? Math.ceil(8 * compression);
  if (
    typeof bufferSize !== "number" ||
    !Number.isInteger(bufferSize) ||
    bufferSize < 1 ||
    bufferSize > 10_000_000
  )
    throw new SketchError(
      "bufferSize",
      `must be a whole number from 1 to 10000000, got ${describeValue(bufferSize)}`,
    );
  return new MergingDigest(compression, bufferSize);
}
