import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SketchError } from "../../src/sketch/sketchError.js";
import { createSlidingDigest } from "../../src/sketch/slidingDigest.js";
import { createTDigest } from "../../src/sketch/tdigest.js";
import { fcParams } from "../helpers/fcSeed.js";
import { exactQuantile, mulberry32, rankError, rankErrorBound, sortedCopy } from "./exact.js";

const PARAMS = fcParams(60);
const QS = [0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1];

interface Block {
  values: number[];
  deferred: number;
}

const blockArb: fc.Arbitrary<Block> = fc.record({
  values: fc.array(
    fc.integer({ min: 0, max: 40 }).map((v) => v * 25),
    { maxLength: 6 },
  ),
  deferred: fc.constantFrom(0, 0, 1, 2),
});

/** The values of the newest `n` blocks, deferred weight as copies of `deferredValue`. */
function lastBlocks(blocks: Block[], n: number, deferredValue: number): Float64Array {
  const out: number[] = [];
  for (const b of blocks.slice(Math.max(0, blocks.length - n))) {
    out.push(...b.values);
    for (let i = 0; i < b.deferred; i++) out.push(deferredValue);
  }
  return sortedCopy(out);
}

describe("createSlidingDigest: window semantics", () => {
  it("windows up to exactUpTo blocks are exactly the newest W blocks (values and deferred weight)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.array(blockArb, { minLength: 1, maxLength: 120 }),
        fc.integer({ min: 0, max: 1000 }),
        (windowBlocks, blocks, deferredValue) => {
          const w = createSlidingDigest({ windowBlocks });
          expect(w.chunkBlocks).toBe(1);
          const seen: Block[] = [];
          for (const b of blocks) {
            w.addBlock(b.values, undefined, b.deferred);
            seen.push(b);
            const exact = lastBlocks(seen, windowBlocks, deferredValue);
            expect(w.blocks).toBe(Math.min(seen.length, windowBlocks));
            expect(w.count).toBe(exact.length);
            for (const q of QS)
              expect(w.quantile(q, deferredValue)).toBe(
                exact.length === 0 ? Number.NaN : exactQuantile(exact, q),
              );
          }
        },
      ),
      PARAMS,
    );
  });

  it("addBlockDigest is the same as addBlock", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.constantFrom(0, 1024),
        fc.array(blockArb, { minLength: 1, maxLength: 80 }),
        (windowBlocks, exactUpTo, blocks) => {
          const a = createSlidingDigest({ windowBlocks, exactUpTo, chunks: 4 });
          const b = createSlidingDigest({ windowBlocks, exactUpTo, chunks: 4 });
          for (const block of blocks) {
            a.addBlock(block.values, undefined, block.deferred);
            b.addBlockDigest(createTDigest().addMany(block.values), block.deferred);
            for (const q of QS) expect(b.quantile(q, 7)).toBe(a.quantile(q, 7));
          }
        },
      ),
      PARAMS,
    );
  });

  it("long windows move a chunk at a time: W <= blocks covered < W + chunkBlocks", () => {
    const w = createSlidingDigest({ windowBlocks: 100, chunks: 8, exactUpTo: 0 });
    expect(w.chunkBlocks).toBe(13);
    for (let i = 1; i <= 500; i++) {
      w.addBlock([i]);
      const expected = i < 100 ? i : w.blocks;
      expect(w.blocks).toBe(expected);
      if (i >= 100) {
        expect(w.blocks).toBeGreaterThanOrEqual(100);
        expect(w.blocks).toBeLessThan(100 + 13);
      }
      // Block values are their heights: the window's minimum is its oldest block.
      expect(w.quantile(0)).toBe(i - w.blocks + 1);
      expect(w.quantile(1)).toBe(i);
      expect(w.count).toBe(w.blocks);
    }
  });

  it("a window of exactly exactUpTo blocks is still one of single blocks", () => {
    expect(createSlidingDigest({ windowBlocks: 1024 }).chunkBlocks).toBe(1);
    expect(createSlidingDigest({ windowBlocks: 1025 }).chunkBlocks).toBe(33);
    const w = createSlidingDigest({ windowBlocks: 4, exactUpTo: 4, chunks: 2 });
    for (const v of [1, 2, 3, 4, 5]) w.addBlock([v]);
    // Exactly the newest 4 blocks: 2..5.
    expect([w.blocks, w.quantile(0, 0)]).toEqual([4, 2]);
  });

  it("an empty block still moves the window", () => {
    const w = createSlidingDigest({ windowBlocks: 2 });
    w.addBlock([5, 6]);
    expect(w.quantile(0.5)).toBe(6);
    w.addBlock([]);
    expect(w.quantile(0.5)).toBe(6);
    w.addBlock([]);
    expect(w.blocks).toBe(2);
    expect(w.count).toBe(0);
    expect(w.quantile(0.5)).toBe(Number.NaN);
  });

  it("deferred weight takes the value given at query time", () => {
    const w = createSlidingDigest({ windowBlocks: 3 });
    w.addBlock([300]);
    w.addBlock([], undefined, 2);
    expect(w.quantile(0, 100)).toBe(100);
    expect(w.quantile(0.5, 100)).toBe(100);
    expect(w.quantile(0.5, 500)).toBe(500);
    expect(w.quantile(0, 500)).toBe(300);
    expect(() => w.quantile(0.5)).toThrow(
      "deferredValue is required: the window holds deferred weight",
    );
  });

  it("reset empties the window", () => {
    const w = createSlidingDigest({ windowBlocks: 3, exactUpTo: 0, chunks: 2 });
    for (let i = 0; i < 10; i++) w.addBlock([i], undefined, 1);
    w.reset();
    expect([w.blocks, w.count, w.centroidCount()]).toEqual([0, 0, 0]);
    w.addBlock([42]);
    expect(w.quantile(0.5)).toBe(42);
  });
});

describe("createSlidingDigest: accuracy and memory", () => {
  it("chunked windows: rank error <= 2·2π·sqrt(q(1−q))/δ + 1/n for q in [0.01, 0.99], δ >= 25", () => {
    fc.assert(
      fc.property(
        fc
          .record({
            windowBlocks: fc.integer({ min: 20, max: 1500 }),
            chunks: fc.integer({ min: 1, max: 40 }),
            compression: fc.constantFrom(25, 50, 100, 300, 500),
            perBlock: fc.integer({ min: 1, max: 12 }),
            drift: fc.boolean(),
          })
          .chain((c) => {
            const n = Math.floor(c.windowBlocks * 2.5) * c.perBlock;
            const unit = fc.noBias(fc.nat(2 ** 32 - 1)).map((u) => (u + 0.5) / 2 ** 32);
            return fc.array(unit, { minLength: n, maxLength: n }).map((draws) => ({ ...c, draws }));
          }),
        ({ draws, windowBlocks, chunks, compression, perBlock, drift }) => {
          let next = 0;
          const r = () => draws[next++]!;
          const w = createSlidingDigest({ windowBlocks, chunks, compression, exactUpTo: 0 });
          const blocks: Float64Array[] = [];
          const total = Math.floor(windowBlocks * 2.5);
          for (let b = 0; b < total; b++) {
            const scale = drift ? 1 + b / 100 : 1;
            const values = Float64Array.from({ length: perBlock }, () => Math.exp(2 * r()) * scale);
            blocks.push(values);
            w.addBlock(values);
          }
          const window = blocks.slice(blocks.length - w.blocks);
          const sorted = sortedCopy(window.flatMap((v) => Array.from(v)));
          for (let i = 1; i <= 99; i++) {
            const q = i / 100;
            const bound = 2 * rankErrorBound(q, compression, sorted.length) - 1 / sorted.length;
            expect(rankError(sorted, w.quantile(q), q), `q=${q}`).toBeLessThanOrEqual(bound);
          }
        },
      ),
      { ...PARAMS, numRuns: 40 },
    );
  });

  it("a window of 10^6 blocks holds at most (chunks + 2)·(ceil(δ) + 1) centroids", () => {
    const w = createSlidingDigest({ windowBlocks: 1_000_000 });
    expect(w.chunkBlocks).toBe(31_250);
    expect(w.maxCentroidCount).toBe((32 + 2) * 501);
    const r = mulberry32(9);
    const block = new Float64Array(2);
    let peak = 0;
    for (let i = 1; i <= 1_100_000; i++) {
      block[0] = r() * 1e6;
      block[1] = 100 + Math.floor(r() * 900);
      w.addBlock(block);
      if (i % 10_000 === 0) peak = Math.max(peak, w.centroidCount());
    }
    expect(w.blocks).toBeGreaterThanOrEqual(1_000_000);
    expect(peak).toBeLessThanOrEqual(w.maxCentroidCount);
    expect(peak).toBeGreaterThan(1000); // the bound is not vacuous: chunks do fill up
    // Half the values are below 1000, the other half uniform on [0, 1e6): p75 is about 500 000.
    expect(w.quantile(0.75) / 500_000).toBeCloseTo(1, 1);
    // 1.1 million blocks: about 8 s alone, more than 20 s on a loaded 2-core machine.
  }, 120_000);

  it("rejects bad options and input with a clear error", () => {
    const cases: [() => unknown, string][] = [
      [
        () => createSlidingDigest({ windowBlocks: 0 }),
        "windowBlocks must be a whole number from 1 to 1099511627776, got 0",
      ],
      [
        () => createSlidingDigest({ windowBlocks: 2.5 }),
        "windowBlocks must be a whole number from 1 to 1099511627776, got 2.5",
      ],
      [
        () => createSlidingDigest({ windowBlocks: 10, chunks: 0 }),
        "chunks must be a whole number from 1 to 1099511627776, got 0",
      ],
      [
        () => createSlidingDigest({ windowBlocks: 10, compression: 1 }),
        "compression must be a number from 10 to 100000, got 1",
      ],
      [
        () => createSlidingDigest({ windowBlocks: 10, window: 5 } as never),
        "window is not an option (known: windowBlocks, chunks, exactUpTo, compression)",
      ],
      // null is no options: the one it needs is named.
      [() => createSlidingDigest(null as never), "windowBlocks must be a whole number"],
      [() => createSlidingDigest(5 as never), "options must be an object (got 5)"],
      [
        () => createSlidingDigest({ windowBlock: 10 } as never),
        "windowBlock is not an option (did you mean windowBlocks?)",
      ],
      [
        () => createTDigest({ compresion: 100 } as never),
        "compresion is not an option (did you mean compression?)",
      ],
      [() => createTDigest(5 as never), "options must be an object (got 5)"],
      [
        () => createSlidingDigest({ windowBlocks: 10 }).addBlock([1, Number.NaN]),
        "values[1] must be a finite number, got NaN",
      ],
      [
        () => createSlidingDigest({ windowBlocks: 10 }).addBlock([1], undefined, -1),
        "deferred must be a number from 0 to 2^53, got -1",
      ],
      [
        () => createSlidingDigest({ windowBlocks: 10 }).quantile(2),
        "q must be a number from 0 to 1, got 2",
      ],
      [
        () => createSlidingDigest({ windowBlocks: 10 }).addBlockDigest({} as never),
        "block.length must be a whole number >= 0, got nothing",
      ],
      [
        () =>
          createSlidingDigest({ windowBlocks: 10 }).addBlockDigest({
            means: Float64Array.of(1),
            weights: Float64Array.of(1),
            exact: Uint8Array.of(2),
            length: 1,
            count: 1,
            min: 1,
            max: 1,
          }),
        "block.exact[0] must be 0 or 1, got 2",
      ],
    ];
    for (const [call, message] of cases) {
      expect(call, message).toThrow(SketchError);
      expect(call, message).toThrow(message);
    }
  });

  it("refuses a deferred weight above 2^53: summed over the window it would pass the largest double", () => {
    const w = createSlidingDigest({ windowBlocks: 10 });
    w.addBlock([200]);
    w.addBlock([], undefined, 2 ** 53);
    const call = () => w.addBlock([], undefined, 1e308);
    expect(call).toThrow(SketchError);
    expect(call).toThrow("deferred must be a number from 0 to 2^53, got 1e+308");
    expect(() => w.addBlockDigest(createTDigest(), 1e308)).toThrow(SketchError);
    // The next weight up from 2^53 already is too much.
    expect(() => w.addBlock([], undefined, 2 ** 53 + 2)).toThrow(
      "deferred must be a number from 0 to 2^53, got 9007199254740994",
    );
    // Nothing changed, and the window still answers: 2^53 of its weight is at the deferred value.
    expect([w.blocks, w.count]).toEqual([2, 2 ** 53 + 1]);
    expect([w.quantile(0.5, 100), w.quantile(1, 100)]).toEqual([100, 200]);
  });

  it("keeps the memory bound when blocks come as digests of a higher compression", () => {
    const fed = createSlidingDigest({ windowBlocks: 10, compression: 50 });
    for (let b = 0; b < 12; b++) {
      const values = Array.from({ length: 2000 }, (_, i) => b * 2000 + i);
      fed.addBlockDigest(createTDigest({ compression: 5000 }).addMany(values));
      expect(fed.centroidCount()).toBeLessThanOrEqual(fed.maxCentroidCount);
    }
    const sorted = sortedCopy(Array.from({ length: 20_000 }, (_, i) => 4000 + i));
    for (const q of [0.1, 0.5, 0.9])
      expect(rankError(sorted, fed.quantile(q), q)).toBeLessThanOrEqual(
        rankErrorBound(q, 50, sorted.length),
      );
  });

  it("checks what a digest that is not one of this package's gives as its centroids", () => {
    const w = createSlidingDigest({ windowBlocks: 3 });
    w.addBlock([100]);
    const nan = {
      means: Float64Array.of(Number.NaN),
      weights: Float64Array.of(1),
      exact: Uint8Array.of(1),
      length: 1,
      count: 1,
      min: Number.NaN,
      max: Number.NaN,
    };
    for (const [block, message] of [
      [{ centroids: () => nan }, "block.centroids().means[0] must be a finite number, got NaN"],
      [{ centroids: () => undefined }, "block.centroids() must be a t-digest or a centroid list"],
    ] as const) {
      const call = () => w.addBlockDigest(block as never);
      expect(call, message).toThrow(SketchError);
      expect(call, message).toThrow(message);
    }
    w.addBlock([300]);
    expect([w.blocks, w.count, w.quantile(0.5)]).toEqual([2, 2, 300]);
  });

  it("a rejected block changes nothing", () => {
    const w = createSlidingDigest({ windowBlocks: 2 });
    w.addBlock([1]);
    expect(() => w.addBlock([2, Number.POSITIVE_INFINITY])).toThrow(SketchError);
    expect([w.blocks, w.count, w.quantile(1)]).toEqual([1, 1, 1]);
  });
});
