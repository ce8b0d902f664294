import { describe, expect, it } from "vitest";
import { createSeriesRecorder } from "../../src/backtest/createSeriesRecorder.js";
import type { BacktestBlock } from "../../src/backtest/types.js";
import { InvalidConfigError } from "../../src/index.js";

const at = (i: number, clearing: number, low?: number): BacktestBlock => ({
  index: i,
  height: BigInt(100 + i),
  clearing: BigInt(clearing),
  min: 100n,
  estimates: [
    low === undefined
      ? undefined
      : { deprioritized: BigInt(low), regular: BigInt(low + 1), prioritized: BigInt(low + 2) },
  ],
});

describe("createSeriesRecorder", () => {
  it("one point per block until full, then each point is the highest of the blocks it merges", () => {
    const r = createSeriesRecorder({ strategies: ["s"], maxPoints: 4 });
    const clearing = [100, 300, 150, 100, 900, 100, 100, 200, 100];
    for (const [i, c] of clearing.entries()) r.record(at(i + 1, c, i === 2 ? undefined : 100 + i));
    const s = r.series();
    // 4 points reached at block 4: merged into 2 of 2 blocks; blocks 5..8 make 2 more -> 4 ->
    // merged into 2 of 4 blocks; block 9 is a partial point.
    expect(s.blocksPerPoint).toBe(4);
    expect(s.heights).toEqual([101, 105, 109]);
    expect(s.clearing).toEqual([300, 900, 100]);
    expect(s.strategies[0]!.name).toBe("s");
    // Block 3 had no estimate; the highest of the others counts.
    expect(s.strategies[0]!.deprioritized).toEqual([103, 107, 108]);
    expect(s.strategies[0]!.prioritized).toEqual([105, 109, 110]);
    expect(r.size()).toBe(2);
  });

  it("keeps each point's height exact as a label, past 2^53 too, and merges the labels alike", () => {
    const r = createSeriesRecorder({ strategies: ["s"], maxPoints: 4 });
    const top = 18_446_744_073_709_551_615n;
    for (let i = 5; i >= 1; i--) r.record({ ...at(0, 100), height: top - BigInt(i) });
    const s = r.series();
    // Blocks 1-4 merged into 2 points of 2 blocks, then block 5 alone.
    expect(s.heightLabels).toEqual([
      "18446744073709551610",
      "18446744073709551612",
      "18446744073709551614",
    ]);
    // As numbers, every one of them is 2^64.
    expect(new Set(s.heights).size).toBe(1);
  });

  it("null where no block behind a point had an estimate", () => {
    const r = createSeriesRecorder({ strategies: ["s"], maxPoints: 10 });
    r.record(at(1, 100));
    r.record(at(2, 100, 120));
    expect(r.series().strategies[0]!.regular).toEqual([null, 121]);
  });

  it("stays within maxPoints for any length", () => {
    const r = createSeriesRecorder({ strategies: ["a", "b"], maxPoints: 100 });
    for (let i = 1; i <= 12_345; i++)
      r.record({ ...at(i, 100 + (i % 7), 100), estimates: [undefined, undefined] });
    const s = r.series();
    expect(s.heights.length).toBeLessThanOrEqual(101);
    expect(s.heights.length).toBeGreaterThanOrEqual(50);
    expect(s.blocksPerPoint).toBe(128);
    expect(Math.max(...s.clearing)).toBe(106);
  });

  it("rejects an odd or tiny maxPoints", () => {
    expect(() => createSeriesRecorder({ strategies: [], maxPoints: 3 })).toThrow(
      InvalidConfigError,
    );
    expect(() => createSeriesRecorder({ strategies: [], maxPoints: 0 })).toThrow(
      "maxPoints: must be an even whole number >= 2, got 0",
    );
    expect(() => createSeriesRecorder({ strategies: "ab", maxPoints: "4" } as never)).toThrow(
      'maxPoints: must be an even whole number >= 2, got "4"; strategies: must be the strategies\' names, an array of strings (got "ab")',
    );
    expect(() => createSeriesRecorder(undefined as never)).toThrow(InvalidConfigError);
  });
});
