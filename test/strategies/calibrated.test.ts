import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  type BlockSampleInput,
  calibrated,
  createEngine,
  type GasEstimate,
  InvalidConfigError,
  resolveStrategy,
} from "../../src/index.js";
import { parseCalibratedOptions } from "../../src/strategies/calibrated/options.js";
import { block, fullBlock, idleBlock } from "../helpers/blocks.js";
import { mulberry32 } from "../helpers/prng.js";
import { strategyPropertySuite } from "./propertySuite.js";

const atOrAbove = (min: number) => [150, 300, 500, 1000, 3000].find((b) => b >= min) ?? min;

strategyPropertySuite("calibrated", calibrated(), {
  idle: (min) => `${min}/${min}/${min}`,
  epochFactory: calibrated({ epochReset: "all" }),
});
strategyPropertySuite("calibrated (roundToBuckets)", calibrated({ roundToBuckets: true }), {
  idle: (min) => {
    const b = atOrAbove(min);
    return `${b}/${b}/${b}`;
  },
  epochFactory: calibrated({ roundToBuckets: true, epochReset: "all" }),
});

/** A full block (by its gas-limit flag) whose cheapest transaction pays `clearing`. */
function cleared(height: number, clearing: number, epoch = 1): BlockSampleInput {
  return block(height, {
    epoch: String(epoch),
    gas_unit_prices: [String(clearing), String(clearing + 7), String(clearing * 2)],
    block_gas_limit_reached: true,
  });
}

/** Run a chain through the engine and return the last snapshot. */
function runChain(blocks: BlockSampleInput[], strategy = calibrated()) {
  const engine = createEngine({ strategy });
  for (const b of blocks) engine.ingest(b);
  return engine.snapshot()!;
}

/**
 * Feed `engine` n blocks at seed `seed`: full with probability `fullShare`, their prices 100 to
 * 100 + `spread`, under the minimum `minOf(height)`. What it served after each block, each
 * block's clearing price (the cheapest of a full block above its minimum, else the minimum) and
 * its minimum.
 */
function feedRandomChain(
  engine: ReturnType<typeof createEngine>,
  { seed, n, fullShare, spread, minOf }: RandomChain,
) {
  const random = mulberry32(seed);
  const served: GasEstimate[] = [];
  const clearing: bigint[] = [];
  const mins: number[] = [];
  for (let h = 1; h <= n; h++) {
    const min = minOf(h);
    const full = random() < fullShare;
    const base = 100 + Math.floor(random() * spread);
    engine.ingest(
      block(h, {
        min_gas_unit_price: String(min),
        gas_unit_prices: full ? [String(base), String(base + 20)] : [String(base)],
        block_gas_limit_reached: full,
      }),
    );
    served.push(engine.snapshot()!.estimate!);
    clearing.push(BigInt(full && base > min ? base : min));
    mins.push(min);
  }
  return { served, clearing, mins };
}

interface RandomChain {
  seed: number;
  n: number;
  fullShare: number;
  spread: number;
  minOf: (height: number) => number;
}

describe("calibrated: options", () => {
  it("fills in the default promises", () => {
    const o = parseCalibratedOptions({});
    expect(o.tiers).toEqual({
      deprioritized: { withinBlocks: 10, probability: 0.9 },
      regular: { withinBlocks: 3, probability: 0.95 },
      prioritized: { withinBlocks: 1, probability: 0.99 },
    });
    expect(o).toMatchObject({
      learningRate: 0.002,
      correctionRate: 0.005,
      roundToBuckets: false,
      epochReset: "windows",
    });
  });

  it("reports every invalid field with its path", () => {
    let error: unknown;
    try {
      calibrated({
        tiers: {
          regular: { probability: 1.5 },
          prioritized: { withinBlocks: 0 },
          // @ts-expect-error a typo must be an error, not ignored
          deprioritised: {},
        },
        learningRate: 0,
        epochReset: "sometimes" as "all",
        anchorBlocks: 99,
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidConfigError);
    const paths = (error as InvalidConfigError).issues.map((i) => `${i.path}: ${i.message}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        "tiers.regular.probability: must be a probability above 0 and below 1, got 1.5",
        "tiers.prioritized.withinBlocks: must be at least 1 block, got 0",
        "tiers.deprioritised: unknown field (did you mean deprioritized?)",
        "learningRate: must be a number above 0 and at most 0.5, got 0",
        'epochReset: must be "windows" or "all", got "sometimes"',
        "anchorBlocks: must be a whole number of blocks from 100 to 10,000,000, got 99",
      ]),
    );
  });

  it("says what is expected where a tier or the tiers are not objects", () => {
    expect(() => calibrated({ tiers: null as never })).toThrow(
      "tiers: must be an object of tiers (deprioritized, regular, prioritized), got null",
    );
    expect(() => calibrated({ tiers: { regular: 5 as never } })).toThrow(
      "tiers.regular: must be an object of withinBlocks and probability, got 5",
    );
  });

  it("refuses a tier that promises less than a tier below it, and allows equal promises", () => {
    // Swapped names: the lowest tier would lift the top one every block.
    expect(() =>
      calibrated({
        tiers: {
          prioritized: { withinBlocks: 10, probability: 0.5 },
          deprioritized: { withinBlocks: 1, probability: 0.99 },
        },
      }),
    ).toThrow(
      "tiers.regular: promises less than the deprioritized tier (95 % in 3 blocks against 99 % in 1 block): a tier must not promise less than a tier below it",
    );
    let error: unknown;
    try {
      calibrated({ tiers: { regular: { withinBlocks: 20, probability: 0.9 } } });
    } catch (e) {
      error = e;
    }
    expect((error as InvalidConfigError).issues.map((i) => i.path)).toEqual(["tiers.regular"]);
    const same = { withinBlocks: 3, probability: 0.95 };
    expect(() =>
      calibrated({ tiers: { deprioritized: same, regular: same, prioritized: same } }),
    ).not.toThrow();
    // Neither promise is weaker than the other: allowed.
    expect(() =>
      calibrated({ tiers: { regular: { withinBlocks: 1, probability: 0.9 } } }),
    ).not.toThrow();
  });

  it("names the config file block when selected by name", () => {
    expect(() =>
      resolveStrategy("calibrated", { calibrated: { tiers: { regular: { withinBlocks: 2.5 } } } }),
    ).toThrow(
      "invalid configuration: calibrated.tiers.regular.withinBlocks: must be a whole number of blocks, got 2.5",
    );
    expect(() =>
      resolveStrategy("calibrated", {
        calibrated: { tiers: { regular: { withinBlocks: 20, probability: 0.9 } } },
      }),
    ).toThrow(
      "calibrated.tiers.regular: promises less than the deprioritized tier (90 % in 20 blocks against 90 % in 10 blocks)",
    );
  });

  it("keeps a cut list's count as it is under the block's name: it names no field", () => {
    const many = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${i}`, 1]));
    let error: InvalidConfigError | undefined;
    try {
      resolveStrategy("calibrated", { calibrated: many });
    } catch (e) {
      error = e as InvalidConfigError;
    }
    expect(error?.issues).toHaveLength(21);
    expect(error?.issues[0]?.path).toBe("calibrated.k0");
    // Was `calibrated: and 5 more issues (not listed)`, which a joined list took for one issue.
    expect(error?.issues[20]).toMatchObject({
      path: "",
      code: "too_many_issues",
      message: "and 5 more issues (not listed)",
    });
  });

  it("refuses anchorBlocks not above a tier's withinBlocks: the learner served would settle few of its bids, or none", () => {
    // Accepted before, anchorBlocks 100 under a 300-block promise served a learner dropped
    // before any of its bids settled: the tier served its prior for ever, its record at 0 bids.
    const long = { deprioritized: { withinBlocks: 300 } };
    expect(() => calibrated({ anchorBlocks: 100, tiers: long })).toThrow(
      "anchorBlocks: must be more than every tier's withinBlocks (tiers.deprioritized: 300), got 100",
    );
    expect(() => calibrated({ anchorBlocks: 300, tiers: long })).toThrow(InvalidConfigError);
    expect(() =>
      resolveStrategy("calibrated", { calibrated: { anchorBlocks: 100, tiers: long } }),
    ).toThrow("calibrated.anchorBlocks: must be more than every tier's withinBlocks");
    expect(() => calibrated({ anchorBlocks: 301, tiers: long })).not.toThrow();
    expect(() => calibrated({ anchorBlocks: 100 })).not.toThrow();
  });

  it("says a withinBlocks past 2^53 - 1 is too large, once, not that it is no whole number", () => {
    const issues = (withinBlocks: number) => {
      try {
        calibrated({ tiers: { regular: { withinBlocks } } });
      } catch (e) {
        return (e as InvalidConfigError).issues.map((i) => `${i.path}: ${i.message}`);
      }
      return [];
    };
    expect(issues(2 ** 60)).toEqual([
      "tiers.regular.withinBlocks: must be at most 1000 blocks, got 1152921504606847000",
    ]);
    expect(issues(1e300)).toEqual([
      "tiers.regular.withinBlocks: must be at most 1000 blocks, got 1e+300",
    ]);
    expect(issues(-1e300)).toEqual([
      "tiers.regular.withinBlocks: must be at least 1 block, got -1e+300",
    ]);
    expect(issues(2.5)).toEqual([
      "tiers.regular.withinBlocks: must be a whole number of blocks, got 2.5",
    ]);
  });

  it("tells two promises apart in the tier-order message, however close their probabilities", () => {
    // Rounded to 6 digits, both read "90 % in 10 blocks": the message refused a promise as
    // less than an identical one.
    expect(() =>
      calibrated({
        tiers: {
          deprioritized: { withinBlocks: 10, probability: 0.9000001 },
          regular: { withinBlocks: 10, probability: 0.9 },
        },
      }),
    ).toThrow(
      "tiers.regular: promises less than the deprioritized tier (90 % in 10 blocks against 90.00001 % in 10 blocks)",
    );
    expect(() =>
      calibrated({
        tiers: {
          regular: { withinBlocks: 1, probability: 0.9999999 },
          prioritized: { withinBlocks: 1, probability: 0.9999998 },
        },
      }),
    ).toThrow("(99.99998 % in 1 block against 99.99999 % in 1 block)");
    // At 15 digits both read "100 % in 3 blocks", a promise no tier may make (and 100 times two
    // such probabilities can be one double): the probabilities are written as given.
    expect(() =>
      calibrated({
        tiers: {
          regular: { withinBlocks: 3, probability: 0.9999999999999997 },
          prioritized: { withinBlocks: 3, probability: 0.9999999999999996 },
        },
      }),
    ).toThrow(
      "tiers.prioritized: promises less than the regular tier (probability 0.9999999999999996 in 3 blocks against probability 0.9999999999999997 in 3 blocks)",
    );
    // Float noise is not shown: 0.57 · 100 is 56.99999999999999.
    expect(() =>
      calibrated({
        tiers: {
          deprioritized: { withinBlocks: 3, probability: 0.57 },
          regular: { withinBlocks: 3, probability: 0.29 },
        },
      }),
    ).toThrow("(29 % in 3 blocks against 57 % in 3 blocks)");
  });
});

describe("calibrated: what it serves", () => {
  it("serves the minimum on every tier before any block and on an idle chain, without bucket rounding", () => {
    const engine = createEngine({ strategy: calibrated() });
    engine.ingest(idleBlock(1));
    expect(engine.snapshot()!.estimate).toEqual({
      deprioritized: 100n,
      regular: 100n,
      prioritized: 100n,
    });
  });

  it("bids prices the chain actually cleared at, not bucket values", () => {
    const engine = createEngine({ strategy: calibrated() });
    const served: GasEstimate[] = [];
    for (let i = 1; i <= 400; i++) {
      engine.ingest(cleared(i, 1234));
      if (i > 200) served.push(engine.snapshot()!.estimate!);
    }
    // Every block clears at 1234: the upper tiers settle on it (no bucket above it, no
    // interpolation). A 90 % promise may bid below the price now and then (that is how it
    // learns it need not bid more), but mostly bids the price itself.
    expect(served.every((e) => e.regular === 1234n && e.prioritized === 1234n)).toBe(true);
    const atPrice = served.filter((e) => e.deprioritized === 1234n).length;
    expect(atPrice / served.length).toBeGreaterThan(0.8);
    expect(served.every((e) => e.deprioritized <= 1234n && e.deprioritized > 1000n)).toBe(true);
  });

  it("carries each tier's promise and the inclusion its served bids achieved", () => {
    const chain = Array.from({ length: 50 }, (_, i) => cleared(i + 1, 500));
    const s = runChain(chain);
    const p = s.promises!;
    // 50 estimates served (the first before the strategy was given any block: skipLatestBlock);
    // each settles `1 + withinBlocks` blocks later.
    expect(p.prioritized).toMatchObject({ withinBlocks: 1, probability: 0.99, bids: 48 });
    expect(p.regular).toMatchObject({ withinBlocks: 3, probability: 0.95, bids: 46 });
    expect(p.deprioritized).toMatchObject({ withinBlocks: 10, probability: 0.9, bids: 39 });
    for (const tier of Object.values(p)) {
      expect(tier.rate).toBe(tier.included / tier.bids);
      expect(tier.recentBids).toBe(tier.bids);
      // Every block cleared at 500, above the minimum: no inclusion came free.
      expect(tier.includedAtMinimum).toBe(0);
      expect(tier.recentIncludedAtMinimum).toBe(0);
    }
    // Without promises, a strategy's snapshot carries none.
    expect(createEngine({ strategy: resolveStrategy("aip34") })).toBeDefined();
    const plain = createEngine({ strategy: resolveStrategy("aip34") });
    plain.ingest(idleBlock(1));
    expect(plain.snapshot()!.promises).toBeUndefined();
  });

  it("its record tells the bids at the minimum that got in from those where the price was a choice", () => {
    // 30 quiet blocks (every bid is the minimum and gets in), then 40 full ones clearing at 500.
    const engine = createEngine({ strategy: calibrated() });
    for (let h = 1; h <= 30; h++) engine.ingest(idleBlock(h));
    const quiet = engine.snapshot()!.promises!;
    for (const tier of Object.values(quiet)) {
      expect(tier.bids).toBeGreaterThan(15);
      expect(tier.includedAtMinimum).toBe(tier.included);
      expect(tier.recentIncludedAtMinimum).toBe(tier.included);
    }
    for (let h = 31; h <= 70; h++) engine.ingest(cleared(h, 500));
    const busy = engine.snapshot()!.promises!;
    for (const tier of ["deprioritized", "regular", "prioritized"] as const) {
      // A bid at the minimum made before the first full block may still get in (a later one
      // misses): the free inclusions stop growing once the minimum no longer clears.
      expect(busy[tier].includedAtMinimum).toBeGreaterThanOrEqual(quiet[tier].includedAtMinimum!);
      expect(busy[tier].includedAtMinimum).toBeLessThanOrEqual(quiet[tier].bids + 12);
      expect(busy[tier].included - busy[tier].includedAtMinimum!).toBeGreaterThan(0);
      expect(busy[tier].recentIncludedAtMinimum).toBe(busy[tier].includedAtMinimum);
    }
  });

  it("its record counts the estimates served, under a minimum that changes every block", () => {
    // With skipLatestBlock the strategy is given the block before the newest, but serves under
    // the newest block's minimum: the record must score what was served, not a stale floor.
    const engine = createEngine({ strategy: calibrated() });
    const { served, clearing } = feedRandomChain(engine, {
      seed: 7,
      n: 1500,
      fullShare: 0.6,
      spread: 400,
      minOf: (h) => (h % 2 === 1 ? 100 : 300),
    });
    const record = engine.snapshot()!.promises!;
    for (const tier of ["deprioritized", "regular", "prioritized"] as const) {
      const { withinBlocks: k, bids, included } = record[tier];
      // Every estimate served counts, from the first (after block 1, before the strategy was
      // given any block); each is scored on the k blocks after it.
      let count = 0;
      let hits = 0;
      for (let i = 0; count < bids; i++) {
        const y = clearing.slice(i + 1, i + 1 + k).reduce((a, b) => (b < a ? b : a));
        count++;
        if (served[i]![tier] >= y) hits++;
      }
      expect({ tier, included }).toEqual({ tier, included: hits });
    }
  });

  it("its record is the served estimates scored on the blocks after them: rounded, lifted, with or without skipLatestBlock", () => {
    // What was served (rounded up to a bucket, lifted by a lower tier's higher bid), not the
    // tier's own bid; each estimate scored on exactly the `withinBlocks` blocks after it, and
    // counted once the strategy has been given the last of them.
    const variants = [
      { options: {}, config: {} },
      { options: { roundToBuckets: true }, config: {} },
      { options: {}, config: { skipLatestBlock: false } },
      // A regular tier of 60 % in 1 block is often lifted by the lowest tier's 90 % in 10.
      { options: { tiers: { regular: { withinBlocks: 1, probability: 0.6 } } }, config: {} },
    ];
    for (const { options, config } of variants) {
      const engine = createEngine({ strategy: calibrated(options), config });
      const N = 800;
      const { served, clearing, mins } = feedRandomChain(engine, {
        seed: 11,
        n: N,
        fullShare: 0.7,
        spread: 900,
        minOf: (h) => (h % 3 === 0 ? 120 : 100),
      });
      const floors = mins.map((min) => BigInt("roundToBuckets" in options ? atOrAbove(min) : min));
      const lag = config.skipLatestBlock === false ? 0 : 1;
      const record = engine.snapshot()!.promises!;
      for (const tier of ["deprioritized", "regular", "prioritized"] as const) {
        const { withinBlocks: k } = record[tier];
        const counted = N - k - lag;
        let included = 0;
        let atMinimum = 0;
        for (let i = 0; i < counted; i++) {
          const y = clearing.slice(i + 1, i + 1 + k).reduce((a, b) => (b < a ? b : a));
          if (served[i]![tier] < y) continue;
          included++;
          if (served[i]![tier] <= floors[i]!) atMinimum++;
        }
        expect({ options, config, tier, ...record[tier] }).toMatchObject({
          options,
          config,
          tier,
          bids: counted,
          included,
          includedAtMinimum: atMinimum,
        });
      }
    }
  });

  it("a strategy whose promises() throws fails like any strategy method: the block is kept", () => {
    const engine = createEngine({
      strategy: (config) => {
        const inner = calibrated()(config);
        return {
          ...inner,
          ingest: inner.ingest,
          promises() {
            throw new Error("boom");
          },
        };
      },
    });
    engine.ingest(idleBlock(1));
    const s = engine.snapshot()!;
    expect(s.estimate).toBeUndefined();
    expect(s.failure?.message).toContain("failed to report its promises");
    expect(engine.counters()).toMatchObject({ accepted: 1, strategyFailures: 1 });
  });

  it("works at any price scale: the same defaults on octas and on wei", () => {
    const rnd = mulberry32(7);
    const prices = Array.from({ length: 3000 }, () => Math.exp(rnd() * 2));
    const octas = runChain(prices.map((x, i) => cleared(i + 1, Math.round(100 * x)))).promises!;
    const wei = runChain(prices.map((x, i) => cleared(i + 1, Math.round(1e10 * x)))).promises!;
    for (const tier of ["deprioritized", "regular", "prioritized"] as const)
      expect(Math.abs(octas[tier].rate! - wei[tier].rate!)).toBeLessThan(0.01);
  });

  it("keeps each promise within a point on a chain that changes regime", () => {
    // Calm stretches clearing near 150, congested ones near 2,000, with a heavy tail (the
    // minimum, 100, rarely binds: where it does, a tier cannot bid less and over-delivers).
    const rnd = mulberry32(11);
    const chain: BlockSampleInput[] = [];
    let level = 150;
    for (let h = 1; h <= 12_000; h++) {
      if (h % 1500 === 0) level = level === 150 ? 2000 : 150;
      const noise = Math.exp((rnd() - 0.5) * 0.6 + (rnd() < 0.02 ? rnd() * 1.5 : 0));
      chain.push(cleared(h, Math.max(100, Math.round(level * noise))));
    }
    const p = runChain(chain).promises!;
    expect(p.prioritized.rate!).toBeGreaterThan(0.98);
    expect(p.regular.rate!).toBeGreaterThan(0.94);
    expect(p.regular.rate!).toBeLessThan(0.96);
    expect(p.deprioritized.rate!).toBeGreaterThan(0.89);
    expect(p.deprioritized.rate!).toBeLessThan(0.91);
  });

  it("a tier lifted by the one below it (tiers are monotone) learns from what it served: no overshoot", () => {
    // Every block full, 98.5 % clearing at exactly 1,000: a bid of 1,000 gets in within 3 or 10
    // blocks all but always, so each lower tier keeps its promise only by sometimes bidding under
    // it, and the regular tier's dips are mostly lifted to the lowest tier's 1,000. Learning from
    // its own bid, not the one served, the regular tier kept 99 % for a 95 % promise.
    const rnd = mulberry32(3);
    const chain: BlockSampleInput[] = [];
    for (let h = 1; h <= 8000; h++) {
      const u = rnd();
      const c = u < 0.985 ? 1000 : u < 0.995 ? 1001 + Math.floor(rnd() * 4000) : 20_000;
      chain.push(cleared(h, c));
    }
    const p = runChain(chain).promises!;
    // The newest 1,000 outcomes: the first thousands of bids come down from the prior level.
    expect(p.regular.recentRate!).toBeGreaterThan(0.94);
    expect(p.regular.recentRate!).toBeLessThan(0.96);
    expect(p.deprioritized.recentRate!).toBeGreaterThan(0.89);
    expect(p.deprioritized.recentRate!).toBeLessThan(0.91);
    expect(p.prioritized.recentRate!).toBeGreaterThan(0.98);
    expect(p.prioritized.recentRate!).toBeLessThan(1);
  });

  it("on heavy-tailed independent prices the 99 % tier bids near the price that keeps it", () => {
    // 40 % of blocks not full (anything gets in), the others clearing independently on a Pareto
    // tail (index 1.5) above the minimum, 100: a bid gets in next block with probability
    // 1 - 0.6 * (100 / bid)^1.5, so 99 % takes 100 * 60^(2/3), about 1,530.
    const keeps = 100 * 60 ** (2 / 3);
    for (const seed of [5, 6, 7]) {
      const rnd = mulberry32(seed);
      const engine = createEngine({ strategy: calibrated() });
      const bids: number[] = [];
      for (let h = 1; h <= 20_000; h++) {
        const full = rnd() >= 0.4;
        const price = Math.round(100 * (1 - rnd()) ** (-1 / 1.5));
        engine.ingest(full ? cleared(h, price) : block(h, { gas_unit_prices: ["150"] }));
        if (h > 10_000) bids.push(Number(engine.snapshot()!.estimate!.prioritized));
      }
      bids.sort((a, b) => a - b);
      expect(engine.snapshot()!.promises!.prioritized.rate!, `seed ${seed}`).toBeGreaterThan(0.98);
      // The median bid within 2x that price, the mean within 4x. Reading the 100-block window's
      // single highest price, the tier bid a median 1.1-1.6x but a mean 2.1-17.8x: one block
      // far out on the tail set the bid for as long as the window held it.
      const mean = bids.reduce((a, b) => a + b, 0) / bids.length;
      expect(bids[bids.length >> 1]! / keeps, `seed ${seed}`).toBeLessThan(2);
      expect(mean / keeps, `seed ${seed}`).toBeLessThan(4);
    }
  });
});

describe("calibrated: a minimum price that moves every block", () => {
  /**
   * A chain whose minimum moves every block. `baseFee`: it follows demand like an EIP-1559 base
   * fee (up to 12.5 % up after a busy block, down after a quiet one), and a full block clears a
   * little above its own minimum. Otherwise the minimum jumps between 50 and 100 at random with
   * no bearing on prices, which drift around 1,000 and 90 % of blocks are full at. Returns what each tier kept and
   * the regular tier's median overpayment (bid / clearing price of the block it got into).
   */
  function movingMinimum(kind: "baseFee" | "noise") {
    const rnd = mulberry32(kind === "baseFee" ? 21 : 22);
    const gauss = () => Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
    const engine = createEngine({ strategy: calibrated() });
    const served: GasEstimate[] = [];
    const clearing: bigint[] = [];
    let min = 2000;
    let demand = 0;
    for (let h = 1; h <= 12_000; h++) {
      let full: boolean;
      let price: number;
      if (kind === "baseFee") {
        demand = 0.995 * demand + 0.07 * gauss();
        const used = Math.min(
          1,
          Math.max(0, 0.5 + 0.4 * (demand - Math.log(min / 2000)) + 0.15 * gauss()),
        );
        min = Math.max(100, Math.round(min * (1 + 0.25 * (used - 0.5))));
        full = used >= 1 || rnd() < 0.15;
        price = Math.round(min * Math.exp(0.2 * Math.abs(gauss())));
      } else {
        min = 50 + Math.floor(rnd() * 51);
        full = rnd() < 0.9;
        demand = 0.99 * demand + 0.05 * gauss();
        price = Math.round(1000 * Math.exp(demand + 0.05 * Math.abs(gauss())));
      }
      engine.ingest(
        block(h, {
          min_gas_unit_price: String(min),
          gas_unit_prices: full ? [String(price), String(price * 2)] : [String(min)],
          block_gas_limit_reached: full,
        }),
      );
      served.push(engine.snapshot()!.estimate!);
      clearing.push(BigInt(full && price > min ? price : min));
    }
    const promises = engine.snapshot()!.promises!;
    // Each estimate is scored on the blocks after it (the last ones wait for their outcome).
    const ratios: number[] = [];
    for (let i = 0; i + 3 < served.length; i++) {
      const bid = served[i]!.regular;
      const got = clearing.slice(i + 1, i + 4).find((c) => bid >= c);
      if (got !== undefined) ratios.push(Number(bid) / Number(got));
    }
    ratios.sort((a, b) => a - b);
    return { promises, regularMedian: ratios[ratios.length >> 1]! };
  }

  /** Each default promise (99 % in 1, 95 % in 3, 90 % in 10) kept within a point. */
  function expectDefaultPromisesKept(promises: ReturnType<typeof movingMinimum>["promises"]) {
    expect(Math.abs(promises.prioritized.rate! - 0.99)).toBeLessThan(0.01);
    expect(Math.abs(promises.regular.rate! - 0.95)).toBeLessThan(0.01);
    expect(Math.abs(promises.deprioritized.rate! - 0.9)).toBeLessThan(0.01);
  }

  it("like a base fee: keeps its promises, bidding over today's minimum what blocks cleared over theirs", () => {
    const { promises, regularMedian } = movingMinimum("baseFee");
    expectDefaultPromisesKept(promises);
    // Plain prices of the last 500 blocks say little once the minimum has moved: bidding from
    // them alone paid a median of 1.50x here (1.07x now).
    expect(regularMedian).toBeLessThan(1.15);
  });

  it("with no bearing on prices: keeps its promises, bidding from plain prices", () => {
    const { promises, regularMedian } = movingMinimum("noise");
    expectDefaultPromisesKept(promises);
    // Bidding from prices relative to the minimum alone paid a median of 1.57x here (1.37x now,
    // 1.38x from plain prices alone).
    expect(regularMedian).toBeLessThan(1.45);
  });
});

describe("calibrated: after a long quiet stretch", () => {
  /** `quiet` blocks that are not full, then 300 full ones clearing independently at 1,000-3,000. */
  function quietThenBusy(quiet: number) {
    const rnd = mulberry32(3);
    const engine = createEngine({ strategy: calibrated() });
    const bids: GasEstimate[] = [];
    const clearing: number[] = [];
    for (let h = 1; h <= quiet + 300; h++) {
      if (h > quiet) bids.push(engine.snapshot()!.estimate!);
      const price = 1000 + Math.floor(rnd() * 2000);
      if (h > quiet) clearing.push(price);
      engine.ingest(h > quiet ? cleared(h, price) : idleBlock(h));
    }
    /** Share of the first `n` bids after the quiet stretch included within `k` blocks. */
    const kept = (tier: keyof GasEstimate, k: number, n = 100) =>
      bids.slice(0, n).filter((b, i) => clearing.slice(i, i + k).some((c) => b[tier] >= BigInt(c)))
        .length / n;
    return { kept, engine };
  }

  it("hits at the minimum price do not carry the tiers below it: the first bids of a burst still keep their promise", () => {
    // Before, every bid of the quiet stretch lowered the levels (the bid stayed at the minimum
    // anyway) until they sat 0.75 below the window's lowest price; the burst then took about
    // 250 misses to climb back: 9 % of the first 100 prioritized bids got in after 100,000
    // quiet blocks, 47 % after 10,000.
    const { kept, engine } = quietThenBusy(10_000);
    expect(kept("prioritized", 1)).toBeGreaterThanOrEqual(0.85);
    expect(kept("regular", 3)).toBeGreaterThanOrEqual(0.8);
    expect(kept("prioritized", 1, 300)).toBeGreaterThanOrEqual(0.95);
    expect(kept("regular", 3, 290)).toBeGreaterThanOrEqual(0.9);
    expect(engine.snapshot()!.promises!.prioritized.recentRate!).toBeGreaterThan(0.98);
  });
});

describe("calibrated: epochs", () => {
  const twoEpochs = (reset: "windows" | "all") => {
    const engine = createEngine({ strategy: calibrated({ epochReset: reset }) });
    for (let h = 1; h <= 300; h++) engine.ingest(cleared(h, 5000, 1));
    const before = engine.snapshot()!.promises!.prioritized.bids;
    engine.ingest(cleared(301, 200, 2));
    const first = engine.snapshot()!;
    for (let h = 302; h <= 330; h++) engine.ingest(cleared(h, 200, 2));
    return { before, first, last: engine.snapshot()! };
  };

  it("an epoch change empties the windows: no price of the old epoch is served", () => {
    for (const reset of ["windows", "all"] as const) {
      const { first, last } = twoEpochs(reset);
      // The new epoch's first block is still held back (skipLatestBlock): nothing to go on yet.
      expect(first.estimate).toEqual({ deprioritized: 100n, regular: 100n, prioritized: 100n });
      expect(last.estimate!.prioritized).toBeLessThan(1000n);
      // Prices of the new epoch only (or below its lowest: a level under 0 extends downwards).
      expect(last.estimate!.deprioritized).toBeLessThanOrEqual(200n);
    }
  });

  it("the observed record keeps counting across epochs; bids waiting at the change are dropped", () => {
    const { before, last } = twoEpochs("windows");
    // 300 estimates served, the last two waiting for their outcome.
    expect(before).toBe(298);
    // The estimate served before the new epoch's first block is handed over counts too: 30
    // served since the change, 28 settled.
    expect(last.promises!.prioritized.bids).toBe(298 + 28);
  });
});

describe("calibrated: memory", () => {
  it("retains no more heap after 200,000 blocks than after 20,000 (fresh process, exact GC)", () => {
    // Runs against the built package in a child with --expose-gc, so the readings are exact.
    // The first reading comes after 20,000 blocks, not sooner: until then the JIT is still
    // compiling and dropping code, which moves the heap by up to ~80 KiB either way.
    const script = `
      import { calibrated, parseGasConfig } from ${JSON.stringify(new URL("../../dist/index.js", import.meta.url).href)};
      const strategy = calibrated()(parseGasConfig({}));
      let seed = 5;
      const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
      const blockAt = (h) => ({ height: BigInt(h), epoch: 1n, gasUnitPrices: [BigInt(100 + Math.floor(rnd() * 900)), 5000n, 7000n],
        blockGasLimitReached: true });
      const heap = () => { gc(); gc(); return process.memoryUsage().heapUsed; };
      for (let h = 1; h <= 20000; h++) strategy.ingest(blockAt(h));
      strategy.estimate(100n);
      const early = heap();
      for (let h = 20001; h <= 200000; h++) strategy.ingest(blockAt(h));
      strategy.estimate(100n);
      const late = heap();
      process.stdout.write(JSON.stringify({ early, late }));
    `;
    const r = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(r.stderr).toBe("");
    const { early, late } = JSON.parse(r.stdout) as { early: number; late: number };
    // One leaked object per block (16 bytes at least) would be 2.9 MB over 180,000 blocks;
    // the steady state measures about 14 KiB. 256 KiB leaves room for noise, not for a leak.
    expect(late - early).toBeLessThan(256 * 1024);
  }, 60_000);
});

describe("calibrated: by name", () => {
  it("is selectable as --strategy calibrated with a config block", () => {
    const f = resolveStrategy("calibrated", {
      calibrated: { tiers: { prioritized: { probability: 0.995 } } },
    });
    const engine = createEngine({ strategy: f });
    for (let h = 1; h <= 5; h++) engine.ingest(fullBlock(h, 300));
    expect(engine.snapshot()!.promises!.prioritized.probability).toBe(0.995);
    expect(engine.strategyName).toBe("calibrated");
  });
});
