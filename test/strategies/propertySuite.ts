import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { U64_MAX } from "../../src/core/u64.js";
import {
  type BlockSampleInput,
  createEngine,
  type GasConfigInput,
  type Strategy,
  type StrategyFactory,
  TIERS,
} from "../../src/index.js";
import { atHeight } from "../helpers/blocks.js";
import { fcParams } from "../helpers/fcSeed.js";

/** FC_SEED or a fresh seed (printed): a failure prints its seed and path and replays exactly. */
export const PROPERTY_PARAMS = fcParams(60);

const price = fc.oneof(
  { weight: 6, arbitrary: fc.constant(100) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 1_200 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 5_000_000 }) },
);

interface BlockShape {
  prices: number[];
  gasUsed: number[];
  flag: boolean | null;
  limit: number | null;
  majority: number | null;
  min: number | null;
  gap: number;
}

const blockShape: fc.Arbitrary<BlockShape> = fc
  .record({
    n: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 240, max: 260 })),
    flag: fc.option(fc.boolean(), { nil: null }),
    limit: fc.option(fc.integer({ min: 1, max: 300_000 }), { nil: null }),
    majority: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
    min: fc.option(fc.constantFrom(50, 100, 150), { nil: null }),
    gap: fc.integer({ min: 1, max: 3 }),
  })
  .chain((r) =>
    fc
      .tuple(
        fc.array(price, { minLength: r.n, maxLength: r.n }),
        fc.array(fc.integer({ min: 1, max: 2_000 }), { minLength: r.n, maxLength: r.n }),
      )
      .map(([prices, gasUsed]) => ({ ...r, prices, gasUsed })),
  );

/** A history: heights increase (with gaps), epochs change now and then (about 1 in 15). */
export const historyArb = fc
  .array(fc.tuple(blockShape, fc.integer({ min: 0, max: 14 })), { minLength: 1, maxLength: 80 })
  .map((items) => {
    let height = 0;
    let epoch = 1;
    return items.map(([b, roll]) => {
      height += b.gap;
      if (roll === 0) epoch++;
      return toWire(b, height, epoch);
    });
  });

function toWire(b: BlockShape, height: number, epoch: number): BlockSampleInput {
  return {
    height: String(height),
    epoch: String(epoch),
    timestamp_usec: String(1_700_000_000_000_000 + height * 250_000),
    first_version: String(height * 1000),
    last_version: String(height * 1000 + 999),
    chain_id: 4,
    gas_unit_prices: b.prices.map(String),
    gas_used: b.gasUsed.map(String),
    block_gas_limit_reached: b.flag,
    block_gas_limit: b.limit === null ? null : String(b.limit),
    majority_use_case_fraction: b.majority,
    min_gas_unit_price: b.min === null ? null : String(b.min),
  };
}

const configArb: fc.Arbitrary<GasConfigInput> = fc
  .record({
    agg: fc.integer({ min: 1, max: 40 }),
    low: fc.integer({ min: 1, max: 40 }),
    market: fc.integer({ min: 1, max: 40 }),
    skipLatestBlock: fc.boolean(),
  })
  .map((c) => ({
    aggressiveBlockHistory: Math.max(c.agg, c.low, c.market),
    lowBlockHistory: c.low,
    marketBlockHistory: c.market,
    skipLatestBlock: c.skipLatestBlock,
  }));

type Estimates = string[];

/** The served estimate after every block, as "low/regular/prioritized" (throws a failure). */
export function run(
  factory: StrategyFactory,
  history: BlockSampleInput[],
  config: GasConfigInput = {},
): Estimates {
  const engine = createEngine({ strategy: factory, config });
  return history.map((b) => {
    engine.ingest(b);
    const s = engine.snapshot()!;
    if (!s.estimate) throw s.failure;
    return `${s.estimate.deprioritized}/${s.estimate.regular}/${s.estimate.prioritized}`;
  });
}

/** Deterministic shuffle (reverse + rotate) of a block's transactions, gas_used alongside. */
function permute(b: BlockSampleInput, k: number): BlockSampleInput {
  const idx = b.gas_unit_prices.map((_, i) => i).reverse();
  const rot = idx.length ? k % idx.length : 0;
  const order = [...idx.slice(rot), ...idx.slice(0, rot)];
  return {
    ...b,
    gas_unit_prices: order.map((i) => b.gas_unit_prices[i]!),
    gas_used: b.gas_used ? order.map((i) => b.gas_used![i]!) : b.gas_used,
  };
}

/** How a strategy departs from the defaults of the shared suite. */
export interface PropertySuiteOptions {
  /** The estimate an idle chain gives, as "low/regular/prioritized". @default `${min}/${min}/${nextBucket(min)}` */
  idle?: (min: number) => string;
  /**
   * The factory checked by "depends only on the current epoch's blocks", when the strategy's
   * default keeps something across epochs on purpose (calibrated keeps its learned levels).
   * @default the factory itself
   */
  epochFactory?: StrategyFactory;
}

/**
 * The properties every strategy must hold. Call it from the strategy's test file.
 *
 * @example strategyPropertySuite("aip34", aip34());
 */
export function strategyPropertySuite(
  name: string,
  factory: StrategyFactory,
  options: PropertySuiteOptions = {},
): void {
  const epochFactory = options.epochFactory ?? factory;
  describe(`${name}: shared property suite`, () => {
    it("low <= regular <= prioritized, none below the minimum price, after every block", () => {
      fc.assert(
        fc.property(historyArb, configArb, (history, config) => {
          // The strategy itself is asked (the engine would turn a bad estimate into a failure).
          let strategy: Strategy | undefined;
          const spy: StrategyFactory = (c) => {
            strategy = factory(c);
            return strategy;
          };
          const engine = createEngine({ strategy: spy, config });
          for (const b of history) {
            engine.ingest(b);
            const min = engine.snapshot()!.minGasUnitPrice;
            const e = strategy!.estimate(min);
            for (const tier of TIERS) expect(typeof e[tier]).toBe("bigint");
            expect(e.deprioritized).toBeGreaterThanOrEqual(min);
            expect(e.regular).toBeGreaterThanOrEqual(e.deprioritized);
            expect(e.prioritized).toBeGreaterThanOrEqual(e.regular);
            expect(e.prioritized).toBeLessThanOrEqual(U64_MAX);
            // And the engine served that estimate, asked once per block.
            expect(engine.snapshot()!.estimate).toEqual(e);
          }
        }),
        PROPERTY_PARAMS,
      );
    });

    it("is deterministic: the same history gives the same estimates", () => {
      fc.assert(
        fc.property(historyArb, configArb, (history, config) => {
          expect(run(factory, history, config)).toEqual(run(factory, history, config));
        }),
        PROPERTY_PARAMS,
      );
    });

    it("a permutation of a block's transactions changes nothing", () => {
      fc.assert(
        fc.property(historyArb, fc.nat(), (history, k) => {
          expect(
            run(
              factory,
              history.map((b) => permute(b, k)),
            ),
          ).toEqual(run(factory, history));
        }),
        PROPERTY_PARAMS,
      );
    });

    it("an idle chain gives its idle estimate (by default min, min, nextBucket(min))", () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 200 }), fc.constantFrom(100, 150, 1000), (n, min) => {
          const idle = Array.from(
            { length: n },
            (_, i): BlockSampleInput => ({
              height: String(i + 1),
              epoch: "3",
              min_gas_unit_price: String(min),
              gas_unit_prices: [String(min), String(min * 2)],
            }),
          );
          const next = { 100: 150, 150: 300, 1000: 3000 }[min];
          const expected = options.idle?.(min) ?? `${min}/${min}/${next}`;
          for (const e of run(factory, idle)) expect(e).toBe(expected);
        }),
        PROPERTY_PARAMS,
      );
    });

    it("depends only on the current epoch's blocks", () => {
      fc.assert(
        fc.property(historyArb, historyArb, historyArb, (before1, before2, current) => {
          // Two different pasts, then the same blocks of a later epoch.
          const lastOf = (h: BlockSampleInput[]) => Number(h[h.length - 1]!.height);
          const epochOf = (h: BlockSampleInput[]) => Number(h[h.length - 1]!.epoch);
          const base = Math.max(lastOf(before1), lastOf(before2));
          // The next epoch of either past, after a gap of as many heights (a chain changes
          // epoch at most once per block).
          const epoch = Math.max(epochOf(before1), epochOf(before2)) + 1;
          const tail = current.map((b, i) => ({
            ...atHeight(b, base + epoch + i),
            epoch: String(epoch),
          }));
          const a = run(epochFactory, [...before1, ...tail]).slice(before1.length);
          const b = run(epochFactory, [...before2, ...tail]).slice(before2.length);
          expect(a).toEqual(b);
        }),
        PROPERTY_PARAMS,
      );
    });
  });
}
