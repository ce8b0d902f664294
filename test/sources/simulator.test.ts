import { lastValueFrom, take, toArray } from "rxjs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type BlockSample, serializeBlockSample } from "../../src/core/blockSample.js";
import { createEngine } from "../../src/core/createEngine.js";
import { InvalidConfigError } from "../../src/core/errors.js";
import { blockFullness, minPrice } from "../../src/core/fullness.js";
import { createMempool, type SimTxn } from "../../src/sources/simulator/mempool.js";
import { createPrng, createPrngFromState } from "../../src/sources/simulator/prng.js";
import { createRegimeSchedule, type Regime } from "../../src/sources/simulator/regimes.js";
import {
  FAST_CHUNK_BLOCKS,
  type SimulatorOptions,
  simulateBlocks,
  simulator,
} from "../../src/sources/simulator.js";
import { aip34 } from "../../src/strategies/aip34.js";

const run = (options: SimulatorOptions) => [...simulateBlocks(options)];
const ndjson = (blocks: readonly BlockSample[]) => blocks.map(serializeBlockSample).join("\n");
const fullShare = (blocks: readonly BlockSample[]) =>
  blocks.filter((b) => b.blockGasLimitReached).length / blocks.length;
const median = (xs: readonly bigint[]) =>
  [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[xs.length >> 1]!;

afterEach(() => {
  vi.useRealTimers();
});

describe("prng", () => {
  it("matches the xoshiro128** reference output from state {1,2,3,4}", () => {
    const rng = createPrngFromState([1, 2, 3, 4]);
    const out = Array.from({ length: 10 }, () => rng.nextU32());
    expect(out).toEqual([
      11520, 0, 5927040, 70819200, 2031721883, 1637235492, 1287239034, 3734860849, 3729100597,
      4258142804,
    ]);
  });

  it("repeats for a seed, and differs across seeds and streams", () => {
    const draw = (seed: number, stream?: number) => {
      const rng = createPrng(seed, stream);
      return Array.from({ length: 8 }, () => rng.nextU32());
    };
    expect(draw(1)).toEqual(draw(1));
    expect(draw(1)).not.toEqual(draw(2));
    expect(draw(1, 1)).not.toEqual(draw(1, 2));
    expect(draw(2 ** 40)).not.toEqual(draw(2 ** 40 + 1));
  });

  it("keeps draws in range", () => {
    const rng = createPrng(42);
    const floats = Array.from({ length: 10_000 }, () => rng.float());
    expect(floats.every((f) => f >= 0 && f < 1)).toBe(true);
    const ints = new Set(Array.from({ length: 10_000 }, () => rng.int(5, 9)));
    expect([...ints].sort()).toEqual([5, 6, 7, 8, 9]);
    const mean = Array.from({ length: 2000 }, () => rng.poisson(4)).reduce((a, b) => a + b) / 2000;
    expect(mean).toBeGreaterThan(3.7);
    expect(mean).toBeLessThan(4.3);
  });
});

describe("mempool", () => {
  const txn = (price: number, expiresAt = 100, contract = 0): SimTxn => ({
    price,
    gasUsed: 10,
    contract,
    expiresAt,
  });

  it("takes the highest bids, first come first served on ties, and evicts the lowest beyond its capacity", () => {
    const pool = createMempool(2);
    const first = pool.build([txn(100, 100, 1), txn(300), txn(100, 100, 2), txn(200)], 0, 1);
    expect(first.txns.map((t) => t.price)).toEqual([300]);
    expect(pool.size).toBe(2);
    expect(first.evicted).toBe(1);
    // The pool kept 200 and the earlier of the two 100s; a later 100 queues behind it.
    const second = pool.build([txn(100, 100, 3)], 1, 2);
    expect(second.txns.map((t) => [t.price, t.contract])).toEqual([
      [200, 0],
      [100, 1],
    ]);
  });

  it("orders huge bids the same way as ordinary ones", () => {
    const order = (scale: number) => {
      const pool = createMempool(0);
      const bids = [3, 1, 2, 3, 1, 2].map((p, k) => txn(p * scale, 100, k));
      return pool.build(bids, 0, 6).txns.map((t) => t.contract);
    };
    expect(order(100)).toEqual([0, 3, 2, 5, 1, 4]);
    expect(order(2 ** 40)).toEqual(order(100));
  });

  it("drops expired transactions", () => {
    const pool = createMempool(10);
    pool.build([txn(500, 0), txn(400, 5), txn(300, 5)], 0, 0);
    expect(pool.size).toBe(3);
    const later = pool.build([], 3, 10);
    expect(later.expired).toBe(1);
    expect(later.txns.map((t) => t.price)).toEqual([400, 300]);
  });
});

describe("regime schedule", () => {
  it("starts mixed with a short quiet stretch followed by busy", () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const schedule = createRegimeSchedule("mixed", createPrng(seed, 1));
      const regimes: Regime[] = Array.from({ length: 240 }, () => schedule.next().regime);
      const firstLoad = regimes.findIndex((r) => r !== "quiet");
      expect(firstLoad).toBeGreaterThanOrEqual(20);
      expect(firstLoad).toBeLessThanOrEqual(60);
      expect(regimes[firstLoad]).toBe("busy");
    }
  });

  it("keeps the quiet scenario mostly quiet and visits every regime in mixed", () => {
    const share = (scenario: "quiet" | "mixed", regime: Regime) => {
      const schedule = createRegimeSchedule(scenario, createPrng(9, 1));
      let n = 0;
      for (let k = 0; k < 20_000; k++) if (schedule.next().regime === regime) n++;
      return n / 20_000;
    };
    expect(share("quiet", "quiet")).toBeGreaterThan(0.9);
    // Spikes are short (10-40 blocks) by design; quiet and busy stretches are long.
    expect(share("mixed", "quiet")).toBeGreaterThan(0.25);
    expect(share("mixed", "busy")).toBeGreaterThan(0.25);
    expect(share("mixed", "spike")).toBeGreaterThan(0.05);
  });
});

describe("simulateBlocks", () => {
  it("gives the same blocks, byte for byte, for the same seed, and different ones for another", () => {
    const a = ndjson(run({ seed: 7, blocks: 400 }));
    expect(ndjson(run({ seed: 7, blocks: 400 }))).toBe(a);
    expect(ndjson(run({ seed: 8, blocks: 400 }))).not.toBe(a);
    expect(a.split("\n")).toHaveLength(400);
  });

  it("stays within capacity, flags full blocks, and carries chain id, minimum price and gas", () => {
    for (const [scenario, blockCapacity] of [
      ["spike", 250],
      ["busy", 40],
    ] as const) {
      const blocks = run({ scenario, blockCapacity, blocks: 600, seed: 3 });
      const problems: string[] = [];
      for (const b of blocks) {
        const n = b.gasUnitPrices.length;
        if (n > blockCapacity) problems.push(`${b.height}: ${n} txns`);
        if (b.blockGasLimitReached !== (n === blockCapacity))
          problems.push(`${b.height}: full flag`);
        if (b.chainId !== 4 || b.minGasUnitPrice !== 100n) problems.push(`${b.height}: chain`);
        if (b.gasUsed?.length !== n) problems.push(`${b.height}: gas_used length`);
        if (b.gasUnitPrices.some((p) => p < 100n || p > 1_000_000n))
          problems.push(`${b.height}: price`);
        if (b.gasUsed?.some((g) => g < 5n || g > 2000n)) problems.push(`${b.height}: gas`);
      }
      expect(problems).toEqual([]);
      expect(blocks.some((b) => b.blockGasLimitReached)).toBe(true);
    }
  });

  it("numbers heights, versions and timestamps contiguously", () => {
    const blocks = run({ blocks: 500, startHeight: 1000, startVersion: "5000", seed: 2 });
    expect(blocks[0]!.height).toBe(1000n);
    expect(blocks[0]!.firstVersion).toBe(5000n);
    expect(blocks[0]!.timestampUsec).toBe(1_700_000_000_000_000n);
    for (let k = 0; k < blocks.length; k++) {
      const b = blocks[k]!;
      // Block metadata + user transactions + epilogue.
      expect(b.lastVersion! - b.firstVersion!).toBe(BigInt(b.gasUnitPrices.length + 1));
      if (k === 0) continue;
      const prev = blocks[k - 1]!;
      expect(b.height).toBe(prev.height + 1n);
      expect(b.firstVersion).toBe(prev.lastVersion! + 1n);
      expect(b.timestampUsec! - prev.timestampUsec!).toBe(250_000n);
    }
    const fast = run({ blocks: 3, intervalMs: 1000, startTimeUsec: 5, startHeight: 10 });
    expect(fast.map((b) => b.timestampUsec)).toEqual([5n, 1_000_005n, 2_000_005n]);
    expect(fast[0]!.firstVersion).toBe(20n);
  });

  it("changes epoch every epochLength blocks", () => {
    const blocks = run({ blocks: 260, epochLength: 50, startHeight: 0, scenario: "quiet" });
    const changes: bigint[] = [];
    for (let k = 1; k < blocks.length; k++)
      if (blocks[k]!.epoch !== blocks[k - 1]!.epoch) {
        expect(blocks[k]!.epoch).toBe(blocks[k - 1]!.epoch + 1n);
        changes.push(blocks[k]!.height);
      }
    expect(changes).toEqual([50n, 100n, 150n, 200n, 250n]);
    expect(blocks[0]!.epoch).toBe(1n);
  });

  it("fills blocks under busy and spike load but hardly ever when quiet", () => {
    const quiet = run({ scenario: "quiet", blocks: 3000, seed: 11 });
    const busy = run({ scenario: "busy", blocks: 3000, seed: 11 });
    const spike = run({ scenario: "spike", blocks: 3000, seed: 11 });
    expect(fullShare(quiet)).toBeLessThan(0.1);
    expect(fullShare(busy)).toBeGreaterThan(0.8);
    expect(fullShare(spike)).toBeGreaterThan(0.05);
    expect(fullShare(spike)).toBeLessThan(0.6);
    // Quiet users bid the minimum; under load they bid up, and spikes clear far higher.
    expect(median(quiet.flatMap((b) => b.gasUnitPrices))).toBe(100n);
    expect(median(busy.flatMap((b) => b.gasUnitPrices))).toBeGreaterThan(150n);
    const spikeClearing = spike
      .filter((b) => b.blockGasLimitReached)
      .map((b) => minPrice(b.gasUnitPrices));
    expect(spikeClearing.some((p) => p >= 1000n)).toBe(true);
  });

  it("sometimes lets one contract dominate a block, rarely", () => {
    const blocks = run({ blocks: 6000, seed: 5 });
    const dominated = blocks.filter((b) => (b.majorityUseCaseFraction ?? 0) > 0.5);
    expect(dominated.length).toBeGreaterThan(0);
    expect(dominated.length / blocks.length).toBeLessThan(0.03);
    // Some of them are full by count, so AIP-34's majority-use-case rule has work to do.
    const cfg = { fullBlockTxns: 250, incorporateReorderingEffects: true };
    expect(
      dominated.some((b) => b.gasUnitPrices.length >= 250 && !blockFullness(b, cfg).full),
    ).toBe(true);
    // The fraction is a share of the block's transactions: k / n for a whole k.
    const off = blocks.filter((b) => {
      const k = (b.majorityUseCaseFraction ?? 0) * b.gasUnitPrices.length;
      return Math.abs(k - Math.round(k)) > 1e-6 || (b.gasUnitPrices.length > 0 && k < 1);
    });
    expect(off).toEqual([]);
  });

  it("moves the aip34 estimate between regimes within the first 240 blocks (one minute at 250 ms)", () => {
    for (const seed of [1, 2, 3]) {
      const engine = createEngine({ strategy: aip34() });
      const seen = new Set<string>();
      let highest = 0n;
      let firstMove = 0;
      let i = 0;
      for (const b of simulateBlocks({ seed, blocks: 240 })) {
        engine.ingest(b);
        i++;
        const e = engine.snapshot()!.estimate!;
        const key = `${e.deprioritized}/${e.regular}/${e.prioritized}`;
        seen.add(key);
        if (firstMove === 0 && key !== "100/100/150") firstMove = i;
        if (e.regular > highest) highest = e.regular;
      }
      expect(seen.has("100/100/150")).toBe(true); // starts at the minimum
      expect(firstMove).toBeGreaterThan(0);
      expect(firstMove).toBeLessThanOrEqual(70); // within about 17 s
      expect(seen.size).toBeGreaterThanOrEqual(3);
      expect(highest).toBeGreaterThanOrEqual(300n);
      engine.close();
    }
  });

  it("stamps blocks with the wall clock when asked, strictly increasing", () => {
    const times = [1000, 1000, 999, 2000.5];
    const blocks = run({ blocks: 4, clock: "wall", now: () => times.shift()! });
    expect(blocks.map((b) => b.timestampUsec)).toEqual([
      1_000_000n,
      1_000_001n,
      1_000_002n,
      2_000_500n,
    ]);
  });

  it("a wall clock that throws or reads a time that is not one is an InvalidArgumentError naming now", () => {
    const cases: [() => number, string][] = [
      [() => Number.NaN, "must return a number of ms from 0 to 10000000000000000, got NaN"],
      [() => "123" as never, 'must return a number of ms from 0 to 10000000000000000, got "123"'],
      [() => 1e300, "must return a number of ms from 0 to 10000000000000000, got 1e+300"],
      [() => -1, "must return a number of ms from 0 to 10000000000000000, got -1"],
      [
        () => {
          throw new Error("clock broke");
        },
        "threw: Error: clock broke",
      ],
    ];
    for (const [now, message] of cases) {
      let error: unknown;
      try {
        run({ blocks: 1, clock: "wall", now });
      } catch (e) {
        error = e;
      }
      expect((error as Error).name).toBe("InvalidArgumentError");
      expect((error as Error).message).toBe(
        `invalid argument: now: the simulator's clock ${message}`,
      );
    }
  });

  it("rejects bad options, listing every problem", () => {
    const bad = {
      seed: -1,
      scenario: "calm",
      blocks: 2.5,
      intervalMs: -5,
      blockCapacity: 0,
      epochLength: 1.5,
      chainId: 300,
      minGasUnitPrice: 0,
      clock: "solar",
      startHeight: "x",
      colour: "red",
    } as unknown as SimulatorOptions;
    let error: unknown;
    try {
      simulateBlocks(bad);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidConfigError);
    expect((error as InvalidConfigError).issues).toEqual([
      { path: "seed", message: "must be an integer from 0 to 2^53-1", code: "custom" },
      {
        path: "scenario",
        message: 'must be one of "quiet", "busy", "spike", "mixed", "congested", got "calm"',
        code: "invalid_value",
      },
      {
        path: "blocks",
        message: "must be a whole number of blocks, got 2.5",
        code: "invalid_type",
      },
      { path: "intervalMs", message: "must not be negative", code: "too_small" },
      { path: "blockCapacity", message: "must be at least 1", code: "too_small" },
      {
        path: "startHeight",
        message: 'must be a decimal u64 string of digits only (got "x")',
        code: "custom",
      },
      {
        path: "epochLength",
        message: "must be a whole number of blocks, got 1.5",
        code: "invalid_type",
      },
      { path: "clock", message: 'must be "synthetic" or "wall"', code: "invalid_value" },
      { path: "chainId", message: "must be a chain id from 0 to 255", code: "too_big" },
      { path: "colour", message: "unknown field", code: "unrecognized_keys" },
      { path: "minGasUnitPrice", message: "must be from 1 to 1000000000, got 0", code: "custom" },
    ]);
    expect(() => simulator({ seed: 1.5 })).toThrow(
      "invalid configuration: seed: must be an integer from 0 to 2^53-1",
    );
    expect(() => simulator({ now: 3 as unknown as () => number })).toThrow(
      "now: must be a function returning ms",
    );
  });
});

describe("simulator()", () => {
  it("emits the same blocks as simulateBlocks, and each subscriber gets its own chain", async () => {
    const source = simulator({ intervalMs: 0, blocks: 450, seed: 4 });
    const [a, b] = await Promise.all([
      lastValueFrom(source.pipe(toArray())),
      lastValueFrom(source.pipe(toArray())),
    ]);
    expect(a).toHaveLength(450);
    expect(ndjson(a)).toBe(ndjson(run({ blocks: 450, seed: 4 })));
    expect(ndjson(b)).toBe(ndjson(a));
  });

  it("completes at once with blocks: 0", async () => {
    expect(await lastValueFrom(simulator({ blocks: 0 }).pipe(toArray()))).toEqual([]);
  });

  it("paces blocks on the interval and stops its timer on unsubscribe", () => {
    vi.useFakeTimers();
    const got: BlockSample[] = [];
    const sub = simulator({ intervalMs: 250 }).subscribe((b) => got.push(b));
    expect(got).toHaveLength(0); // asynchronous, even the first block
    vi.advanceTimersByTime(0);
    expect(got).toHaveLength(1); // the first block comes at once
    vi.advanceTimersByTime(1000);
    expect(got).toHaveLength(5);
    expect(got.map((b) => b.height)).toEqual([1n, 2n, 3n, 4n, 5n]);
    sub.unsubscribe();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10_000);
    expect(got).toHaveLength(5);
  });

  it("completes after `blocks` blocks without waiting for another tick", () => {
    vi.useFakeTimers();
    let done = false;
    const got: BlockSample[] = [];
    simulator({ intervalMs: 100, blocks: 3 }).subscribe({
      next: (b) => got.push(b),
      complete: () => (done = true),
    });
    vi.advanceTimersByTime(200);
    expect(got).toHaveLength(3);
    expect(done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("runs as fast as possible in chunks, yielding to the event loop, until unsubscribed", async () => {
    const got: BlockSample[] = [];
    const sub = simulator({ intervalMs: 0, scenario: "quiet" }).subscribe((b) => got.push(b));
    // Asynchronous: at most one chunk arrives during subscribe itself.
    expect(got.length).toBeLessThanOrEqual(FAST_CHUNK_BLOCKS);
    let ticks = 0;
    while (got.length < 3 * FAST_CHUNK_BLOCKS) {
      await new Promise((resolve) => setImmediate(resolve));
      ticks++;
    }
    expect(ticks).toBeGreaterThan(1); // other callbacks ran between chunks
    sub.unsubscribe();
    const stopped = got.length;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(got.length).toBe(stopped);
    const heights = got.map((b) => b.height);
    expect(heights[heights.length - 1]).toBe(BigInt(heights.length));
  });

  it("can be cut short with take()", async () => {
    const blocks = await lastValueFrom(simulator({ intervalMs: 0 }).pipe(take(3), toArray()));
    expect(blocks.map((b) => b.height)).toEqual([1n, 2n, 3n]);
  });
});
