// What a strategy's promises() returns is checked before it reaches a snapshot, the metrics and
// the backtest: a bad record is a strategy failure of that block, named with its path, never a
// value a reader trips over (one made every metrics scrape fail with a 500).
import { describe, expect, it } from "vitest";
import { checkPromises } from "../../src/core/checkPromises.js";
import { createEngine, createHandler, type Strategy } from "../../src/index.js";
import { createMetrics } from "../../src/metrics.js";
import { idleBlock } from "../helpers/blocks.js";

const good = {
  withinBlocks: 3,
  probability: 0.95,
  bids: 10,
  included: 9,
  rate: 0.9,
  recentBids: 10,
  recentRate: 0.9,
};
const all = (r: unknown) => ({ deprioritized: good, regular: r, prioritized: good });

describe("checkPromises", () => {
  it("names the first problem with its path", () => {
    const cases: [unknown, string][] = [
      [42, "must be an object with a record per tier (got 42)"],
      [{ regular: good, prioritized: good }, "deprioritized: missing (a record per tier)"],
      [{ ...all(good), bogus: good }, '"bogus": not a tier (deprioritized, regular, prioritized)'],
      [
        all({ ...good, probability: "high" }),
        'regular.probability: must be a number above 0 and at most 1 (got "high")',
      ],
      [
        all({ ...good, probability: Number.POSITIVE_INFINITY }),
        "regular.probability: must be a number above 0 and at most 1 (got Infinity)",
      ],
      [
        all({ ...good, withinBlocks: 2.5 }),
        "regular.withinBlocks: must be a whole number of blocks, at least 1 (got 2.5)",
      ],
      [all({ ...good, bids: -5 }), "regular.bids: must be a whole number, at least 0 (got -5)"],
      [
        all({ ...good, included: 11 }),
        "regular.included: must be a whole number from 0 to bids (10) (got 11)",
      ],
      [all({ ...good, rate: 1.7 }), "regular.rate: must be null or a number from 0 to 1 (got 1.7)"],
      // Rates that contradict their counts: the metrics export the rate beside the counts.
      [all({ ...good, rate: 0.99 }), "regular.rate: must be included / bids (9 / 10) (got 0.99)"],
      [all({ ...good, rate: null }), "regular.rate: must be included / bids (9 / 10) (got null)"],
      [
        all({ ...good, bids: 0, included: 0, recentBids: 0, recentRate: null }),
        "regular.rate: must be null while no bid has an outcome (bids 0) (got 0.9)",
      ],
      [
        all({ ...good, recentRate: 0.55 }),
        "regular.recentRate: must be a whole number of the 10 recent bids over 10 (got 0.55)",
      ],
      [
        all({ ...good, recentBids: 0 }),
        "regular.recentRate: must be null while no recent bid has an outcome (recentBids 0) (got 0.9)",
      ],
      [
        all({ ...good, recentRate: Number.NaN }),
        "regular.recentRate: must be null or a number from 0 to 1 (got NaN)",
      ],
      [
        all({ ...good, includedAtMinimum: 10 }),
        "regular.includedAtMinimum: must be absent or a whole number from 0 to included (9) (got 10)",
      ],
      [
        all({ ...good, recentIncludedAtMinimum: -1 }),
        "regular.recentIncludedAtMinimum: must be absent or a whole number from 0 to the recent included bids (recentRate × recentBids: 9) (got -1)",
      ],
      [
        // More recent bids included at the minimum than recent bids included: the metrics'
        // recent share above the minimum read (5 - 9) / (10 - 9) = -4.
        all({ ...good, recentRate: 0.5, recentIncludedAtMinimum: 9 }),
        "regular.recentIncludedAtMinimum: must be absent or a whole number from 0 to the recent included bids (recentRate × recentBids: 5) (got 9)",
      ],
      [
        all({ ...good, recentBids: 0, recentRate: null, recentIncludedAtMinimum: 1 }),
        "regular.recentIncludedAtMinimum: must be absent or a whole number from 0 to the recent included bids (recentRate × recentBids: 0) (got 1)",
      ],
      [
        all({ ...good, bids: 10n }),
        "regular.bids: must be a whole number, at least 0 (got 10n, a BigInt)",
      ],
    ];
    for (const [value, problem] of cases)
      expect(checkPromises(value)).toEqual({ ok: false, problem });
  });

  it("keeps the known fields of sane records, frozen", () => {
    const none = { ...good, bids: 0, included: 0, rate: null, recentBids: 0, recentRate: null };
    const r = checkPromises(all({ ...none, note: "extra" }));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.promises.regular).toEqual(none);
    expect(Object.isFrozen(r.promises.regular)).toBe(true);
    // The optional counts at the minimum are kept when given, and not made up when not.
    expect(r.promises.regular).not.toHaveProperty("includedAtMinimum");
    const counted = { ...good, includedAtMinimum: 4, recentIncludedAtMinimum: 4 };
    const withCounts = checkPromises(all(counted));
    expect(withCounts.ok && withCounts.promises.regular).toEqual(counted);
  });
});

describe("a strategy whose promises() are not sane", () => {
  it("fails that block like any strategy method; the metrics scrape and the next block are fine", async () => {
    let bad = true;
    const strategy = (): Strategy => ({
      name: "liar",
      ingest() {},
      reset() {},
      estimate: (min) => ({ deprioritized: min, regular: min, prioritized: min }),
      promises: () => all(bad ? { ...good, probability: "high" } : good) as never,
    });
    const engine = createEngine({ strategy });
    const metrics = createMetrics({ engine, defaultMetrics: false });
    const handler = createHandler(engine, { metrics, maxStalenessMs: false });
    engine.ingest(idleBlock(1));
    const s = engine.snapshot()!;
    expect(s.estimate).toBeUndefined();
    expect(s.failure).toMatchObject({
      name: "StrategyError",
      shortMessage: "strategy liar failed to report its promises",
      details: 'regular.probability: must be a number above 0 and at most 1 (got "high")',
    });
    expect(s.promises).toBeUndefined();
    const scrape = await handler.respond({ method: "GET", url: "/metrics", headers: {} });
    expect(scrape.status).toBe(200);
    bad = false;
    engine.ingest(idleBlock(2));
    expect(engine.snapshot()!.promises?.regular.probability).toBe(0.95);
    expect(engine.counters()).toMatchObject({ accepted: 2, strategyFailures: 1 });
    expect((await handler.respond({ method: "GET", url: "/metrics", headers: {} })).status).toBe(
      200,
    );
  });
});
