import { describe, expect, it } from "vitest";
import { createHistoryStats } from "../../src/backtest/createHistoryStats.js";
import { parseBlockSample } from "../../src/index.js";
import { block } from "../helpers/blocks.js";

/** A full block (gas limit reached) clearing at `price`, or an idle one (clearing at the minimum 100). */
const at = (h: number, price: number | null) =>
  parseBlockSample(
    block(h, {
      gas_unit_prices: price === null ? ["150"] : [String(price), String(price * 2)],
      block_gas_limit_reached: price !== null,
    }),
  );

describe("history statistics", () => {
  it("counts full blocks, their runs, clearing ratios and the lag-1 autocorrelation by hand", () => {
    const prices = [200, 400, null, 200, 200, 800, null, null, 400];
    const stats = createHistoryStats();
    for (const [i, p] of prices.entries()) stats.push(at(i + 1, p));
    const s = stats.result();
    expect(s.blocks).toBe(9);
    expect(s.fullShare).toBeCloseTo(6 / 9, 12);
    expect(s.atMinimumShare).toBeCloseTo(3 / 9, 12);
    // Runs of full blocks: 2, 3, 1.
    expect(s.fullRuns).toMatchObject({ count: 3, max: 3 });
    expect(s.fullRuns.mean).toBeCloseTo(2, 12);
    // Lag-1 autocorrelation of log clearing, computed directly.
    const x = prices.map((p) => Math.log(p ?? 100));
    const m = x.reduce((a, b) => a + b) / x.length;
    let num = 0;
    let den = 0;
    x.forEach((v, i) => {
      den += (v - m) ** 2;
      if (i > 0) num += (v - m) * (x[i - 1]! - m);
    });
    expect(s.clearingAutocorrelation).toBeCloseTo(num / den, 10);
    // Ratios: 2, 0.25, 2, 1, 4, 0.125, 1, 4 (fewer than the compression: exact quantiles).
    expect(s.clearingRatio!["0.5"]).toBeCloseTo(2, 12);
    expect(s.clearingRatio!["0.01"]).toBeCloseTo(0.125, 12);
    expect(s.minimumPrice!["0.5"]).toBe(100);
  });

  it("the autocorrelation keeps its digits on large prices that vary little (wei, 10^18)", () => {
    // Alternating prices: the lag-1 autocorrelation is -1 exactly (up to the 1/n of the sums).
    for (const [base, step, n] of [
      [10_000_000_000n, 1_000_000n, 20_000],
      [1_000_000_000n, 100_000n, 100_000],
      [10_000_000_000n, 1n, 2_000],
      [10n ** 18n, 10n ** 12n, 3_000],
    ] as const) {
      const stats = createHistoryStats();
      for (let h = 1; h <= n; h++)
        stats.push(
          parseBlockSample(
            block(h, {
              gas_unit_prices: [String(h % 2 ? base : base + step)],
              block_gas_limit_reached: true,
            }),
          ),
        );
      expect(stats.result().clearingAutocorrelation).toBeCloseTo(-1 + 1 / n, 4);
    }
  });

  it("a history of one price has no autocorrelation to report, and an empty one no quantiles", () => {
    const flat = createHistoryStats();
    for (let h = 1; h <= 5; h++) flat.push(at(h, 300));
    expect(flat.result().clearingAutocorrelation).toBeNull();
    expect(flat.result().fullRuns).toMatchObject({ count: 1, max: 5 });
    const empty = createHistoryStats().result();
    expect(empty).toMatchObject({ blocks: 0, fullShare: null, clearingRatio: null });
  });
});
