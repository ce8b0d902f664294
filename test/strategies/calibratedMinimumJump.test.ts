// A minimum raised or lowered many times over inside an epoch (a governance change on a chain
// whose epochs do not carry it) is no base fee: prices held relative to the old minimum say
// nothing of the new one.
import { describe, expect, it } from "vitest";
import { calibrated, createEngine } from "../../src/index.js";
import { block } from "../helpers/blocks.js";
import { mulberry32 } from "../helpers/prng.js";

/**
 * 3,000 full blocks clearing around 1,000-1,100 at a minimum of `before`, then 1,000 more at a
 * minimum of `after`, clearing between it and 1.5 times it: the top tier's price served in
 * each of the 30 blocks after the change, over the highest clearing price of those blocks.
 */
function afterTheChange(before: number, after: number): number[] {
  const rnd = mulberry32(5);
  const gauss = () => Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
  const engine = createEngine({ strategy: calibrated() });
  const served: bigint[] = [];
  let highest = 0n;
  for (let h = 1; h <= 4_000; h++) {
    const min = h <= 3_000 ? before : after;
    const price =
      h <= 3_000
        ? Math.round(1_000 * Math.exp(0.03 * Math.abs(gauss())))
        : Math.round(Math.max(after, 1_000) * Math.exp(0.15 * Math.abs(gauss())));
    engine.ingest(
      block(h, {
        min_gas_unit_price: String(min),
        gas_unit_prices: [String(price), String(price * 2)],
        block_gas_limit_reached: true,
      }),
    );
    if (h > 3_000 && h <= 3_030) {
      served.push(engine.snapshot()!.estimate!.prioritized);
      if (BigInt(price) > highest) highest = BigInt(price);
    }
  }
  return served.map((s) => Number(s) / Number(highest));
}

describe("calibrated: a minimum that jumps inside an epoch", () => {
  it("raised 10 times: the top tier does not serve the old prices scaled up 10 times", () => {
    // Before, the experts relative to the minimum took the old prices at 10 times the old
    // minimum, brought them to the new one (about 10,000), and were chosen on the first
    // outcome: 17 blocks at about 10 times the price.
    const ratios = afterTheChange(100, 1_000);
    expect(Math.max(...ratios)).toBeLessThan(3);
  });

  it("raised 3 times, more than doubled: the same, though closer to a base fee's moves", () => {
    // A minimum that more than doubles in a block is a new rule (a base fee moves 12.5 % at
    // most): read as a base fee instead, the top tier served about 2.3 to 2.6 times the price.
    expect(Math.max(...afterTheChange(100, 300))).toBeLessThan(1.5);
    expect(Math.max(...afterTheChange(300, 1_000))).toBeLessThan(1.5);
  });

  it("lowered 10 times: the same", () => {
    const ratios = afterTheChange(1_000, 100);
    expect(Math.max(...ratios)).toBeLessThan(3);
  });

  it("raised from 0 (no minimum): the same, though no ratio of the raw minimums exists", () => {
    // Read as no jump, the relative experts brought the old prices (about 1,000 over a minimum
    // of 0) to a minimum of 100, 101 times over, and the top tier served about 80 times the
    // going price for 2 blocks.
    expect(Math.max(...afterTheChange(0, 100))).toBeLessThan(3);
    expect(Math.max(...afterTheChange(0, 1_000))).toBeLessThan(3);
  });
});
