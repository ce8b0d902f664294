import { sortPairs } from "./sortPairs.js";

/** The bit tricks below read a float64's high word at index 1 of a Uint32Array view. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
// Shared scratch space: sorting is synchronous, so one set of buffers serves every digest.
let scratchKeys = new Float64Array(0);
let scratchValues = new Float64Array(0);
const counts = new Uint32Array(8 * 256);

/**
 * Sort the first `n` finite numbers of `keys` ascending in place, moving `values` (when given)
 * along with them. An LSD radix sort on the IEEE-754 bits (sign-flipped so that the unsigned
 * order is the numeric order), one byte per pass; passes whose byte is the same for every key
 * are skipped (integer prices touch about half of them). Branch-free, so it beats comparison
 * sorts on the random data a digest buffers (below 200 keys, or on a big-endian machine, it
 * falls back to a comparison sort). `-0` must not occur (the digest stores it as 0).
 *
 * @example
 * const keys = Float64Array.of(3, -1, 2);
 * radixSort(keys, 3); // -1, 2, 3
 */
export function radixSort(keys: Float64Array, n: number, values?: Float64Array): void {
  if (n < 2) return;
  if (n < 200 || !LITTLE_ENDIAN) {
    if (values) sortPairs(keys, values, n);
    else keys.subarray(0, n).sort();
    return;
  }
  if (scratchKeys.length < n) {
    scratchKeys = new Float64Array(Math.max(n, scratchKeys.length * 2));
    scratchValues = new Float64Array(scratchKeys.length);
  }
  // One pass over the keys builds all eight byte histograms.
  counts.fill(0);
  let bits = new Uint32Array(keys.buffer, keys.byteOffset, 2 * n);
  for (let i = 0; i < n; i++) {
    // Negative: flip every bit; positive: flip the sign bit (branch-free: mask = 0 or -1).
    const hi = bits[2 * i + 1]!;
    const mask = hi >> 31;
    const lo = bits[2 * i]! ^ mask;
    const h = hi ^ (mask | 0x80000000);
    counts[lo & 255]!++;
    counts[256 + ((lo >>> 8) & 255)]!++;
    counts[512 + ((lo >>> 16) & 255)]!++;
    counts[768 + (lo >>> 24)]!++;
    counts[1024 + (h & 255)]!++;
    counts[1280 + ((h >>> 8) & 255)]!++;
    counts[1536 + ((h >>> 16) & 255)]!++;
    counts[1792 + (h >>> 24)]!++;
  }
  let srcKeys = keys;
  let srcValues = values;
  let dstKeys: Float64Array = scratchKeys;
  let dstValues: Float64Array = scratchValues;
  for (let pass = 0; pass < 8; pass++) {
    const base = pass * 256;
    // Skip a byte every key shares.
    let skip = false;
    for (let b = 0; b < 256; b++) {
      const c = counts[base + b]!;
      if (c === n) skip = true;
      if (c !== 0) break;
    }
    if (skip) continue;
    let sum = 0;
    for (let b = 0; b < 256; b++) {
      const c = counts[base + b]!;
      counts[base + b] = sum;
      sum += c;
    }
    const word = pass < 4 ? 0 : 1;
    const flip = word === 1 ? 0x80000000 : 0;
    const shift = (pass & 3) * 8;
    bits = new Uint32Array(srcKeys.buffer, srcKeys.byteOffset, 2 * n);
    for (let i = 0; i < n; i++) {
      const key = bits[2 * i + word]! ^ ((bits[2 * i + 1]! >> 31) | flip);
      const at = base + ((key >>> shift) & 255);
      const to = counts[at]!;
      counts[at] = to + 1;
      dstKeys[to] = srcKeys[i]!;
      if (srcValues) dstValues[to] = srcValues[i]!;
    }
    const k = srcKeys;
    srcKeys = dstKeys;
    dstKeys = k;
    if (srcValues) {
      const v = srcValues;
      srcValues = dstValues;
      dstValues = v;
    }
  }
  if (srcKeys !== keys) {
    keys.set(srcKeys.subarray(0, n));
    if (values && srcValues) values.set(srcValues.subarray(0, n));
  }
}
