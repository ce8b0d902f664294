import { describe, expect, it } from "vitest";
import { createBacktest } from "../../src/backtest/createBacktest.js";
import { runBacktest } from "../../src/backtest/runBacktest.js";
import { lastBlock } from "../../src/strategies/lastBlock.js";
import { block } from "../helpers/blocks.js";
import { constant, history } from "./helpers.js";

describe("backtest metrics on hand-computed histories", () => {
  /*
   * Clearing prices (min 100): b1 100, b2 200, b3 400, b4 150, b5..b14 100. Estimates are made
   * before b2..b14 (13 bids per tier); a bid is settled once it has seen 10 blocks, so the bids
   * before b2..b5 count and the last 9 are left out.
   * deprioritized 100: before b2 gets in at b5 (waited 3: within 10 only), before b3 at b5
   *   (2: within 3), before b4 at b5 (1: within 3), before b5 at once. All pay 100/100 = 1.
   * regular 150: before b2 gets in at b4 (2), before b3 at b4 (1), before b4 and b5 at once;
   *   ratios 1, 1, 1, 150/100 = 1.5 -> median (index 2 of 4) 1, p90 (index 3) 1.5, mean 1.125.
   * prioritized 300: before b2 at once (300/200 = 1.5), before b3 at b4 (300/150 = 2), before
   *   b4 at once (2), before b5 at once (3) -> median 2, p90 3, mean 2.125.
   * The scored blocks b2..b14 clear at 1750 / 13 on average; each included bid pays its bid, so
   * the tiers cost 100, 150 and 300 of that.
   */
  const prices = [100, 200, 400, 150, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100];

  it("inclusion within 1, 3 and 10 blocks and the overpayment of the block each bid got into", async () => {
    const r = await runBacktest(history(prices), {
      strategies: [{ name: "fixed", strategy: constant(100, 150, 300) }],
    });
    expect(r.blocks).toBe(14);
    expect(r.scoredBlocks).toBe(13);
    expect(r.unsettledBids).toBe(9);
    expect(r.firstHeight).toBe("1");
    expect(r.lastHeight).toBe("14");
    expect(r.blocksAtMinimum).toBe(11);
    const { deprioritized: low, regular, prioritized: high } = r.strategies[0]!.tiers;
    expect(low.bids).toBe(4);
    expect(low.included).toEqual({ within1: 1, within3: 3, within10: 4 });
    expect(low.inclusion).toEqual({ within1: 0.25, within3: 0.75, within10: 1 });
    expect(low.overpayment).toEqual({ median: 1, p90: 1, mean: 1 });
    expect(regular.included).toEqual({ within1: 2, within3: 4, within10: 4 });
    expect(regular.overpayment).toEqual({ median: 1, p90: 1.5, mean: 1.125 });
    expect(high.included).toEqual({ within1: 3, within3: 4, within10: 4 });
    expect(high.overpayment).toEqual({ median: 2, p90: 3, mean: 2.125 });
    expect(r.meanClearingPrice).toBeCloseTo(1750 / 13, 12);
    expect(low.cost).toBeCloseTo((100 * 13) / 1750, 12);
    expect(regular.cost).toBeCloseTo((150 * 13) / 1750, 12);
    expect(high.cost).toBeCloseTo((300 * 13) / 1750, 12);
  });

  it("a bid counts as included within 10 blocks only if one of its next 10 blocks clears at or below it", async () => {
    // b1 100, b2..b13 1000, b14 100. The bids before b2, b3 and b4 see only 1000s in their 10
    // blocks; the bid before b5 gets in at b14, its 10th block (waited 9): within 10, not 3.
    const r = await runBacktest(history([100, ...Array(12).fill(1000), 100]), {
      strategies: [{ name: "fixed", strategy: constant(100, 150, 300) }],
    });
    const low = r.strategies[0]!.tiers.deprioritized;
    expect(low.bids).toBe(4);
    expect(low.included).toEqual({ within1: 0, within3: 0, within10: 1 });
    expect(low.overpayment).toEqual({ median: 1, p90: 1, mean: 1 });
    const high = r.strategies[0]!.tiers.prioritized;
    expect(high.included).toEqual({ within1: 0, within3: 0, within10: 1 });
    expect(high.overpayment).toEqual({ median: 3, p90: 3, mean: 3 });
    // With nothing at or below the bids in reach, nothing gets in and there is no overpayment.
    const never = await runBacktest(history([100, ...Array(13).fill(1000)]), {
      strategies: [{ name: "fixed", strategy: constant(100, 150, 300) }],
    });
    expect(never.strategies[0]!.tiers.regular.included).toEqual({
      within1: 0,
      within3: 0,
      within10: 0,
    });
    expect(never.strategies[0]!.tiers.regular.overpayment).toBeNull();
    expect(never.strategies[0]!.tiers.regular.cost).toBeNull();
  });

  it("a chain whose minimum is 0: ratios count a 0 clearing price as 1, the price paid has no unit", async () => {
    const idle = Array.from({ length: 14 }, (_, i) => block(i + 1, { gas_unit_prices: ["3"] }));
    const r = await runBacktest(idle, {
      config: { minGasUnitPrice: "0" },
      strategies: [{ name: "fixed", strategy: constant(0, 5, 10) }],
    });
    expect(r.meanClearingPrice).toBe(0);
    const { regular, prioritized } = r.strategies[0]!.tiers;
    expect(regular.overpayment).toEqual({ median: 5, p90: 5, mean: 5 });
    expect(prioritized.overpayment?.median).toBe(10);
    expect(regular.cost).toBeNull();
  });

  it("fewer than 10 blocks: no bid is settled, every share is null", async () => {
    const r = await runBacktest(history([100, 200, 100]), {
      strategies: [{ name: "fixed", strategy: constant(100, 150, 300) }],
    });
    expect(r.unsettledBids).toBe(2);
    expect(r.strategies[0]!.tiers.regular.bids).toBe(0);
    expect(r.strategies[0]!.tiers.regular.inclusion).toEqual({
      within1: null,
      within3: null,
      within10: null,
    });
  });

  /*
   * Spikes with calmBlocks 2 (index = block position from 0; clearing, min 100):
   * 0:100 1:100 2:300 3:300 4:100 5:300 6:100 7:100 8:100 9:100 10:500 11:100 12:100 13:100
   * Spike 1 starts at 2 (two blocks at the minimum before it); the run at 4 is broken by 5; the
   * run from 6 reaches two blocks at 7: spike 1 ended at 6. Spike 2 starts at 10, ends at 11.
   * last-block without skipping serves, before block t, the clearing price of t-1 (prioritized:
   * its next bucket: 100 -> 150, 300 -> 500, 500 -> 1000).
   * deprioritized: covers spike 1 before block 3 (300 >= 300): 1 block after its start. Spike 2's
   *   only spike block is 10 (estimate 100 < 500): missed. Back at 100 before block 7 (1 block
   *   after the end at 6), and before block 12 (1 block after the end at 11).
   * prioritized: 150 < 300 before 2, 500 before 3: cover 1; spike 2 missed (150 < 500 before 10).
   *   Back at 150 before 7 and before 12: 1 and 1.
   * The constant 100/100/1000 never covers spikes in its low tiers (2 missed), is always back
   *   there (0 blocks after each end); its prioritized covers both at once (0) and is never back
   *   at 150: missed when spike 2 starts; spike 2's return is left out (the history ends first).
   */
  const spiky = [100, 100, 300, 300, 100, 300, 100, 100, 100, 100, 500, 100, 100, 100];

  it("spike cover and return, per tier", async () => {
    const r = await runBacktest(history(spiky), {
      calmBlocks: 2,
      config: { skipLatestBlock: false },
      strategies: [
        { strategy: lastBlock() },
        { name: "fixed", strategy: constant(100, 100, 1000) },
      ],
    });
    expect(r.spikes).toBe(2);
    expect(r.calmBlocks).toBe(2);
    const last = r.strategies[0]!.tiers;
    expect(last.deprioritized.spikeCover).toEqual({
      spikes: 2,
      hits: 1,
      median: 1,
      mean: 1,
      max: 1,
    });
    expect(last.deprioritized.spikeReturn).toEqual({
      spikes: 2,
      hits: 2,
      median: 1,
      mean: 1,
      max: 1,
    });
    expect(last.prioritized.spikeCover).toEqual({ spikes: 2, hits: 1, median: 1, mean: 1, max: 1 });
    expect(last.prioritized.spikeReturn).toEqual({
      spikes: 2,
      hits: 2,
      median: 1,
      mean: 1,
      max: 1,
    });
    const fixed = r.strategies[1]!.tiers;
    const none = { median: null, mean: null, max: null };
    expect(fixed.regular.spikeCover).toEqual({ spikes: 2, hits: 0, ...none });
    expect(fixed.regular.spikeReturn).toEqual({ spikes: 2, hits: 2, median: 0, mean: 0, max: 0 });
    expect(fixed.prioritized.spikeCover).toEqual({
      spikes: 2,
      hits: 2,
      median: 0,
      mean: 0,
      max: 0,
    });
    expect(fixed.prioritized.spikeReturn).toEqual({ spikes: 1, hits: 0, ...none });
  });

  it("a history that starts busy has no spike until it has been calm for calmBlocks blocks", async () => {
    const r = await runBacktest(history([300, 300, 100, 300, 100, 100, 400, 400]), {
      calmBlocks: 2,
      strategies: [{ name: "fixed", strategy: constant(100, 100, 1000) }],
    });
    expect(r.spikes).toBe(1);
    // The spike at index 6 is still going when the history ends: its cover (at once) counts.
    expect(r.strategies[0]!.tiers.prioritized.spikeCover).toMatchObject({ spikes: 1, hits: 1 });
    expect(r.strategies[0]!.tiers.regular.spikeCover).toMatchObject({ spikes: 0, hits: 0 });
  });
});

describe("backtest bookkeeping at the edges", () => {
  const full = (h: number | bigint, price: number) =>
    block(Number(h), { gas_unit_prices: Array(250).fill(String(price)) });

  it("a block right after a resync is not scored, and scoredBlocks says so (bids + unsettled)", async () => {
    const blocks = [
      ...Array.from({ length: 30 }, (_, i) => full(i + 1, 100 + i)),
      ...Array.from({ length: 30 }, (_, i) => full(1e12 + i, 500 + i)),
    ];
    const b = createBacktest({ strategies: [{ strategy: lastBlock() }] });
    for (const x of blocks)
      try {
        b.push(x);
      } catch {
        // the jump's first blocks are refused until the resync
      }
    const r = b.result();
    const tier = r.strategies[0]!.tiers.regular;
    expect(r.scoredBlocks).toBe(tier.bids + r.unsettledBids);
    expect(r.scoredBlocks).toBeLessThan(r.blocks - 1);
  });

  it("an onBlock callback that throws leaves the run whole: the block was taken once", async () => {
    let calls = 0;
    const b = createBacktest({
      strategies: [{ strategy: lastBlock() }],
      onBlock: () => {
        if (++calls === 1) throw new Error("chart broke");
      },
    });
    b.push(full(1, 100));
    expect(() => b.push(full(2, 900))).toThrow("chart broke");
    expect(b.push(full(2, 900))).toBe("duplicate");
    b.push(full(3, 300));
    const r = b.result();
    expect(r).toMatchObject({ blocks: 3, scoredBlocks: 2, meanClearingPrice: 600 });
  });
});
