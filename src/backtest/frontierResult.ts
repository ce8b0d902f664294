import { TIERS } from "../core/tiers.js";
import { FRONTIER_KNOBS, type FrontierPlan, HORIZON_TIER, type Horizon } from "./frontierPlan.js";
import { type BacktestResult, HORIZONS, type TierResult } from "./types.js";

/** Inclusion targets the frontier table reads every curve at. */
export const FRONTIER_TARGETS: readonly number[] = Object.freeze([0.9, 0.95, 0.99]);

/** One point of a frontier: a knob value (or a tier, for a strategy without a knob). */
export interface FrontierPoint {
  /** The knob value, or the tier name for a strategy without a knob. */
  readonly at: number | string;
  /** Share of bids included within the curve's horizon; `null` without bids. */
  readonly inclusion: number | null;
  /** Median overpayment of the included bids; `null` when none got in. */
  readonly overpay: number | null;
  /** Mean price paid by the included bids, in mean clearing prices (`TierResult.cost`). */
  readonly cost: number | null;
}

/** A strategy's inclusion-against-overpayment curve for one horizon. */
export interface FrontierCurve {
  /** The strategy's name (`calibrated`, `geth`, ...). */
  readonly strategy: string;
  /** The knob swept, or `null` (the points are the strategy's own tiers). */
  readonly knob: string | null;
  /** Blocks a bid may wait to count as included: 1, 3 or 10. */
  readonly horizon: Horizon;
  /** In knob order (the bid rises along it), or in tier order. */
  readonly points: readonly FrontierPoint[];
}

/** What a strategy overpays at one inclusion target, read off its curve. */
export interface FrontierReading {
  /** The strategy's name. */
  readonly strategy: string;
  /** Blocks a bid may wait to count as included: 1, 3 or 10. */
  readonly horizon: Horizon;
  /** The inclusion target read at (0.9, 0.95 or 0.99). */
  readonly target: number;
  /**
   * `interpolated`: between the two knob values around the target. `floor`: even its cheapest
   * knob value includes more than the target, so this is the least it overpays. `point`: a
   * strategy without a knob, its tier for this horizon (inclusion says where it sits).
   * `unreached`: no knob value reaches the target (or no bid was scored at that horizon).
   */
  readonly kind: "interpolated" | "floor" | "point" | "unreached";
  /** The median overpayment at that inclusion; `null` when `unreached` or no bid got in. */
  readonly overpay: number | null;
  /** The mean price paid at that inclusion (`TierResult.cost`), read off the same way. */
  readonly cost: number | null;
  /** The inclusion the overpayment belongs to (the target, or where the point/floor sits). */
  readonly inclusion: number | null;
}

/** A frontier run: the curves and the table of readings. */
export interface FrontierResult {
  /** The inclusion targets read ({@link FRONTIER_TARGETS}). */
  readonly targets: readonly number[];
  /** One curve per strategy and horizon. */
  readonly curves: readonly FrontierCurve[];
  /** One reading per strategy, horizon and target. */
  readonly readings: readonly FrontierReading[];
}

/**
 * Whether a reading counts at its target: a point only where its inclusion reaches the target,
 * a curve unless no knob value reached it (what "lowest" compares).
 *
 * @example
 * frontier.readings.filter(reachesTarget).sort((a, b) => a.overpay! - b.overpay!)[0];
 */
export function reachesTarget(r: FrontierReading): boolean {
  if (r.overpay === null) return false;
  if (r.kind === "point") return r.inclusion !== null && r.inclusion >= r.target;
  return r.kind !== "unreached";
}

const withinK = (t: TierResult, k: Horizon) =>
  k === 1 ? t.inclusion.within1 : k === 3 ? t.inclusion.within3 : t.inclusion.within10;

/** Read a curve (points in rising-bid order) at an inclusion target. */
function read(curve: FrontierCurve, target: number): Omit<FrontierReading, "strategy" | "horizon"> {
  const pts = curve.points.filter((p) => p.inclusion !== null && p.overpay !== null);
  if (curve.knob === null) {
    const p = curve.points.find((q) => q.at === HORIZON_TIER[curve.horizon]);
    return {
      target,
      kind: "point",
      overpay: p?.overpay ?? null,
      cost: p?.cost ?? null,
      inclusion: p?.inclusion ?? null,
    };
  }
  const unreached = {
    target,
    kind: "unreached",
    overpay: null,
    cost: null,
    inclusion: null,
  } as const;
  const first = pts[0];
  if (!first) return unreached;
  if (first.inclusion! >= target)
    return {
      target,
      kind: "floor",
      overpay: first.overpay,
      cost: first.cost,
      inclusion: first.inclusion,
    };
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1]!;
    const b = pts[i]!;
    if (b.inclusion! < target) continue;
    const f =
      b.inclusion === a.inclusion ? 1 : (target - a.inclusion!) / (b.inclusion! - a.inclusion!);
    return {
      target,
      kind: "interpolated",
      overpay: a.overpay! + f * (b.overpay! - a.overpay!),
      cost: a.cost === null || b.cost === null ? null : a.cost + f * (b.cost - a.cost),
      inclusion: target,
    };
  }
  return unreached;
}

/**
 * Turn a frontier run's backtest result into curves (inclusion within k against median
 * overpayment, one per strategy and horizon) and readings at 90, 95 and 99 % inclusion,
 * linearly interpolated between the two knob values around each target (the mean price paid,
 * `cost`, is read at the same place on the same line).
 *
 * @example
 * const frontier = frontierResult(run.result(), plan);
 * frontier.readings.find((r) => r.strategy === "geth" && r.horizon === 1 && r.target === 0.99);
 */
export function frontierResult(result: BacktestResult, plan: FrontierPlan): FrontierResult {
  const byLabel = new Map(result.strategies.map((s) => [s.name, s]));
  const curves: FrontierCurve[] = [];
  const strategies = [...new Set(plan.lanes.map((l) => l.strategy))];
  for (const strategy of strategies) {
    const lanes = plan.lanes.filter((l) => l.strategy === strategy);
    for (const k of HORIZONS) {
      const points: FrontierPoint[] = [];
      for (const lane of lanes) {
        if (!lane.horizons.includes(k)) continue;
        const scored = byLabel.get(lane.label);
        if (!scored) continue;
        if (lane.value === undefined)
          for (const tier of TIERS) {
            const t = scored.tiers[tier];
            points.push({
              at: tier,
              inclusion: withinK(t, k),
              overpay: t.overpayment?.median ?? null,
              cost: t.cost,
            });
          }
        else {
          const t = scored.tiers.regular;
          points.push({
            at: lane.value,
            inclusion: withinK(t, k),
            overpay: t.overpayment?.median ?? null,
            cost: t.cost,
          });
        }
      }
      curves.push({ strategy, knob: FRONTIER_KNOBS[strategy]?.name ?? null, horizon: k, points });
    }
  }
  const readings: FrontierReading[] = [];
  for (const curve of curves)
    for (const target of FRONTIER_TARGETS)
      readings.push({ strategy: curve.strategy, horizon: curve.horizon, ...read(curve, target) });
  return { targets: FRONTIER_TARGETS, curves, readings };
}
