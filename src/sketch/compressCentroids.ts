/**
 * The most centroids a digest of compression δ holds after a merge pass:
 * `ceil(δ) + 1`. Lists of at most `floor(δ)` distinct values are kept as they are (exact); a
 * k1 pass leaves at most `2 * ceil(δ / 2)` centroids, because every two neighbouring
 * centroids span more than one unit of k and k1 spans δ/2 units over [0, 1].
 *
 * @example
 * maxCentroids(300); // 301
 */
export function maxCentroids(compression: number): number {
  return Math.ceil(compression) + 1;
}

/**
 * One merge pass of the merging t-digest, in place over a list sorted by mean.
 *
 * 1. Exact centroids of equal value are folded together (their weights add up). A list of
 *    exact centroids only, at most `floor(compression)` of them, stays as it is: a digest that
 *    has seen at most that many distinct values is an exact histogram.
 * 2. Otherwise a greedy left-to-right pass with Dunning's **k1 (arcsine)** scale function,
 *    `k(q) = δ / (2π) · asin(2q − 1)`: a centroid starting at quantile q0 may grow while its
 *    end stays at or below `q1 = (sin(asin(2q0 − 1) + 2π/δ) + 1) / 2`, i.e. it spans at most
 *    one unit of k. Centroids are small near q = 0 and q = 1 (about `2π·sqrt(q(1−q))/δ` of the
 *    weight) and largest at the median (`π/δ`). q1 is computed without trigonometry as
 *    `(s·cos b + sqrt(1 − s²)·sin b + 1) / 2` with `s = 2q0 − 1`, `b = 2π/δ`.
 *
 * Returns the new number of centroids. `total` is the sum of the weights.
 *
 * @example
 * const n = compressCentroids(means, weights, exact, length, total, 300);
 */
export function compressCentroids(
  means: Float64Array,
  weights: Float64Array,
  exact: Uint8Array,
  length: number,
  total: number,
  compression: number,
): number {
  if (length === 0) return 0;
  // Pass 1: fold equal exact values.
  let m = 1;
  let allExact = exact[0] === 1;
  for (let r = 1; r < length; r++) {
    const v = means[r]!;
    if (exact[r] === 1 && exact[m - 1] === 1 && means[m - 1] === v) {
      weights[m - 1] = weights[m - 1]! + weights[r]!;
    } else {
      if (m !== r) {
        means[m] = v;
        weights[m] = weights[r]!;
        exact[m] = exact[r]!;
      }
      if (exact[r] !== 1) allExact = false;
      m++;
    }
  }
  // A pure histogram small enough stays exact; anything else gets the k1 pass.
  if (allExact && m <= Math.floor(compression)) return m;

  // Pass 2: greedy merge under the k1 size limit.
  const b = (2 * Math.PI) / compression;
  const cosB = Math.cos(b);
  const sinB = Math.sin(b);
  let out = 0;
  let cm = means[0]!;
  let cw = weights[0]!;
  let ce = exact[0]!;
  let soFar = 0;
  let limit = total * k1Limit(0, cosB, sinB);
  for (let r = 1; r < m; r++) {
    const w = weights[r]!;
    const v = means[r]!;
    if (soFar + cw + w <= limit) {
      ce = ce === 1 && exact[r] === 1 && v === cm ? 1 : 0;
      cw += w;
      const step = ((v - cm) * w) / cw;
      // Near ±1.8e308 the difference (or its product with w) can pass the largest double.
      cm = step - step === 0 ? cm + step : cm * ((cw - w) / cw) + v * (w / cw);
    } else {
      means[out] = cm;
      weights[out] = cw;
      exact[out] = ce;
      out++;
      soFar += cw;
      limit = total * k1Limit(soFar / total, cosB, sinB);
      cm = v;
      cw = w;
      ce = exact[r]!;
    }
  }
  means[out] = cm;
  weights[out] = cw;
  exact[out] = ce;
  return out + 1;
}

/** Upper quantile a centroid starting at q0 may reach: one unit of k1 further. */
function k1Limit(q0: number, cosB: number, sinB: number): number {
  const s = 2 * q0 - 1;
  if (s >= cosB) return 1;
  const c = 1 - s * s;
  return (s * cosB + (c > 0 ? Math.sqrt(c) : 0) * sinB + 1) / 2;
}
