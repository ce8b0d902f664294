/** A seeded pseudo-random number generator with the draws the simulator needs. */
export interface Prng {
  /** Next 32-bit unsigned integer. */
  nextU32(): number;
  /** Uniform in [0, 1). */
  float(): number;
  /** Uniform in [lo, hi). */
  uniform(lo: number, hi: number): number;
  /** Uniform integer in [lo, hi] (both inclusive). */
  int(lo: number, hi: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** Standard normal draw (Box-Muller). */
  normal(): number;
  /** Log-normal draw with the given median and log-space standard deviation. */
  lognormal(median: number, sigma: number): number;
  /** Poisson draw (exact below a mean of 30, normal approximation above). */
  poisson(mean: number): number;
}

const TWO_POW_32 = 4294967296;

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** splitmix32 step: spreads a seed's bits over a 32-bit word (used only for seeding). */
function splitmix32(state: number): [next: number, out: number] {
  const next = (state + 0x9e3779b9) | 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  z ^= z >>> 16;
  return [next, z >>> 0];
}

/**
 * xoshiro128** seeded through splitmix32. `seed` is any safe non-negative integer; `stream`
 * selects an independent sequence for the same seed (the simulator draws its regime schedule,
 * its transactions and its hot-contract episodes from separate streams, so changing the load
 * never reshuffles the schedule). Same seed and stream, same sequence, on every platform.
 *
 * @example
 * const rng = createPrng(1);
 * rng.int(1, 6); // a die roll, the same one every run
 */
export function createPrng(seed: number, stream = 0): Prng {
  let state = (seed % TWO_POW_32) ^ Math.imul(stream + 1, 0x632be5ab);
  let hi = Math.floor(seed / TWO_POW_32);
  const words: number[] = [];
  for (let i = 0; i < 4; i++) {
    const [next, out] = splitmix32(state ^ hi);
    state = next;
    hi = Math.imul(hi, 0x2545f491) >>> 0;
    words.push(out);
  }
  return createPrngFromState(words as [number, number, number, number]);
}

/**
 * xoshiro128** from its raw 32-bit state words (for known-answer tests and for resuming).
 *
 * @example
 * createPrngFromState([1, 2, 3, 4]).nextU32(); // 11520, the reference implementation's first output
 */
export function createPrngFromState(state: readonly [number, number, number, number]): Prng {
  let [s0, s1, s2, s3] = state.map((w) => w >>> 0) as [number, number, number, number];
  // The all-zero state is the one state xoshiro never leaves.
  if ((s0 | s1 | s2 | s3) === 0) s0 = 1;

  function nextU32(): number {
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = rotl(s3, 11);
    return result;
  }

  const float = () => nextU32() / TWO_POW_32;

  // Box-Muller gives two independent normals per pair of uniforms; the second is kept.
  let spare = Number.NaN;
  function normal(): number {
    if (!Number.isNaN(spare)) {
      const z = spare;
      spare = Number.NaN;
      return z;
    }
    const r = Math.sqrt(-2 * Math.log(1 - float())); // 1 - float() is in (0, 1]: log is finite
    const theta = 2 * Math.PI * float();
    spare = r * Math.sin(theta);
    return r * Math.cos(theta);
  }

  function poisson(mean: number): number {
    if (mean <= 0) return 0;
    if (mean < 30) {
      const limit = Math.exp(-mean);
      let k = 0;
      let p = float();
      while (p > limit) {
        k++;
        p *= float();
      }
      return k;
    }
    return Math.max(0, Math.round(mean + Math.sqrt(mean) * normal()));
  }

  return {
    nextU32,
    float,
    uniform: (lo, hi) => lo + (hi - lo) * float(),
    int: (lo, hi) => lo + Math.floor(float() * (hi - lo + 1)),
    chance: (p) => float() < p,
    normal,
    lognormal: (median, sigma) => median * Math.exp(sigma * normal()),
    poisson,
  };
}
