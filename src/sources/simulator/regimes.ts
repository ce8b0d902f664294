import type { Prng } from "./prng.js";

/** A demand regime of the simulated chain. */
export type Regime = "quiet" | "busy" | "spike";

/** Which mix of regimes a simulation runs. */
export type Scenario = "quiet" | "busy" | "spike" | "mixed";

/** The scenarios, in documentation order. */
export const SCENARIOS: readonly Scenario[] = ["quiet", "busy", "spike", "mixed"];

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
  lengths: Readonly<Record<Regime, Range>>;
  /** Next regime after each one: list of [regime, weight]. */
  next: Readonly<Record<Regime, readonly (readonly [Regime, number])[]>>;
}

const PLANS: Readonly<Record<Scenario, Plan>> = {
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
  const draw = (regime: Regime, [lo, hi]: Range): RegimeSegment => ({
    regime,
    length: rng.int(lo, hi),
    intensity: rng.uniform(0.75, 1.25),
  });
  let segment = draw(plan.first, plan.firstLength);
  let index = 0;
  let left = segment.length;

  function following(current: Regime): Regime {
    if (scenario === "mixed" && index === 0) return "busy";
    const options = plan.next[current];
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
        segment = draw(regime, plan.lengths[regime]);
        index++;
        left = segment.length;
      }
      left--;
      return segment;
    },
  };
}
