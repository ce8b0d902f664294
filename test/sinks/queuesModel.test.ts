import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type BlockSample, parseBlockSample } from "../../src/index.js";
import { createPendingQueue } from "../../src/sinks/redis/createPendingQueue.js";
import { createWrittenRing } from "../../src/sinks/redis/createWrittenRing.js";
import { fcParams } from "../helpers/fcSeed.js";

// The publisher's two queues keep a head index and compact their array past 1,024 entries gone:
// checked against plain arrays over runs long enough to compact many times, with taken blocks
// put back (a failed write) across a compaction.

const block = (height: number, txns: number) =>
  parseBlockSample({
    height: String(height),
    epoch: "1",
    gas_unit_prices: Array.from({ length: txns }, () => "100"),
  });
const heights = (blocks: readonly { height: bigint }[]) => blocks.map((b) => Number(b.height));

const op = fc.oneof(
  fc.record({ kind: fc.constant("push" as const), count: fc.integer({ min: 1, max: 700 }) }),
  fc.record({ kind: fc.constant("take" as const), count: fc.integer({ min: 0, max: 900 }) }),
  fc.record({ kind: fc.constant("putBack" as const), count: fc.integer({ min: 0, max: 900 }) }),
);

describe("the publisher's queues, against a plain array", () => {
  it("the pending queue keeps order, drops the oldest past its limits, and puts taken blocks back in front", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 400 }),
        fc.option(fc.integer({ min: 1, max: 4_000 }), { nil: undefined }),
        fc.array(op, { minLength: 1, maxLength: 40 }),
        fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 50 }),
        (limit, maxTransactions, ops, sizes) => {
          const queue = createPendingQueue(limit, maxTransactions);
          let model: BlockSample[] = [];
          let taken: BlockSample[] = [];
          let height = 0;
          const txnsOf = (blocks: readonly BlockSample[]) =>
            blocks.reduce((n, b) => n + b.gasUnitPrices.length, 0);
          for (const { kind, count } of ops) {
            if (kind === "push") {
              for (let i = 0; i < count; i++) {
                height++;
                const b = block(height, sizes[height % sizes.length]!);
                model.push(b);
                let over = 0;
                while (
                  model.length - over > limit ||
                  (txnsOf(model.slice(over)) > (maxTransactions ?? Infinity) &&
                    over < model.length - 1)
                )
                  over++;
                const gone = model.slice(0, over);
                model = model.slice(over);
                expect(queue.push(b)).toEqual(
                  over === 0
                    ? undefined
                    : { count: over, from: gone[0]!.height, to: gone[over - 1]!.height },
                );
              }
            } else if (kind === "take") {
              taken = queue.take(count);
              expect(heights(taken)).toEqual(heights(model.slice(0, count)));
              model = model.slice(count);
            } else {
              const back = taken.slice(0, count);
              queue.putBack(back);
              model = [...back, ...model];
              taken = [];
            }
            expect(queue.length).toBe(model.length);
          }
          expect(heights(queue.take(Number.MAX_SAFE_INTEGER))).toEqual(heights(model));
        },
      ),
      fcParams(150),
    );
  });

  it("puts blocks back in front after drops compacted the queue under them", () => {
    // A write of blocks 1-2 fails while 1,215 newer blocks arrive past a limit of 191: the
    // oldest are dropped and the array compacted, leaving fewer free slots in front than blocks
    // to put back.
    const queue = createPendingQueue(191);
    for (let h = 1; h <= 2; h++) queue.push(block(h, 1));
    const taken = queue.take(2);
    for (let h = 3; h <= 1_217; h++) queue.push(block(h, 1));
    queue.putBack(taken);
    expect(queue.length).toBe(193);
    expect(heights(queue.take(3))).toEqual([1, 2, 1_027]);
  });

  it("the written ring keeps the newest entries within its size and bytes, in height order", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2_500 }),
        fc.option(fc.integer({ min: 40, max: 20_000 }), { nil: undefined }),
        fc.array(fc.tuple(fc.integer({ min: -3, max: 600 }), fc.integer({ min: 6, max: 60 })), {
          minLength: 1,
          maxLength: 30,
        }),
        (size, maxBytes, runs) => {
          const ring = createWrittenRing(size, maxBytes);
          let model: { height: number; bytes: number }[] = [];
          let newest = 0;
          for (const [step, bytes] of runs) {
            // A run of heights from just below the newest (refused: at or below it) upwards.
            const from = newest + Math.min(step, 1);
            const count = Math.max(step, 1);
            for (let h = Math.max(from, 1); h < from + count; h++) {
              ring.add(BigInt(h), ["block", "x".repeat(bytes - 5)]);
              if (h <= newest) continue;
              newest = h;
              if (size === 0) continue;
              model.push({ height: h, bytes });
              const sum = () => model.reduce((n, e) => n + e.bytes, 0);
              while (model.length > size || (sum() > (maxBytes ?? Infinity) && model.length > 1))
                model = model.slice(1);
            }
            expect(ring.newest).toBe(newest === 0 ? undefined : BigInt(newest));
            const cut = Math.max(0, newest - 300);
            expect(heights(ring.above(BigInt(cut)))).toEqual(
              model.filter((e) => e.height > cut).map((e) => e.height),
            );
          }
        },
      ),
      fcParams(60),
    );
  });
});
