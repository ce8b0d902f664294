import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SketchError } from "../../src/sketch/sketchError.js";
import { createTDigest, type TDigest } from "../../src/sketch/tdigest.js";
import { tdigestFromJSON } from "../../src/sketch/tdigestFromJSON.js";
import { fcParams } from "../helpers/fcSeed.js";
import { exactQuantile, mulberry32, rankError, rankErrorBound, sortedCopy } from "./exact.js";

const PARAMS = fcParams(80);
const Q_GRID = Array.from({ length: 99 }, (_, i) => (i + 1) / 100);

/** Bulk data shapes, each value made from uniform draws in (0, 1) that fast-check generates. */
const SHAPES = {
  uniform: (r: () => number) => r() * 1000,
  normal: (r: () => number) => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r()),
  lognormal: (r: () => number) =>
    Math.exp(2 * Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r())),
  integers: (r: () => number) => Math.floor(r() * 1000),
  pointMass: (r: () => number) => (r() < 0.8 ? 100 : 100 + Math.floor(r() * 5000)),
} as const;
type Shape = keyof typeof SHAPES;

/** Reads the draws in turn (a shape takes at most two per value). */
function drawsOf(draws: readonly number[]): () => number {
  let i = 0;
  return () => draws[i++ % draws.length]!;
}

const unit = fc.noBias(fc.nat(2 ** 32 - 1)).map((u) => (u + 0.5) / 2 ** 32);

const dataset = fc
  .record({
    n: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 300, max: 20_000 })),
    shape: fc.constantFrom(...(Object.keys(SHAPES) as Shape[])),
    order: fc.constantFrom("random", "ascending", "descending"),
    compression: fc.constantFrom(10, 25, 100, 300, 500),
  })
  .chain((d) =>
    fc.array(unit, { minLength: 2 * d.n, maxLength: 2 * d.n }).map((draws) => ({ ...d, draws })),
  )
  .map((d) => {
    const r = drawsOf(d.draws);
    const values = Float64Array.from({ length: d.n }, () => SHAPES[d.shape](r));
    const sorted = sortedCopy(values);
    const input =
      d.order === "random"
        ? values
        : d.order === "ascending"
          ? sorted.slice()
          : sorted.slice().reverse();
    return { ...d, values: input, sorted };
  });

function worstRankExcess(digest: TDigest, sorted: Float64Array, compression: number) {
  let worst = { q: 0, error: 0, bound: 1 };
  for (const q of Q_GRID) {
    const error = rankError(sorted, digest.quantile(q), q);
    const bound = rankErrorBound(q, compression, sorted.length);
    if (error / bound > worst.error / worst.bound) worst = { q, error, bound };
  }
  return worst;
}

describe("createTDigest: against exact sorted quantiles", () => {
  it("min and max are exact; quantile(0) and quantile(1) return them", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e12, max: 1e12, noNaN: true }), {
          minLength: 1,
          maxLength: 2000,
        }),
        fc.constantFrom(10, 100, 300),
        (values, compression) => {
          const d = createTDigest({ compression }).addMany(values);
          const sorted = sortedCopy(values);
          expect(d.min).toBe(sorted[0]! + 0);
          expect(d.max).toBe(sorted[sorted.length - 1]! + 0);
          expect(d.quantile(0)).toBe(d.min);
          expect(d.quantile(1)).toBe(d.max);
          expect(d.count).toBe(values.length);
        },
      ),
      PARAMS,
    );
  });

  it("is exact (index floor(q·n) of the sorted values) while at most floor(compression) distinct values were added", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 60 }),
        fc.integer({ min: 1, max: 97 }),
        fc.array(fc.integer({ min: -1e6, max: 1e6 }), { minLength: 1, maxLength: 60 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 4000 }),
        (compression, bufferSize, pool, picks) => {
          const distinct = [...new Set(pool)].slice(0, compression);
          const values = picks.map((i) => distinct[i % distinct.length]!);
          const n = values.length;
          const d = createTDigest({ compression, bufferSize }).addMany(values);
          const sorted = sortedCopy(values);
          for (const q of [0, ...Q_GRID, 0.999, 1])
            expect(d.quantile(q)).toBe(exactQuantile(sorted, q));
          for (const v of distinct) {
            const atOrBelow = values.filter((x) => x <= v).length;
            expect(d.cdf(v)).toBeCloseTo(atOrBelow / n, 12);
          }
        },
      ),
      PARAMS,
    );
  });

  it("rank error <= 2π·sqrt(q(1−q))/δ + 1/n for q in [0.01, 0.99]", () => {
    fc.assert(
      fc.property(dataset, ({ values, sorted, compression }) => {
        const d = createTDigest({ compression }).addMany(values);
        const worst = worstRankExcess(d, sorted, compression);
        expect(worst.error, `q=${worst.q}`).toBeLessThanOrEqual(worst.bound);
      }),
      PARAMS,
    );
  });

  it("merging N digests keeps the same bound as one digest of all the values", () => {
    fc.assert(
      fc.property(
        dataset,
        fc.integer({ min: 2, max: 64 }),
        ({ values, sorted, compression }, parts) => {
          const merged = createTDigest({ compression });
          const per = Math.ceil(values.length / parts);
          for (let p = 0; p < parts; p++)
            merged.merge(
              createTDigest({ compression }).addMany(values.subarray(p * per, (p + 1) * per)),
            );
          expect(merged.count).toBe(values.length);
          expect(merged.min).toBe(sorted[0]);
          expect(merged.max).toBe(sorted[sorted.length - 1]);
          const worst = worstRankExcess(merged, sorted, compression);
          expect(worst.error, `q=${worst.q}`).toBeLessThanOrEqual(worst.bound);
        },
      ),
      PARAMS,
    );
  });

  it("never holds more than ceil(δ) + 1 centroids after a merge pass", () => {
    fc.assert(
      fc.property(dataset, ({ values, compression }) => {
        const d = createTDigest({ compression });
        for (let i = 0; i < values.length; i += 997) {
          d.addMany(values.subarray(i, i + 997));
          expect(d.centroidCount()).toBeLessThanOrEqual(Math.ceil(compression) + 1);
        }
      }),
      PARAMS,
    );
  });

  it("cdf is non-decreasing, 0 below min, 1 from max on, and inverts quantile within the bound", () => {
    fc.assert(
      fc.property(dataset, ({ values, sorted, compression }) => {
        const d = createTDigest({ compression }).addMany(values);
        expect(d.cdf(sorted[0]! - 1)).toBe(0);
        expect(d.cdf(sorted[sorted.length - 1]!)).toBe(1);
        let last = 0;
        for (let i = 0; i < sorted.length; i += Math.max(1, Math.floor(sorted.length / 200))) {
          const c = d.cdf(sorted[i]!);
          expect(c).toBeGreaterThanOrEqual(last);
          last = c;
        }
        for (const q of [0.1, 0.5, 0.9]) {
          const x = d.quantile(q);
          // Where x sits on a point mass the cdf jumps over q: it must bracket it.
          const left = d.cdf(x - Math.abs(x) * 1e-12 - 1e-300);
          const right = d.cdf(x);
          const bound = rankErrorBound(q, compression, values.length);
          expect(left).toBeLessThanOrEqual(q + bound);
          expect(right).toBeGreaterThanOrEqual(q - bound);
        }
      }),
      PARAMS,
    );
  });

  it("a point mass stays exact: 80 % of the reference data at 100 gives p10..p79 = 100", () => {
    const r = mulberry32(1);
    const values = Float64Array.from({ length: 200_000 }, () => {
      const u = r();
      if (u < 0.8) return 100;
      if (u < 0.95) return 100 + Math.floor(r() * 901);
      return Math.min(1e6, Math.round(Math.exp(Math.log(1000) + 1.5 * SHAPES.normal(r))));
    });
    const d = createTDigest().addMany(values);
    for (const q of [0.1, 0.5, 0.79]) expect(d.quantile(q)).toBe(100);
    const sorted = sortedCopy(values);
    const p99 = exactQuantile(sorted, 0.99);
    expect(Math.abs(d.quantile(0.99) / p99 - 1)).toBeLessThan(0.01);
  });
});

describe("createTDigest: weights, merge, determinism, serialization", () => {
  it("add(v, w) is the same as w copies of v while exact", () => {
    const a = createTDigest({ compression: 20 });
    const b = createTDigest({ compression: 20 });
    for (const [v, w] of [
      [5, 3],
      [1, 2],
      [9, 1],
      [5, 4],
    ] as const) {
      a.add(v, w);
      for (let i = 0; i < w; i++) b.add(v);
    }
    expect(a.toJSON()).toEqual(b.toJSON());
    expect(a.quantile(0.5)).toBe(5);
    expect(a.quantile(0.95)).toBe(9);
  });

  it("fractional weights: the quantile follows the weight, not the count", () => {
    const d = createTDigest().addMany([100, 1000], [9.5, 0.5]);
    expect(d.count).toBe(10);
    expect(d.quantile(0.9)).toBe(100);
    expect(d.quantile(0.96)).toBe(1000);
  });

  it("merge(self) doubles every weight", () => {
    const d = createTDigest().addMany([1, 2, 2, 3]);
    d.merge(d);
    expect(d.count).toBe(8);
    expect(d.toJSON().weights).toEqual([2, 4, 2]);
  });

  it("is deterministic: the same calls give the same centroids", () => {
    fc.assert(
      fc.property(dataset, ({ values, compression }) => {
        const run = () => {
          const d = createTDigest({ compression });
          for (let i = 0; i < values.length; i += 1234) d.addMany(values.subarray(i, i + 1234));
          return d.toJSON();
        };
        expect(run()).toEqual(run());
      }),
      { ...PARAMS, numRuns: 30 },
    );
  });

  it("toJSON / fromJSON round trip: same centroids, same answers, same future", () => {
    fc.assert(
      fc.property(dataset, ({ values, compression }) => {
        const half = values.length >> 1;
        const original = createTDigest({ compression }).addMany(values.subarray(0, half));
        const copy = tdigestFromJSON(JSON.parse(JSON.stringify(original)));
        expect(copy.toJSON()).toEqual(original.toJSON());
        for (const q of [0, 0.01, 0.5, 0.99, 1])
          expect(copy.quantile(q)).toBe(original.quantile(q));
        original.addMany(values.subarray(half));
        copy.addMany(values.subarray(half));
        expect(copy.toJSON()).toEqual(original.toJSON());
      }),
      { ...PARAMS, numRuns: 30 },
    );
  });

  it("an empty digest: NaN answers, null min/max in JSON, round trips", () => {
    const d = createTDigest({ compression: 50 });
    expect([d.count, d.min, d.max, d.quantile(0.5), d.cdf(1)]).toEqual([0, NaN, NaN, NaN, NaN]);
    const json = d.toJSON();
    expect(json).toEqual({
      type: "tdigest",
      version: 1,
      compression: 50,
      min: null,
      max: null,
      means: [],
      weights: [],
      exact: [],
    });
    expect(tdigestFromJSON(json).toJSON()).toEqual(json);
  });

  it("reset forgets everything but the compression", () => {
    const d = createTDigest({ compression: 42 }).addMany([1, 2, 3]);
    d.reset();
    expect(d.count).toBe(0);
    expect(d.compression).toBe(42);
    expect(d.add(7).quantile(0.5)).toBe(7);
  });
});

describe("createTDigest: rejects bad input with a clear error", () => {
  const d = () => createTDigest({ compression: 50 }).addMany([1, 2, 3]);
  const cases: [string, (t: TDigest) => unknown, string][] = [
    ["NaN", (t) => t.add(Number.NaN), "value must be a finite number, got NaN"],
    [
      "Infinity",
      (t) => t.add(Number.POSITIVE_INFINITY),
      "value must be a finite number, got Infinity",
    ],
    [
      "-Infinity",
      (t) => t.add(Number.NEGATIVE_INFINITY),
      "value must be a finite number, got -Infinity",
    ],
    [
      "a string",
      (t) => t.add("12" as unknown as number),
      'value must be a finite number, got "12"',
    ],
    ["a bigint", (t) => t.add(12n as unknown as number), "value must be a finite number, got 12"],
    [
      "weight 0",
      (t) => t.add(1, 0),
      "weight must be a number greater than 0 and at most 2^53, got 0",
    ],
    [
      "weight -1",
      (t) => t.add(1, -1),
      "weight must be a number greater than 0 and at most 2^53, got -1",
    ],
    [
      // Weights are counts: a total past the largest double would make every quantile NaN.
      "weight 1e300",
      (t) => t.add(1, 1e300),
      "weight must be a number greater than 0 and at most 2^53, got 1e+300",
    ],
    [
      "weight NaN",
      (t) => t.add(1, Number.NaN),
      "weight must be a number greater than 0 and at most 2^53, got NaN",
    ],
    [
      "NaN in addMany",
      (t) => t.addMany([4, 5, Number.NaN]),
      "values[2] must be a finite number, got NaN",
    ],
    [
      "null in addMany",
      (t) => t.addMany([4, null as unknown as number]),
      "values[1] must be a finite number, got null",
    ],
    [
      "not an array",
      (t) => t.addMany(5 as unknown as number[]),
      "values must be an array of numbers, got 5",
    ],
    [
      "short weights",
      (t) => t.addMany([4, 5], [1]),
      "weights must be an array with one weight per value (2), got 1 entries",
    ],
    [
      "a zero weight",
      (t) => t.addMany([4, 5], [1, 0]),
      "weights[1] must be a number greater than 0 and at most 2^53, got 0",
    ],
    ["q above 1", (t) => t.quantile(1.5), "q must be a number from 0 to 1, got 1.5"],
    ["q NaN", (t) => t.quantile(Number.NaN), "q must be a number from 0 to 1, got NaN"],
    ["cdf of NaN", (t) => t.cdf(Number.NaN), "x must be a finite number, got NaN"],
    [
      "merge of junk",
      (t) => t.merge({} as TDigest),
      "other.length must be a whole number >= 0, got nothing",
    ],
  ];
  for (const [name, call, message] of cases)
    it(`${name}: "${message}", and nothing changes`, () => {
      const t = d();
      const before = t.toJSON();
      let error: unknown;
      try {
        call(t);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SketchError);
      expect((error as Error).message).toBe(message);
      expect(t.toJSON()).toEqual(before);
    });

  it("unlike the npm package, one NaN does not poison later values", () => {
    const t = createTDigest();
    expect(() => t.add(Number.NaN)).toThrow(SketchError);
    t.addMany([1, 2, 3]);
    expect(t.quantile(0.5)).toBe(2);
  });

  it("options out of range", () => {
    expect(() => createTDigest({ compression: 5 })).toThrow(
      "compression must be a number from 10 to 100000, got 5",
    );
    expect(() => createTDigest({ bufferSize: 0 })).toThrow(
      "bufferSize must be a whole number from 1 to 10000000, got 0",
    );
    expect(() => createTDigest({ bufferSize: 10_000_001 })).toThrow(
      "bufferSize must be a whole number from 1 to 10000000, got 10000001",
    );
  });

  it("fromJSON names the field at fault", () => {
    const good = createTDigest({ compression: 20 }).addMany([1, 2, 3]).toJSON();
    const bad: [unknown, string][] = [
      [null, "json must be an object, got null"],
      [{ ...good, type: "x" }, 'type must be "tdigest", got "x"'],
      [{ ...good, version: 2 }, "version must be 1, got 2"],
      [{ ...good, compression: 1 }, "compression must be a number from 10 to 100000, got 1"],
      [{ ...good, compression: undefined }, "compression must be a number, got nothing"],
      [{ ...good, means: [3, 2, 1] }, "means[1] must not be below the previous mean (3), got 2"],
      [
        { ...good, weights: [1, -1, 1] },
        "weights[1] must be a finite number greater than 0, got -1",
      ],
      [{ ...good, weights: [1, 1] }, "weights must have as many entries as means (3), got 2"],
      [{ ...good, exact: [1, 1, 7] }, "exact[2] must be 0 or 1, got 7"],
      [{ ...good, means: [1, "2", 3] }, 'means[1] must be a number, got "2"'],
      [{ ...good, min: 5 }, "min must be a finite number not above the first mean (1), got 5"],
      [{ ...good, max: null }, "max must be a number, got null"],
      // The JSON has no count: weights too heavy to sum are named as what they are.
      [
        { ...good, weights: [1e308, 1e308, 1e308] },
        "weights must sum to at most 2^128, got Infinity",
      ],
      [
        { ...good, weights: [2 ** 128, 2 ** 128, 2 ** 128] },
        "weights must sum to at most 2^128, got 1.0208471007628154e+39",
      ],
    ];
    for (const [json, message] of bad)
      expect(() => tdigestFromJSON(json), message).toThrow(message);
  });
});

describe("createTDigest: the ends of the number line", () => {
  it("values spread over ±1.79e308 keep finite centroids and ordered quantiles (no overflow to NaN)", () => {
    const t = createTDigest({ compression: 10 });
    for (let i = 0; i < 10_000; i++) t.add((i / 10_000) * 1.79e308 * (i % 2 ? 1 : -1));
    const qs = [0, 0.1, 0.25, 0.5, 0.75, 0.9, 1].map((q) => t.quantile(q));
    for (const q of qs) expect(Number.isFinite(q)).toBe(true);
    for (let i = 1; i < qs.length; i++) expect(qs[i]!).toBeGreaterThanOrEqual(qs[i - 1]!);
    // Uniform over [-1.79e308, 1.79e308]: the quartiles near ∓0.9e308, the median near 0.
    expect(qs[2]! / 1.79e308).toBeCloseTo(-0.5, 1);
    expect(qs[4]! / 1.79e308).toBeCloseTo(0.5, 1);
    expect(Math.abs(qs[3]! / 1.79e308)).toBeLessThan(0.05);
    expect(t.cdf(0)).toBeCloseTo(0.5, 1);
    // Its own JSON loads again.
    expect(tdigestFromJSON(JSON.parse(JSON.stringify(t.toJSON()))).quantile(0.5)).toBe(qs[3]);
  });

  it("a centroid list weighing more than 2^128 is refused before anything is merged", () => {
    const t = createTDigest().add(5);
    const heavy = {
      means: new Float64Array([1, 2]),
      weights: new Float64Array([2 ** 128, 2 ** 128]),
      exact: new Uint8Array([1, 1]),
      length: 2,
      count: 2 ** 129,
      min: 1,
      max: 2,
    };
    expect(() => t.merge(heavy)).toThrow(
      "other.count must be at most 2^128, got 6.80564733841877e+38",
    );
    expect(t.count).toBe(1);
    expect(t.quantile(0.5)).toBe(5);
  });

  it("a digest's total never passes 2^128, so its own toJSON always loads again", () => {
    const t = createTDigest().add(1, 2 ** 53);
    for (let i = 0; i < 75; i++) t.merge(t);
    expect(t.count).toBe(2 ** 128);
    expect(tdigestFromJSON(JSON.parse(JSON.stringify(t.toJSON()))).count).toBe(2 ** 128);
    expect(() => t.merge(t)).toThrow("other would bring the digest's total weight to");
    // Refused before anything changed.
    expect(t.count).toBe(2 ** 128);
    expect(t.quantile(0.5)).toBe(1);
  });
});
