import { describe, expect, it } from "vitest";
import { clearingPrice } from "../../src/core/clearingPrice.js";
import { DEFAULT_GAS_CONFIG, parseBlockSample, parseGasConfig } from "../../src/index.js";
import { block, fullBlock, idleBlock } from "../helpers/blocks.js";

const clearing = (b: Parameters<typeof parseBlockSample>[0], config = DEFAULT_GAS_CONFIG) =>
  clearingPrice(parseBlockSample(b), config);

describe("clearingPrice: the ground truth", () => {
  it("a full block clears at its cheapest transaction (not rounded to a bucket)", () => {
    expect(clearing(fullBlock(1, 237))).toBe(237n);
    const flagged = block(1, {
      gas_unit_prices: ["900", "412", "650"],
      block_gas_limit_reached: true,
    });
    expect(clearing(flagged)).toBe(412n);
    const byGas = block(1, {
      gas_unit_prices: ["300", "200"],
      gas_used: ["60", "40"],
      block_gas_limit: "100",
    });
    expect(clearing(byGas)).toBe(200n);
  });

  it("a block that was not full clears at the minimum gas unit price in force", () => {
    expect(clearing(idleBlock(1))).toBe(100n);
    expect(clearing(block(1))).toBe(100n);
    expect(clearing(idleBlock(1, { min_gas_unit_price: "150" }))).toBe(150n);
    expect(clearing(idleBlock(1), parseGasConfig({ minGasUnitPrice: 120 }))).toBe(120n);
    // Dominated by one contract: the chain reorders, others got in at the minimum.
    expect(clearing(fullBlock(1, 800, 250, { majority_use_case_fraction: 0.6 }))).toBe(100n);
    expect(
      clearing(
        fullBlock(1, 800, 250, { majority_use_case_fraction: 0.6 }),
        parseGasConfig({ incorporateReorderingEffects: false }),
      ),
    ).toBe(800n);
    // Fullness by count follows fullBlockTxns.
    expect(clearing(fullBlock(1, 800, 3), parseGasConfig({ fullBlockTxns: 3 }))).toBe(800n);
  });

  it("never below the minimum, and exact above 2^53", () => {
    expect(clearing(fullBlock(1, 40, 250, { min_gas_unit_price: "100" }))).toBe(100n);
    expect(clearing(fullBlock(1, "18446744073709551615"))).toBe(18446744073709551615n);
  });
});
