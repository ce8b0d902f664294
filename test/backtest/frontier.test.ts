import { describe, expect, it } from "vitest";
import { formatFrontier } from "../../src/backtest/formatFrontier.js";
import { FRONTIER_KNOBS, planFrontier } from "../../src/backtest/frontierPlan.js";
import { frontierResult } from "../../src/backtest/frontierResult.js";
import type { BacktestResult, StrategyResult, TierResult } from "../../src/backtest/types.js";
import { aip34, createEngine, tdigest } from "../../src/index.js";
import { simulateBlocks } from "../../src/sources/simulator.js";

/**
 * A tier result with the given inclusion (same within 1, 3 and 10) and median overpayment; its
 * mean price paid is `cost`, or half the median.
 */
function tier(inclusion: number, median: number, cost = median / 2): TierResult {
  const none = { spikes: 0, hits: 0, median: null, mean: null, max: null };
  return {
    bids: 100,
    included: { within1: inclusion * 100, within3: inclusion * 100, within10: inclusion * 100 },
    inclusion: { within1: inclusion, within3: inclusion, within10: inclusion },
    overpayment: { median, p90: median, mean: median },
    cost,
    promise: null,
    spikeCover: none,
    spikeReturn: none,
  };
}
const lane = (name: string, t: [number, number, number?][]): StrategyResult => ({
  name,
  strategy: name,
  failures: 0,
  tiers: {
    deprioritized: tier(...t[0]!),
    regular: tier(...t[1]!),
    prioritized: tier(...t[2]!),
  },
});

describe("frontier", () => {
  const plan = planFrontier(["aip34", "last-block"], { aip34: aip34() }, {});
  // last-block's multipliers: inclusion rises with the bid, overpayment with it.
  const values = FRONTIER_KNOBS["last-block"]!.values;
  const inclusion = values.map((_, i) => Math.min(1, 0.8 + i * 0.02));
  const result = {
    strategies: [
      lane("aip34 (frontier)", [
        [0.9, 1.2],
        [0.95, 1.5],
        [0.995, 3],
      ]),
      ...values.map((v, i) =>
        lane(`last-block@${v}`, [
          [0, 0],
          [inclusion[i]!, v],
          [0, 0],
        ]),
      ),
    ],
  } as unknown as BacktestResult;

  it("plans one lane per knob value, and one for a strategy without a knob", () => {
    expect(plan.lanes.map((l) => l.label)).toEqual([
      "aip34 (frontier)",
      ...values.map((v) => `last-block@${v}`),
    ]);
    const calibrated = planFrontier(["calibrated"], {}, {});
    // A promise names its blocks: one lane per value and horizon.
    expect(calibrated.lanes).toHaveLength(FRONTIER_KNOBS.calibrated!.values.length * 3);
    expect(calibrated.lanes[0]!.label).toBe("calibrated@0.5/in1");
  });

  it("interpolates between the two knob values around each target", () => {
    const f = frontierResult(result, plan);
    const at = (target: number) =>
      f.readings.find(
        (r) => r.strategy === "last-block" && r.horizon === 3 && r.target === target,
      )!;
    // 0.9 lies exactly on the 6th value (0.8 + 5 × 0.02): overpayment = that multiplier.
    expect(at(0.9)).toMatchObject({ kind: "interpolated", overpay: values[5], inclusion: 0.9 });
    // 0.95 lies between the 7th (0.92) and 8th (0.94)... beyond: 0.96 is the 9th value.
    const i = inclusion.findIndex((x) => x >= 0.95);
    const a = values[i - 1]!;
    const b = values[i]!;
    const frac = (0.95 - inclusion[i - 1]!) / (inclusion[i]! - inclusion[i - 1]!);
    expect(at(0.95).overpay).toBeCloseTo(a + frac * (b - a), 12);
  });

  it("a strategy without a knob reads its tier for the horizon; the table names the lowest", () => {
    const f = frontierResult(result, plan);
    const aip = (k: number) =>
      f.readings.find((r) => r.strategy === "aip34" && r.horizon === k && r.target === 0.99)!;
    expect(aip(1)).toMatchObject({ kind: "point", overpay: 3, inclusion: 0.995 });
    expect(aip(10)).toMatchObject({ kind: "point", overpay: 1.2, inclusion: 0.9 });
    const table = formatFrontier(f);
    const lowest = table.split("\n").find((l) => l.startsWith("lowest"))!;
    // At 99 % within 1 block: aip34's prioritized point (3.000 at 99.5 %) reaches it.
    expect(table).toContain("3.000 (99.5%)");
    expect(lowest.split(/\s{2,}/).length).toBeGreaterThan(3);
  });

  it("reads the mean price paid at the same place, and names who pays least by each measure", () => {
    // last-block overpays little but bids dear (cost 10 × its multiplier); aip34 the reverse.
    const dear = {
      strategies: [
        lane("aip34 (frontier)", [
          [0.9, 1.2, 0.5],
          [0.95, 1.5, 0.6],
          [0.995, 3, 0.7],
        ]),
        ...values.map((v, i) =>
          lane(`last-block@${v}`, [
            [0, 0],
            [inclusion[i]!, v, 10 * v],
            [0, 0],
          ]),
        ),
      ],
    } as unknown as BacktestResult;
    const f = frontierResult(dear, plan);
    const i = inclusion.findIndex((x) => x >= 0.95);
    const frac = (0.95 - inclusion[i - 1]!) / (inclusion[i]! - inclusion[i - 1]!);
    const lb = f.readings.find(
      (r) => r.strategy === "last-block" && r.horizon === 3 && r.target === 0.95,
    )!;
    expect(lb.cost).toBeCloseTo(10 * (values[i - 1]! + frac * (values[i]! - values[i - 1]!)), 12);
    const table = formatFrontier(f);
    expect(table).toContain("Frontier: median overpayment at equal inclusion");
    expect(table).toContain("Frontier: mean price paid at equal inclusion");
    // Column "in 1 @90%": by median overpayment last-block (1.250 against 3.000), by price paid
    // aip34 (0.700 against 12.5).
    const lowest = table
      .split("\n")
      .filter((l) => /^lowest\s{2}/.test(l))
      .map((l) => l.split(/\s{2,}/)[1]);
    expect(lowest).toEqual(["last-block", "aip34"]);
  });

  it("reports a floor when even the cheapest setting includes more, and - when none reaches", () => {
    const high = {
      strategies: values.map((v) =>
        lane(`last-block@${v}`, [
          [0, 0],
          [0.97, v],
          [0, 0],
        ]),
      ),
    } as unknown as BacktestResult;
    const f = frontierResult(high, planFrontier(["last-block"], {}, {}));
    const r = (t: number) =>
      f.readings.find((x) => x.strategy === "last-block" && x.horizon === 1 && x.target === t)!;
    expect(r(0.9)).toMatchObject({ kind: "floor", overpay: 1, inclusion: 0.97 });
    expect(r(0.99)).toMatchObject({ kind: "unreached", overpay: null });
    expect(formatFrontier(f)).toContain("1.000*");
    // The cheapest setting exactly at a target is that target's floor too.
    const exact = {
      strategies: values.map((v) =>
        lane(`last-block@${v}`, [
          [0, 0],
          [0.95, v],
          [0, 0],
        ]),
      ),
    } as unknown as BacktestResult;
    const g = frontierResult(exact, planFrontier(["last-block"], {}, {}));
    expect(
      g.readings.find((x) => x.strategy === "last-block" && x.horizon === 1 && x.target === 0.95),
    ).toMatchObject({ kind: "floor", overpay: values[0], inclusion: 0.95 });
    // A setting that reaches a target exactly reaches it, the last one too.
    const last = values.length - 1;
    const top = {
      strategies: values.map((v, i) =>
        lane(`last-block@${v}`, [
          [0, 0],
          [i === last ? 0.99 : 0.5, v],
          [0, 0],
        ]),
      ),
    } as unknown as BacktestResult;
    const h = frontierResult(top, planFrontier(["last-block"], {}, {}));
    expect(
      h.readings.find((x) => x.strategy === "last-block" && x.horizon === 1 && x.target === 0.99),
    ).toMatchObject({ kind: "interpolated", overpay: values[last], inclusion: 0.99 });
  });

  it("keeps a swept tdigest tier's own window and sample from the config", () => {
    // A review found the sweep's regular tier back at 30 blocks of clearing prices for a config
    // that set 200 blocks of paid prices: its frontier was another strategy than its row.
    const options = { tiers: { regular: { windowBlocks: 200, sample: "paid" as const } } };
    const lane = planFrontier(["tdigest"], {}, { tdigest: options });
    const swept = lane.strategies[lane.lanes.findIndex((l) => l.value === 0.5)]!.strategy;
    const a = createEngine({ strategy: swept });
    // The regular tier alone: the deprioritized one at the minimum of the same window.
    const alone = { windowBlocks: 200, sample: "paid" as const };
    const b = createEngine({
      strategy: tdigest({ tiers: { deprioritized: { ...alone, quantile: 0 }, regular: alone } }),
    });
    expect(regularApart(a, b)).toBe(0);
  });

  it("never lifts a swept tdigest bid by the deprioritized tier's shorter window", () => {
    // A review found the sweep's deprioritized tier at quantile 0 of its own 10 blocks: their
    // minimum is often above a low quantile of the regular tier's 30, and tiers are monotone,
    // so the low end of the curve scored a bid the regular quantile never made.
    const plan = planFrontier(["tdigest"], {}, {});
    const swept = plan.strategies[plan.lanes.findIndex((l) => l.value === 0)]!.strategy;
    const a = createEngine({ strategy: swept });
    // The regular tier alone: the deprioritized one reads the minimum of the same window.
    const b = createEngine({
      strategy: tdigest({
        tiers: { deprioritized: { windowBlocks: 30, quantile: 0 }, regular: { quantile: 0 } },
      }),
    });
    expect(regularApart(a, b)).toBe(0);
  });
});

/** Blocks of a mixed chain (600, seed 3) after which the two engines serve other regular bids. */
function regularApart(a: ReturnType<typeof createEngine>, b: ReturnType<typeof createEngine>) {
  let apart = 0;
  for (const block of simulateBlocks({ scenario: "mixed", blocks: 600, seed: 3 })) {
    a.ingest(block);
    b.ingest(block);
    if (a.snapshot()!.estimate!.regular !== b.snapshot()!.estimate!.regular) apart++;
  }
  return apart;
}
