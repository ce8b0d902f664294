import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { clearingPrice } from "../../src/core/clearingPrice.js";
import {
  type BlockSampleInput,
  createEngine,
  DEFAULT_GAS_CONFIG,
  type GasConfigInput,
  parseBlockSample,
} from "../../src/index.js";
import { lastBlock } from "../../src/strategies/lastBlock.js";
import { block, fullBlock, idleBlock } from "../helpers/blocks.js";
import { strategyPropertySuite } from "./propertySuite.js";

strategyPropertySuite("last-block", lastBlock());

function estimateAfter(blocks: BlockSampleInput[], config: GasConfigInput = {}) {
  const engine = createEngine({ strategy: lastBlock(), config });
  for (const b of blocks) engine.ingest(b);
  const e = engine.snapshot()!.estimate!;
  return `${e.deprioritized}/${e.regular}/${e.prioritized}`;
}
const noSkip: GasConfigInput = { skipLatestBlock: false };

describe("last-block: known answers", () => {
  it("repeats the newest block's clearing price; prioritized is the next bucket above it", () => {
    expect(estimateAfter([fullBlock(1, 250)], noSkip)).toBe("250/250/300");
    expect(estimateAfter([fullBlock(1, 250), idleBlock(2)], noSkip)).toBe("100/100/150");
    // Full by the block's own flag: the cheapest of its transactions.
    const flagged = block(1, {
      gas_unit_prices: ["700", "420", "999"],
      block_gas_limit_reached: true,
    });
    expect(estimateAfter([flagged], noSkip)).toBe("420/420/500");
  });

  it("leaves out the newest block by default (skipLatestBlock)", () => {
    expect(estimateAfter([fullBlock(1, 250), idleBlock(2)])).toBe("250/250/300");
    expect(estimateAfter([idleBlock(1), fullBlock(2, 250)])).toBe("100/100/150");
    expect(estimateAfter([fullBlock(1, 250)])).toBe("100/100/150");
  });

  it("a block dominated by one contract is not full: the minimum price", () => {
    const minted = fullBlock(1, 2000, 250, { majority_use_case_fraction: 0.9 });
    expect(estimateAfter([minted], noSkip)).toBe("100/100/150");
  });

  it("uses the block's own minimum price, and never goes below the minimum", () => {
    expect(estimateAfter([idleBlock(1, { min_gas_unit_price: "120" })], noSkip)).toBe(
      "120/120/150",
    );
    const cheap = fullBlock(1, 50, 250, { min_gas_unit_price: "100" });
    expect(estimateAfter([cheap], noSkip)).toBe("100/100/150");
  });

  it("serves exactly the backtest's clearing price of the newest block", () => {
    const text = readFileSync(
      join(import.meta.dirname, "..", "fixtures", "scenario-mixed-500.ndjson"),
      "utf8",
    );
    const engine = createEngine({ strategy: lastBlock(), config: noSkip });
    let full = 0;
    for (const line of text.trim().split("\n")) {
      const b = parseBlockSample(JSON.parse(line));
      engine.ingest(b);
      const price = clearingPrice(b, DEFAULT_GAS_CONFIG);
      if (price > 100n) full++;
      expect(engine.snapshot()!.estimate!.regular).toBe(price);
    }
    expect(full).toBeGreaterThan(50);
  });

  it("multiplies exactly, rounding up: the decimal written, at any price", () => {
    const scaled = (price: bigint, multiplier: number) => {
      const engine = createEngine({
        strategy: lastBlock({ multiplier }),
        config: { ...noSkip, fullBlockTxns: 1, minGasUnitPrice: 1 },
      });
      engine.ingest(block(1, { gas_unit_prices: [String(price)] }));
      return engine.snapshot()!.estimate!.regular;
    };
    expect(scaled(10n, 1.1)).toBe(11n); // 11/10, not the double just above it
    expect(scaled(7n, 1.25)).toBe(9n); // 8.75 rounded up
    expect(scaled(2n ** 53n + 1n, 1.5)).toBe(13_510_798_882_111_490n); // a double's product read ...489
    expect(scaled(10n ** 19n, 2)).toBe(18_446_744_073_709_551_615n); // within u64
    expect(scaled(123n, 999_999.999)).toBe(123_000_000n); // 122,999,999.877 rounded up
  });
});
