import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseBlockSample } from "../../src/core/blockSample.js";
import { parseGasConfig } from "../../src/core/config.js";
import { blockLowestPrices, lowestPrices } from "../../src/core/lowestPrices.js";
import { block } from "../helpers/blocks.js";
import { fcParams } from "../helpers/fcSeed.js";

describe("lowestPrices", () => {
  it("keeps the k lowest prices at or above the floor, ascending, else the floor", () => {
    expect(lowestPrices([300n, 90n, 150n, 100n, 120n], 3, 100n)).toEqual([100n, 120n, 150n]);
    expect(lowestPrices([50n, 60n], 3, 100n)).toEqual([100n]);
    expect(lowestPrices([], 3, 7n)).toEqual([7n]);
    const out = [1n, 2n, 3n, 4n];
    expect(lowestPrices([500n, 200n], 3, 100n, out)).toBe(out);
    expect(out).toEqual([200n, 500n]);
  });

  it("counts a price under the floor as the floor when asked, as a block's clearing price does", () => {
    // A full block whose minimum was raised over most of its prices: left out, they made its
    // dearest two read as its lowest.
    const prices = [4n, 4n, 5n, 21n, 3000n];
    expect(lowestPrices(prices, 3, 12n)).toEqual([21n, 3000n]);
    expect(lowestPrices(prices, 3, 12n, [], "floor")).toEqual([12n, 12n, 12n]);
    expect(lowestPrices(prices, 40, 12n, [], "floor")).toEqual([12n, 12n, 12n, 21n, 3000n]);
  });

  it("equals sorting the prices at or above the floor and taking the first k", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(fc.bigInt({ min: 0n, max: 1000n }), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n })),
          { maxLength: 200 },
        ),
        // Small k take the insertion, large ones the sort.
        fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 30, max: 300 })),
        fc.bigInt({ min: 0n, max: 1000n }),
        (prices, k, floor) => {
          const order = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
          const kept = prices.filter((p) => p >= floor).sort(order);
          const expected = kept.length > 0 ? kept.slice(0, k) : [floor];
          expect(lowestPrices(prices, k, floor)).toEqual(expected);
          // Counted as the floor, a price under it is one more price at the floor.
          const raised = prices.map((p) => (p < floor ? floor : p)).sort(order);
          const atFloor = raised.length > 0 ? raised.slice(0, k) : [floor];
          expect(lowestPrices(prices, k, floor, [], "floor")).toEqual(atFloor);
        },
      ),
      fcParams(300),
    );
  });
});

describe("blockLowestPrices", () => {
  const config = parseGasConfig({});
  const sample = (full: boolean) =>
    parseBlockSample(
      block(5, { gas_unit_prices: ["300", "90", "150", "100"], block_gas_limit_reached: full }),
    );

  it("a full block gives its k lowest prices at or above the floor", () => {
    expect(blockLowestPrices(sample(true), config, 2, 100n)).toEqual([100n, 150n]);
  });

  it("a block with room left gives the floor once, whatever it holds", () => {
    const out = [1n, 2n, 3n];
    expect(blockLowestPrices(sample(false), config, 2, 100n, out)).toBe(out);
    expect(out).toEqual([100n]);
  });
});
