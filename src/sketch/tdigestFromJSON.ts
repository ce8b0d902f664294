import { describeValue } from "../core/describeValue.js";
import { unreadableOptions } from "../core/readOptions.js";
import { type Centroids, checkCentroids } from "./centroids.js";
import type { MergingDigest } from "./mergingDigest.js";
import { MAX_TOTAL_WEIGHT, SketchError } from "./sketchError.js";
import { createTDigest, type TDigest } from "./tdigest.js";

/**
 * Rebuild a digest from {@link TDigest.toJSON} output (or its `JSON.parse`d text). The result
 * has exactly the same centroids, so it answers exactly the same quantiles.
 *
 * @throws {SketchError} naming the first field that is missing or malformed.
 * @example
 * const copy = tdigestFromJSON(JSON.parse(JSON.stringify(digest)));
 */
export function tdigestFromJSON(json: unknown): TDigest {
  if (typeof json !== "object" || json === null || Array.isArray(json))
    throw new SketchError("json", `must be an object, got ${describeValue(json)}`);
  const unreadable = unreadableOptions(json);
  if (unreadable) throw new SketchError(unreadable.path || "json", unreadable.message);
  const o = json as Record<string, unknown>;
  if (o.type !== "tdigest")
    throw new SketchError("type", `must be "tdigest", got ${describeValue(o.type)}`);
  if (o.version !== 1)
    throw new SketchError("version", `must be 1, got ${describeValue(o.version)}`);
  if (typeof o.compression !== "number")
    throw new SketchError("compression", `must be a number, got ${describeValue(o.compression)}`);
  const digest = createTDigest({ compression: o.compression }) as MergingDigest;
  const arrays: number[][] = [];
  for (const key of ["means", "weights", "exact"] as const) {
    const a = o[key];
    if (!Array.isArray(a)) throw new SketchError(key, `must be an array, got ${describeValue(a)}`);
    for (let i = 0; i < a.length; i++)
      if (typeof a[i] !== "number")
        throw new SketchError(`${key}[${i}]`, `must be a number, got ${describeValue(a[i])}`);
    arrays.push(a);
  }
  const [means, weights, exact] = arrays as [number[], number[], number[]];
  for (const [key, a] of [
    ["weights", weights],
    ["exact", exact],
  ] as const)
    if (a.length !== means.length)
      throw new SketchError(
        key,
        `must have as many entries as means (${means.length}), got ${a.length}`,
      );
  for (let i = 0; i < exact.length; i++)
    if (exact[i] !== 0 && exact[i] !== 1)
      throw new SketchError(`exact[${i}]`, `must be 0 or 1, got ${exact[i]}`);
  const n = means.length;
  const empty = n === 0;
  for (const key of ["min", "max"] as const)
    if (empty ? o[key] !== null : typeof o[key] !== "number")
      throw new SketchError(
        key,
        `must be ${empty ? "null for an empty digest" : "a number"}, got ${describeValue(o[key])}`,
      );
  let count = 0;
  for (const w of weights) count += w;
  // The JSON holds no count: a sum past what a digest holds (Infinity included) is the
  // weights' fault, not that of a count the caller never wrote.
  if (count > MAX_TOTAL_WEIGHT)
    throw new SketchError("weights", `must sum to at most 2^128, got ${count}`);
  const list: Centroids = {
    means: Float64Array.from(means),
    weights: Float64Array.from(weights),
    exact: Uint8Array.from(exact),
    length: n,
    count,
    min: empty ? Number.NaN : (o.min as number),
    max: empty ? Number.NaN : (o.max as number),
  };
  checkCentroids("", list);
  digest.load(list);
  return digest;
}
