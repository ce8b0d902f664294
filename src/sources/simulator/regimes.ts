import type { Prng } from "./prng.js";

/** A demand regime of the simulated chain. */
export type Regime = "quiet" | "busy" | "spike" | "congested";

/** Which mix of regimes a simulation runs. */
export type Scenario = "quiet" | "busy" | "spike" | "mixed" | "congested";

/** The scenarios, in documentation order. */
export const SCENARIOS: readonly Scenario[] = ["quiet", "busy", "spike", "mixed", "congested"];

/** How users behave in a regime. Rates are per block, as a multiple of the block capacity. */
export interface RegimeParams {
  /** Mean arrivals per block, as a multiple of `blockCapacity`. */
  readonly arrivalRate: number;
  /** Share of arrivals bidding exactly the minimum gas unit price. */
  readonly atMinShare: number;
  /** Median bid of the others, as a multiple of the minimum price. */
  readonly bidMedian: number;
  /** Log-space spread of those bids. */
  readonly bidSigma: number;
  /**
   * Round prices wallets and exchanges default to, as multiples of the minimum price with their
   * weights, and the share of the other bids that use one (the rest are log-normal). Real
   * first-price chains clear on such price points (20, 21, 25, 40 gwei in December 2017).
   */
  readonly pricePoints?: {
    readonly share: number;
    readonly points: readonly (readonly [multiple: number, weight: number])[];
  };
  /** Range of the per-segment multiplier on the arrival rate. @default [0.75, 1.25] */
  readonly intensity?: readonly [min: number, max: number];
  /**
   * How block producers behave; absent in the regimes modelled on a chain whose leader takes
   * the highest bids of the whole pool (quiet, busy, spike).
   */
  readonly producers?: ProducerParams;
}

/**
 * What block producers of a first-price auction chain do, as seen on Ethereum in December 2017
 * (docs/backtest.md compares the statistics): some blocks are produced short, some carry the
 * producer's own transaction at the minimum price, and each producer sees only part of the pool.
 */
export interface ProducerParams {
  /** Chance that a block is produced short (5-90 % of capacity), so it is not full. */
  readonly shortChance: number;
  /** Chance that a full block carries one producer transaction at the minimum price. */
  readonly ownChance: number;
  /**
   * Producers' reserve prices (multiples of the minimum, with weights): each block's producer
   * takes the pending transactions paying at least its reserve, as they reached it, not the
   * highest first (mining pools of 2017 had their own minimum prices).
   */
  readonly reserve: readonly (readonly [multiple: number, weight: number])[];
}

/**
 * Quiet: a quarter of capacity arrives, nearly everyone bids the minimum, blocks are never
 * full. Busy: 1.5× capacity arrives, most bid 1.5×-4× the minimum, the backlog grows and
 * the highest bids win. Spike: 4× capacity arrives bidding around 15× the minimum.
 */
export const REGIMES: Readonly<Record<Regime, RegimeParams>> = Object.freeze({
  quiet: { arrivalRate: 0.25, atMinShare: 0.9, bidMedian: 1.5, bidSigma: 0.35 },
  busy: { arrivalRate: 1.5, atMinShare: 0.2, bidMedian: 2.5, bidSigma: 0.5 },
  spike: { arrivalRate: 4, atMinShare: 0.05, bidMedian: 15, bidSigma: 0.6 },
  congested: {
    arrivalRate: 1.39,
    intensity: [0.36, 4.11],
    atMinShare: 0.02,
    bidMedian: 11.44,
    bidSigma: 0.71,
    pricePoints: {
      share: 0.55,
      points: [
        [4, 1.17],
        [5, 1.1],
        [8, 2.16],
        [10, 7.41],
        [12, 0.82],
        [15, 1.27],
        [20, 1.82],
        [21, 2.47],
        [25, 2.57],
        [30, 1.44],
        [40, 1.81],
        [50, 1.49],
      ],
    },
    producers: {
      shortChance: 0.08,
      ownChance: 0.09,
      reserve: [
        [1, 1.78],
        [4, 0.95],
        [8, 0.8],
        [10, 3.55],
        [15, 0.76],
        [20, 2],
        [21, 2.57],
        [25, 2.52],
        [40, 1.48],
      ],
    },
  },
});

/** A stretch of blocks in one regime. */
export interface RegimeSegment {
  readonly regime: Regime;
  /** Blocks the segment lasts. */
  readonly length: number;
  /** Multiplier on the regime's arrival rate for this segment (0.75..1.25). */
  readonly intensity: number;
}

type Range = readonly [min: number, max: number];
interface Plan {
  first: Regime;
  firstLength: Range;
  lengths: Readonly<Partial<Record<Regime, Range>>>;
  /** Next regime after each one: list of [regime, weight]. */
  next: Readonly<Partial<Record<Regime, readonly (readonly [Regime, number])[]>>>;
}

const PLANS: Readonly<Record<Scenario, Plan>> = {
  // A first-price chain under sustained congestion (producers behave as on Ethereum, 2017).
  congested: {
    first: "congested",
    firstLength: [200, 600],
    lengths: { congested: [30, 300] },
    next: { congested: [["congested", 1]] },
  },
  // Mostly quiet, with short busy bursts (a few per cent of blocks).
  quiet: {
    first: "quiet",
    firstLength: [200, 600],
    lengths: { quiet: [200, 600], busy: [5, 20], spike: [5, 10] },
    next: { quiet: [["busy", 1]], busy: [["quiet", 1]], spike: [["quiet", 1]] },
  },
  // Mostly busy, with short lulls.
  busy: {
    first: "busy",
    firstLength: [200, 600],
    lengths: { quiet: [10, 40], busy: [200, 600], spike: [10, 40] },
    next: { quiet: [["busy", 1]], busy: [["quiet", 1]], spike: [["busy", 1]] },
  },
  // Quiet with periodic spikes.
  spike: {
    first: "quiet",
    firstLength: [30, 80],
    lengths: { quiet: [60, 200], busy: [10, 40], spike: [10, 40] },
    next: { quiet: [["spike", 1]], busy: [["quiet", 1]], spike: [["quiet", 1]] },
  },
  // Everything: a short quiet start, then busy, then random transitions.
  mixed: {
    first: "quiet",
    firstLength: [20, 60],
    lengths: { quiet: [40, 160], busy: [40, 160], spike: [10, 40] },
    next: {
      quiet: [
        ["busy", 0.6],
        ["spike", 0.4],
      ],
      busy: [
        ["quiet", 0.5],
        ["spike", 0.5],
      ],
      spike: [
        ["quiet", 0.6],
        ["busy", 0.4],
      ],
    },
  },
};

/** Per-block view of a regime schedule. */
export interface RegimeSchedule {
  /** The segment the next block belongs to (advances one block per call). */
  next(): RegimeSegment;
}

/**
 * The seeded sequence of regimes a scenario runs through. Call `next()` once per block.
 * In `mixed`, the first segment is quiet (20-60 blocks) and the second is always busy, so a
 * 250 ms chain shows full blocks within its first minute.
 *
 * @example
 * const schedule = createRegimeSchedule("mixed", createPrng(1, 1));
 * schedule.next().regime; // "quiet"
 */
export function createRegimeSchedule(scenario: Scenario, rng: Prng): RegimeSchedule {
  const plan = PLANS[scenario];
  const draw = (regime: Regime, [lo, hi]: Range): RegimeSegment => {
    const [a, b] = REGIMES[regime].intensity ?? [0.75, 1.25];
    return { regime, length: rng.int(lo, hi), intensity: rng.uniform(a, b) };
  };
  let segment = draw(plan.first, plan.firstLength);
  let index = 0;
  let left = segment.length;

  function following(current: Regime): Regime {
    if (scenario === "mixed" && index === 0) return "busy";
    const options = plan.next[current]!;
    let total = 0;
    for (const [, w] of options) total += w;
    let r = rng.float() * total;
    for (const [regime, w] of options) {
      r -= w;
      if (r < 0) return regime;
    }
    return options[options.length - 1]![0];
  }

  return {
    next() {
      if (left === 0) {
        const regime = following(segment.regime);
        segment = draw(regime, plan.lengths[regime]!);
        index++;
        left = segment.length;
      }
      left--;
      return segment;
    },
  };
}
