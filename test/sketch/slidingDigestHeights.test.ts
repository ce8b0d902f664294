import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { MergingDigest } from "../../src/sketch/mergingDigest.js";
import { SketchError } from "../../src/sketch/sketchError.js";
import { createSlidingDigest, type SlidingDigest } from "../../src/sketch/slidingDigest.js";
import { fcParams } from "../helpers/fcSeed.js";

const PARAMS = fcParams(40);
const QS = [0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1];

interface Block {
  height: number;
  values: number[];
  deferred: number;
}

/** A stream of blocks at increasing heights from `start`, with gaps of up to `maxGap - 1`. */
function streamArb(maxGap: number, length: number): fc.Arbitrary<Block[]> {
  return fc
    .record({
      start: fc.integer({ min: 0, max: 10_000 }),
      steps: fc.array(
        fc.record({
          gap: fc.integer({ min: 1, max: maxGap }),
          // Many distinct values, so the digests compress and the order of merges shows.
          values: fc.array(fc.double({ min: 1, max: 1e6, noNaN: true }), { maxLength: 8 }),
          deferred: fc.constantFrom(0, 0, 0, 1),
        }),
        { minLength: length, maxLength: length },
      ),
    })
    .map(({ start, steps }) => {
      let height = start;
      return steps.map((s) => {
        height += s.gap;
        return { height, values: s.values, deferred: s.deferred };
      });
    });
}

function add(w: SlidingDigest, b: Block): void {
  w.addBlock(b.values, undefined, b.deferred, b.height);
}

function answers(w: SlidingDigest): number[] {
  return [w.blocks, w.count, ...QS.map((q) => w.quantile(q, 3))];
}

describe("createSlidingDigest: heights", () => {
  it("two windows fed one stream from different starts answer alike once the later has dropped its first chunk", () => {
    fc.assert(
      fc.property(
        fc.record({
          windowBlocks: fc.integer({ min: 1, max: 120 }),
          exact: fc.boolean(),
          chunks: fc.integer({ min: 1, max: 9 }),
          compression: fc.constantFrom(10, 20),
          lateBy: fc.integer({ min: 1, max: 200 }),
          queryEvery: fc.integer({ min: 1, max: 7 }),
        }),
        streamArb(3, 500),
        ({ windowBlocks, exact, chunks, compression, lateBy, queryEvery }, blocks) => {
          const options = { windowBlocks, chunks, compression, exactUpTo: exact ? 1024 : 0 };
          const running = createSlidingDigest(options);
          const late = createSlidingDigest(options);
          const chunk = late.chunkBlocks;
          // A window of chunks drops its first (perhaps partial) chunk once the heights after it
          // span the window; a window of blocks once it holds one more block than the window.
          const firstHeight = blocks[lateBy]!.height;
          let read = 0;
          for (const [i, b] of blocks.entries()) {
            add(running, b);
            running.quantile(0.5, 3); // the running window is read after every block
            if (i < lateBy) continue;
            add(late, b);
            read++;
            const settled =
              chunk === 1 ? read > windowBlocks : b.height >= firstHeight + windowBlocks + chunk;
            if (!settled || read % queryEvery !== 0) continue;
            expect(answers(late), `block ${i} at height ${b.height}`).toEqual(answers(running));
          }
        },
      ),
      PARAMS,
    );
  });

  it("a window of chunks covers the newest heights: a chunk goes once the heights after its newest block span the window", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 8 }),
        streamArb(12, 300),
        (windowBlocks, chunks, blocks) => {
          const w = createSlidingDigest({ windowBlocks, chunks, exactUpTo: 0, compression: 1000 });
          const chunk = w.chunkBlocks;
          const newestOf = new Map<number, number>(); // chunk index -> its newest height
          for (const [i, b] of blocks.entries()) {
            w.addBlock([b.height], undefined, 0, b.height);
            newestOf.set(Math.floor(b.height / chunk), b.height);
            // A window of single blocks (chunkBlocks 1) counts blocks instead, as the next test says.
            const seen = blocks.slice(0, i + 1);
            const held =
              chunk === 1
                ? seen.slice(-windowBlocks)
                : seen.filter(
                    (x) => b.height - newestOf.get(Math.floor(x.height / chunk))! < windowBlocks,
                  );
            expect(w.blocks).toBe(held.length);
            expect(w.quantile(0)).toBe(held[0]!.height);
            expect(w.quantile(1)).toBe(b.height);
            expect(w.centroidCount()).toBeLessThanOrEqual(w.maxCentroidCount);
          }
        },
      ),
      PARAMS,
    );
  });

  it("a window of single blocks counts blocks, whatever the gaps (as AIP-34 does)", () => {
    const w = createSlidingDigest({ windowBlocks: 3 });
    for (const h of [10, 50, 51, 1000, 1004]) w.addBlock([h], undefined, 0, h);
    expect(w.blocks).toBe(3);
    expect([w.quantile(0), w.quantile(1)]).toEqual([51, 1004]);
  });

  it("without heights a window numbers its blocks from 0, and a bigint height is the same as a number", () => {
    const byCount = createSlidingDigest({ windowBlocks: 10, exactUpTo: 0, chunks: 3 });
    const byNumber = createSlidingDigest({ windowBlocks: 10, exactUpTo: 0, chunks: 3 });
    const byBigint = createSlidingDigest({ windowBlocks: 10, exactUpTo: 0, chunks: 3 });
    for (let h = 0; h < 40; h++) {
      byCount.addBlock([h * 7.5, h]);
      byNumber.addBlock([h * 7.5, h], undefined, 0, h);
      byBigint.addBlock([h * 7.5, h], undefined, 0, BigInt(h));
      expect(answers(byNumber)).toEqual(answers(byCount));
      expect(answers(byBigint)).toEqual(answers(byCount));
    }
    // After a block at height 100, the next one without a height is at 101.
    byCount.addBlock([1], undefined, 0, 100);
    byCount.addBlock([2]);
    expect(() => byCount.addBlock([3], undefined, 0, 101)).toThrow(
      "height must be above the previous block's height 101, got 101",
    );
  });

  it("refuses a height that is not a whole number above the previous one, and changes nothing", () => {
    for (const exactUpTo of [1024, 0]) {
      const w = createSlidingDigest({ windowBlocks: 5, exactUpTo, chunks: 2, compression: 10 });
      for (let h = 20; h < 30; h++) w.addBlock([h, h * 3], undefined, 1, h);
      const before = answers(w);
      const cases: [unknown, string][] = [
        [29, "height must be above the previous block's height 29, got 29"],
        [3n, "height must be above the previous block's height 29, got 3"],
        [30.5, "height must be a whole number (a safe integer or a bigint), got 30.5"],
        [
          2 ** 60,
          "height must be a whole number (a safe integer or a bigint), got 1152921504606847000",
        ],
        ["31", 'height must be a whole number (a safe integer or a bigint), got "31"'],
        [-1n, "height must be 0 or more, got -1"],
      ];
      for (const [height, message] of cases) {
        for (const call of [
          () => w.addBlock([1e9], undefined, 0, height as number),
          () =>
            w.addBlockDigest(
              {
                means: Float64Array.of(5),
                weights: Float64Array.of(1),
                exact: Uint8Array.of(1),
                length: 1,
                count: 1,
                min: 5,
                max: 5,
              },
              0,
              height as number,
            ),
        ]) {
          const error = (() => {
            try {
              call();
            } catch (e) {
              return e;
            }
          })();
          expect(error).toBeInstanceOf(SketchError);
          expect((error as SketchError).field).toBe("height");
          expect((error as Error).message).toBe(message);
          expect(answers(w)).toEqual(before);
        }
      }
      // Bad values are refused before the height moves the window to another chunk.
      expect(() => w.addBlock([Number.NaN], undefined, 0, 40)).toThrow("values[0]");
      expect(answers(w)).toEqual(before);
      w.addBlock([7], undefined, 0, 40);
      // Height 40 is 11 above the newest: a window of chunks (heights) keeps only the new block,
      // a window of 5 single blocks keeps the 4 before it (29 · 3 = 87 the highest value).
      expect([w.blocks, w.quantile(1, 3)]).toEqual(exactUpTo === 0 ? [1, 7] : [5, 87]);
    }
  });

  it("an outage of up to 15 windows' heights in a stream does not keep a later window from agreeing", () => {
    for (const windowBlocks of [1, 7, 120, 300])
      for (const outage of [2, windowBlocks, 3 * windowBlocks + 1, 14 * windowBlocks])
        for (const lateBy of [1, 40, Math.floor(windowBlocks / 2) + 3]) {
          const options = { windowBlocks, compression: 10 };
          const running = createSlidingDigest(options);
          const late = createSlidingDigest(options);
          let height = 0;
          let read = 0;
          for (let i = 0; i < 3 * windowBlocks + 200; i++) {
            height += i === lateBy + 20 ? outage : 1;
            const values = [Math.sin(i) * 1e4 + 2e4, (i * 7919) % 1000, i];
            running.addBlock(values, undefined, 0, height);
            if (i < lateBy) continue;
            late.addBlock(values, undefined, 0, height);
            if (++read > windowBlocks)
              expect(
                answers(late),
                `W ${windowBlocks}, outage ${outage}, late by ${lateBy}, block ${i}`,
              ).toEqual(answers(running));
          }
        }
  });

  it("a window of single blocks on a stream with few blocks per height does a few merges a block, not a window's", () => {
    // Heights 1,024 apart: each part of the front stack (1,024 heights) would hold one block, and
    // the running merge of the other 256 was rebuilt at every block (14 ms a block at W = 1,024).
    const merge = vi.spyOn(MergingDigest.prototype, "merge");
    try {
      for (const [step, most] of [
        [1, 4],
        [3, 6],
        [15, 18], // fewer than one block in 16 heights: every flip aligned, SPARSE_PARTS + 2 at most
        [1024, 4],
        [1024.7, 4], // one block a part, each in the second half of its part
      ] as const) {
        const w = createSlidingDigest({ windowBlocks: 256, compression: 20 });
        const height = (i: number) => Math.floor(i * step) + (step % 1 > 0 ? 180 : 0);
        for (let i = 0; i < 500; i++) w.addBlock([i, i * 1.5], undefined, 0, height(i));
        merge.mockClear();
        for (let i = 500; i < 2500; i++) {
          w.addBlock([i, i * 1.5], undefined, 0, height(i));
          w.quantile(0.5);
        }
        expect(merge.mock.calls.length / 2000, `height step ${step}`).toBeLessThanOrEqual(most);
      }
    } finally {
      merge.mockRestore();
    }
  });

  it("refuses a block that would take the window past 2^128 in weight before it changes anything", () => {
    const heavy = (v: number) => ({
      means: Float64Array.of(v),
      weights: Float64Array.of(2 ** 127),
      exact: Uint8Array.of(1),
      length: 1,
      count: 2 ** 127,
      min: v,
      max: v,
    });
    for (const exactUpTo of [1024, 0]) {
      const w = createSlidingDigest({ windowBlocks: 8, chunks: 2, exactUpTo, compression: 10 });
      w.addBlockDigest(heavy(1), 0, 8);
      w.addBlockDigest(heavy(2), 0, 9);
      const before = [...answers(w), w.centroidCount()];
      expect(() => w.addBlockDigest(heavy(3), 0, 10)).toThrow(
        "block would bring the window's total weight to 5.104235503814077e+38, past 2^128 (it holds 3.402823669209385e+38)",
      );
      expect([...answers(w), w.centroidCount()]).toEqual(before);
      // The height was not used up: a block of ordinary weight goes in at it.
      w.addBlockDigest({ ...heavy(4), weights: Float64Array.of(1), count: 1 }, 0, 10);
      expect(w.quantile(1, 3)).toBe(4);
    }
  });

  it("heights beyond 2^53 are kept exactly (bigint)", () => {
    const w = createSlidingDigest({ windowBlocks: 4, exactUpTo: 0, chunks: 2 });
    const base = 2n ** 63n;
    for (let i = 0n; i < 20n; i++) w.addBlock([Number(i)], undefined, 0, base + i);
    // Chunks of 2 heights, the newest 4 heights at least: 16..19 (base is even).
    expect(w.blocks).toBe(4);
    expect(w.quantile(0)).toBe(16);
  });
});
