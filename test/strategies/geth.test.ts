import { describe, expect, it } from "vitest";
import { InvalidConfigError } from "../../src/core/errors.js";
import { type BlockSampleInput, createEngine, type GasConfigInput } from "../../src/index.js";
import { geth, parseGethOptions } from "../../src/strategies/geth.js";
import { atHeight, block } from "../helpers/blocks.js";
import { strategyPropertySuite } from "./propertySuite.js";

strategyPropertySuite("geth", geth());
strategyPropertySuite(
  "geth (1 block, 1 sample, 0/50/100)",
  geth({
    blocks: 1,
    samplesPerBlock: 1,
    percentiles: { deprioritized: 0, regular: 50, prioritized: 100 },
  }),
);

const noSkip: GasConfigInput = { skipLatestBlock: false };
const prices = (...p: number[]) => p.map(String);
/** A block full by its own flag, with these prices. */
const full = (height: number, p: number[], over: Partial<BlockSampleInput> = {}) =>
  block(height, { gas_unit_prices: prices(...p), block_gas_limit_reached: true, ...over });

function estimateAfter(
  blocks: BlockSampleInput[],
  options: Parameters<typeof geth>[0] = {},
  config: GasConfigInput = {},
) {
  const engine = createEngine({ strategy: geth(options), config });
  for (const b of blocks) engine.ingest(b);
  const e = engine.snapshot()!.estimate!;
  return `${e.deprioritized}/${e.regular}/${e.prioritized}`;
}

describe("geth: known answers", () => {
  it("skips prices below the block's own minimum price, not the configured one", () => {
    // Minimum 200 in this block: 150 is skipped -> [300, 400, 500]: 300/400/400 -> 300/400/500.
    const b = full(1, [150, 300, 400, 500], { min_gas_unit_price: "200" });
    expect(estimateAfter([b], {}, noSkip)).toBe("300/400/500");
  });
  it("takes the 3 lowest prices at or above the minimum of a block, index floor((n-1)·p/100)", () => {
    // Usable: 500, 120, 300, 110 (90 is below the minimum 100) -> lowest 3: [110, 120, 300].
    // 30th: index floor(2·0.3) = 0 -> 110; 60th: floor(1.2) = 1 -> 120; 90th: floor(1.8) = 1 -> 120,
    // rounded up to the next bucket: 150.
    const b = full(1, [500, 120, 90, 300, 110]);
    expect(estimateAfter([b], { blocks: 1 }, noSkip)).toBe("110/120/150");
  });

  it("collects over the newest 20 blocks, leaving out the newest one by default", () => {
    // Block i (1..20): lowest three are 100+i, 200+i, 300+i; 60 values. Sorted index 17 = 118,
    // index floor(59·0.6) = 35 -> 216, index floor(59·0.9) = 53 -> 314 -> nextBucket 500.
    // Block 21 (very high) is the newest: skipped.
    const history = Array.from({ length: 20 }, (_, k) => {
      const i = k + 1;
      return full(i, [1000, 300 + i, 100 + i, 200 + i]);
    });
    history.push(full(21, [9000, 9000, 9000]));
    expect(estimateAfter(history)).toBe("118/216/500");
    // Five more old high blocks in front change nothing: only the newest 20 count.
    const older = Array.from({ length: 5 }, (_, k) => full(k + 1, [7000, 7000, 7000]));
    const shifted = history.map((b) => atHeight(b, Number(b.height) + 5));
    expect(estimateAfter([...older, ...shifted])).toBe("118/216/500");
  });

  it("an empty block, one with no price at or above the minimum, or one not full contributes the minimum once", () => {
    // [100, 300, 400, 500]: 30th index 0 -> 100; 60th index 1 -> 300; 90th index 2 -> 400 -> 500.
    const busy = full(2, [500, 400, 300, 600]);
    expect(estimateAfter([block(1), busy], { blocks: 2 }, noSkip)).toBe("100/300/500");
    const belowMin = full(1, [50, 60], { min_gas_unit_price: "100" });
    expect(estimateAfter([belowMin, busy], { blocks: 2 }, noSkip)).toBe("100/300/500");
    const notFull = block(1, { gas_unit_prices: prices(900, 800, 700) });
    expect(estimateAfter([notFull, busy], { blocks: 2 }, noSkip)).toBe("100/300/500");
    const dominated = full(1, [900, 800, 700], { majority_use_case_fraction: 0.8 });
    expect(estimateAfter([dominated, busy], { blocks: 2 }, noSkip)).toBe("100/300/500");
  });

  it("other percentiles and sample sizes", () => {
    const b = full(1, [100, 200, 300, 400, 500, 600]);
    // 5 lowest: [100..500]; 0th -> 100; 50th index 2 -> 300; 100th index 4 -> 500 -> nextBucket 1000.
    const options = {
      blocks: 1,
      samplesPerBlock: 5,
      percentiles: { deprioritized: 0, regular: 50, prioritized: 100 },
    };
    expect(estimateAfter([b], options, noSkip)).toBe("100/300/1000");
  });

  it("starts over at an epoch change", () => {
    const history = [full(1, [900, 900, 900]), full(2, [200, 200, 200], { epoch: "2" })];
    expect(estimateAfter(history, {}, noSkip)).toBe("200/200/300");
  });
});

describe("geth: options", () => {
  it("defaults: 20 blocks, 3 samples, 30/60/90", () => {
    expect(parseGethOptions()).toEqual({
      blocks: 20,
      samplesPerBlock: 3,
      percentiles: { deprioritized: 30, regular: 60, prioritized: 90 },
    });
  });

  it("lists every bad option with its path", () => {
    let error: unknown;
    try {
      geth({ blocks: 0, samplesPerBlock: 2.5, percentiles: { regular: 101 } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidConfigError);
    expect((error as InvalidConfigError).issues).toEqual([
      { path: "blocks", message: "must be at least 1", code: "too_small" },
      {
        path: "samplesPerBlock",
        message: "must be a whole number of transactions, got 2.5",
        code: "invalid_type",
      },
      {
        path: "percentiles.regular",
        message: "must be a whole percentile from 0 to 100",
        code: "too_big",
      },
    ]);
    expect(() => geth({ percentiles: { deprioritized: 70, regular: 60 } })).toThrow(
      "percentiles: must satisfy deprioritized <= regular <= prioritized, got 70/60/90",
    );
    expect(() => geth({ percentiles: { regular: 95 } })).toThrow(
      "percentiles: must satisfy deprioritized <= regular <= prioritized, got 30/95/90",
    );
  });

  it("refuses a window of more than 100,000 prices (each estimate sorts them all)", () => {
    // Each option alone is in range; 100,000 × 10,000 prices was 8 GB and seconds a block.
    expect(() => geth({ blocks: 100_000, samplesPerBlock: 10_000 })).toThrow(
      "samplesPerBlock: the window holds blocks × samplesPerBlock prices, at most 100000 (each estimate sorts them all), got 100000 × 10000 = 1000000000",
    );
    expect(() => geth({ samplesPerBlock: 5001 })).toThrow(/got 20 × 5001 = 100020/);
    expect(geth({ blocks: 10, samplesPerBlock: 10_000 })).toBeTypeOf("function");
  });
});
