import type { Tier } from "../core/tiers.js";
import type { StrategyFactory } from "../core/types.js";
import { aip34 } from "../strategies/aip34.js";
import type { CalibratedOptions } from "../strategies/calibrated/options.js";
import { calibrated } from "../strategies/calibrated.js";
import { type GethOptions, geth } from "../strategies/geth.js";
import { type LastBlockOptions, lastBlock } from "../strategies/lastBlock.js";
import type { StrategySettings } from "../strategies/registry.js";
import { tdigest } from "../strategies/tdigest.js";
import type { TDigestStrategyOptions } from "../strategies/tdigestOptions.js";
import type { BacktestStrategy } from "./createBacktest.js";
import { HORIZONS } from "./types.js";

/** Blocks a frontier is drawn for: inclusion within 1, 3 and 10 blocks. */
export type Horizon = (typeof HORIZONS)[number];

/** The tier whose horizon is `k` by convention: prioritized next block, regular in 3, deprioritized in 10. */
export const HORIZON_TIER: Readonly<Record<Horizon, Tier>> = Object.freeze({
  1: "prioritized",
  3: "regular",
  10: "deprioritized",
});

/** A strategy's own knob, swept to draw its frontier. */
export interface FrontierKnob {
  /** What the knob is (`probability`, `percentile`, `quantile`, `multiplier`). */
  readonly name: string;
  /** The values swept, in the order that raises the bid. */
  readonly values: readonly number[];
  /** Whether the bid depends on the horizon scored (a promise names its blocks). */
  readonly perHorizon: boolean;
  /** The strategy at one knob value; its `regular` tier is the bid scored. */
  make(value: number, horizon: Horizon, settings: StrategySettings): StrategyFactory;
}

/** The knob of each built-in strategy that has one; `aip34` has none (a single point per tier). */
export const FRONTIER_KNOBS: Readonly<Record<string, FrontierKnob>> = Object.freeze({
  calibrated: {
    name: "probability",
    values: [0.5, 0.7, 0.8, 0.85, 0.9, 0.925, 0.95, 0.97, 0.98, 0.99, 0.995, 0.999],
    perHorizon: true,
    make: (p, k, s) => {
      const promise = { withinBlocks: k, probability: p };
      return calibrated({
        ...(s.calibrated as CalibratedOptions),
        tiers: { deprioritized: promise, regular: promise, prioritized: promise },
      });
    },
  },
  geth: {
    name: "percentile",
    values: [
      0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95, 97, 99, 100,
    ],
    perHorizon: false,
    make: (p, _k, s) =>
      geth({
        ...(s.geth as GethOptions),
        percentiles: { deprioritized: p, regular: p, prioritized: p },
      }),
  },
  tdigest: {
    name: "quantile",
    values: [
      0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8,
      0.85, 0.9, 0.95, 0.97, 0.99, 1,
    ],
    perHorizon: false,
    make: (q, _k, s) => (config) => {
      const o = (s.tdigest ?? {}) as TDigestStrategyOptions;
      // Only the quantile is the knob: the regular tier keeps its window and sample. The
      // deprioritized tier reads the minimum of that same window (one shared digest): the
      // minimum of its own, shorter window (10 blocks against 30 by default) is often above a
      // low quantile of the regular one, and would lift the swept bid (tiers are monotone).
      const regular = {
        ...o.tiers?.regular,
        windowBlocks: o.tiers?.regular?.windowBlocks ?? config.marketBlockHistory,
      };
      return tdigest({
        ...o,
        tiers: {
          ...o.tiers,
          deprioritized: { ...regular, quantile: 0 },
          regular: { ...regular, quantile: q },
        },
      })(config);
    },
  },
  "last-block": {
    name: "multiplier",
    values: [
      1, 1.05, 1.1, 1.15, 1.2, 1.25, 1.35, 1.5, 1.75, 2, 2.5, 3, 4, 5, 7, 10, 15, 20, 30, 50,
    ],
    perHorizon: false,
    make: (m, _k, s) => lastBlock({ ...(s["last-block"] as LastBlockOptions), multiplier: m }),
  },
});

/** One lane of a frontier run: which strategy, at which knob value, scored for which horizons. */
export interface FrontierLane {
  readonly strategy: string;
  /** `undefined` for a strategy without a knob (its own tiers are the points). */
  readonly value: number | undefined;
  readonly horizons: readonly Horizon[];
  /** Label of the lane in the backtest. */
  readonly label: string;
}

/** The lanes to run for a frontier, and the backtest strategies that run them. */
export interface FrontierPlan {
  readonly lanes: readonly FrontierLane[];
  readonly strategies: readonly BacktestStrategy[];
}

/**
 * Plan a frontier: for each named strategy with a knob, one lane per knob value (and per
 * horizon when the bid depends on it), each scored on its `regular` tier; a strategy without
 * one (aip34, your own) runs once and each of its tiers is a point. `factories` gives each
 * name's default factory (for strategies without a knob).
 *
 * @example
 * const plan = planFrontier(["aip34", "calibrated"], { aip34: aip34() }, {});
 */
export function planFrontier(
  names: readonly string[],
  factories: Readonly<Record<string, StrategyFactory>>,
  settings: StrategySettings,
): FrontierPlan {
  const lanes: FrontierLane[] = [];
  const strategies: BacktestStrategy[] = [];
  for (const name of names) {
    const knob = FRONTIER_KNOBS[name];
    if (!knob) {
      const label = `${name} (frontier)`;
      lanes.push({ strategy: name, value: undefined, horizons: [...HORIZONS], label });
      strategies.push({ name: label, strategy: factories[name] ?? aip34() });
      continue;
    }
    const groups: Horizon[][] = knob.perHorizon ? HORIZONS.map((k) => [k]) : [[...HORIZONS]];
    for (const horizons of groups)
      for (const value of knob.values) {
        const label = `${name}@${value}${knob.perHorizon ? `/in${horizons[0]}` : ""}`;
        lanes.push({ strategy: name, value, horizons, label });
        strategies.push({ name: label, strategy: knob.make(value, horizons[0]!, settings) });
      }
  }
  return { lanes, strategies };
}
