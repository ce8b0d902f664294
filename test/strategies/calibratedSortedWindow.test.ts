import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { levelPrice } from "../../src/strategies/calibrated/levelPrice.js";
import { createSortedWindow } from "../../src/strategies/calibrated/sortedWindow.js";
import { fcParams } from "../helpers/fcSeed.js";

const U64_MAX = 2n ** 64n - 1n;

/** Every price a window holds, read at `floor`, lowest first. */
const read = (w: ReturnType<typeof createSortedWindow>, floor: bigint) =>
  Array.from({ length: w.size }, (_, i) => w.at(i, floor));

describe("calibrated: the sorted windows of recent prices", () => {
  it("hold the newest blocks' prices sorted, the oldest block leaving first", () => {
    const w = createSortedWindow(2, 2);
    w.push([150n, 100n, 999n], 100n); // at most 2 per block
    w.push([120n], 100n);
    expect(read(w, 100n)).toEqual([100n, 120n, 150n]);
    w.push([90n], 100n);
    expect(read(w, 100n)).toEqual([90n, 120n]);
    w.clear();
    expect(w.size).toBe(0);
  });

  it("give back exactly the prices pushed when the minimum has not moved, at any scale", () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 0n, max: U64_MAX }), { minLength: 1, maxLength: 30 }),
        fc.bigInt({ min: 0n, max: U64_MAX }),
        (prices, min) => {
          const w = createSortedWindow(prices.length, 1);
          for (const p of prices) w.push([p], min);
          expect(read(w, min)).toEqual([...prices].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
        },
      ),
      fcParams(500),
    );
  });

  it("relative: order prices by how far above their minimum they cleared, and bring them to today's", () => {
    const w = createSortedWindow(3, 1);
    w.push([2_000n], 1_000n); // twice its minimum
    w.push([1_500n], 500n); // three times
    w.push([1_100n], 1_000n); // a tenth above
    // Brought to a minimum of 2,000 (on the log1p scale: (p + 1)(2,001)/(ref + 1) − 1, up).
    expect(read(w, 2_000n)).toEqual([2_200n, 4_000n, 5_995n]);
    // The plain window ignores minimums.
    const plain = createSortedWindow(3, 1, { relative: false });
    plain.push([2_000n], 1_000n);
    plain.push([1_500n], 500n);
    plain.push([1_100n], 1_000n);
    expect(read(plain, 2_000n)).toEqual([1_100n, 1_500n, 2_000n]);
  });

  it("a bid never falls as its level rises, whatever the minimums, trimmed or not, u64 included", () => {
    const price = fc.oneof(
      fc.bigInt({ min: 0n, max: 1000n }),
      fc.bigInt({ min: 2n ** 52n, max: 2n ** 54n }),
      fc.bigInt({ min: 2n ** 60n, max: U64_MAX }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(price, price), { minLength: 1, maxLength: 8 }),
        price,
        fc.double({ min: -2, max: 3, noNaN: true }),
        fc.double({ min: 0, max: 1e-3, noNaN: true }),
        fc.boolean(),
        (pushes, floor, level, step, trimTop) => {
          const w = createSortedWindow(pushes.length, 1, { trimTop });
          for (const [p, ref] of pushes) w.push([p], ref);
          const values = read(w, floor);
          for (let i = 1; i < values.length; i++)
            expect(values[i]!).toBeGreaterThanOrEqual(values[i - 1]!);
          expect(values.every((v) => v >= 0n && v <= U64_MAX)).toBe(true);
          expect(levelPrice(w, level + step, floor)).toBeGreaterThanOrEqual(
            levelPrice(w, level, floor),
          );
        },
      ),
      fcParams(2000),
    );
  });

  it("trimTop: no rank reads above a second block's highest price, while there is one", () => {
    const w = createSortedWindow(4, 1, { trimTop: true });
    w.push([10_000_000_000n], 100n); // alone: nothing to trim
    expect(read(w, 100n)).toEqual([10_000_000_000n]);
    w.push([120n], 100n);
    w.push([150n], 100n);
    // One block far above the rest reads as the next price below it, at every rank above.
    expect(read(w, 100n)).toEqual([120n, 150n, 150n]);
    expect(levelPrice(w, 1, 100n)).toBe(150n);
    w.push([9_000_000_000n], 100n); // a second block up there: the tail is two blocks now
    expect(read(w, 100n)).toEqual([120n, 150n, 9_000_000_000n, 9_000_000_000n]);
    // A window of several prices a block has no trimmed top.
    expect(() => createSortedWindow(3, 3, { trimTop: true })).toThrow(/one price a block/);
  });

  it("trimTop: a long window reads what 1% of its blocks reached, or two in a row, not a few scattered outliers", () => {
    const w = createSortedWindow(500, 1, { trimTop: true });
    // 500 blocks clearing at 100..599 in a shuffled order (no two highs in a row), five of
    // them replaced by outliers at u64's largest price, scattered.
    const prices = Array.from({ length: 500 }, (_, i) => BigInt(100 + ((i * 7) % 500)));
    for (const at of [50, 120, 260, 330, 480]) prices[at] = U64_MAX;
    for (const p of prices) w.push([p], 100n);
    // Reached by 5 blocks only: read as the sixth-highest price, at every rank above it.
    const sixth = [...prices].sort((a, b) => (a < b ? -1 : 1))[494]!;
    expect(sixth).toBe(599n);
    expect(read(w, 100n).slice(-6)).toEqual(Array(6).fill(599n));
    // A sixth block up there: 1% of the window reached it, and it is read.
    w.push([U64_MAX], 100n);
    expect(read(w, 100n).at(-1)).toBe(U64_MAX);
    // Or two in a row, however few: a spike's price is read from its second block on.
    const spike = createSortedWindow(500, 1, { trimTop: true });
    const quiet = (n: number) => {
      for (let i = 0; i < n; i++) spike.push([200n + BigInt(i % 2)], 100n);
    };
    quiet(400);
    spike.push([90_000n], 100n);
    expect(read(spike, 100n).at(-1)).toBe(201n);
    spike.push([80_000n], 100n);
    expect(read(spike, 100n).slice(-2)).toEqual([80_000n, 80_000n]);
    // Read while the run's second block is in the window, and no longer once it has left.
    quiet(499);
    expect(read(spike, 100n).at(-1)).toBe(80_000n);
    quiet(1);
    expect(read(spike, 100n).at(-1)).toBe(201n);
  });
});
