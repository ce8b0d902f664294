import type { BlockSample } from "../core/blockSample.js";
import type { GasConfig, GasConfigInput } from "../core/config.js";
import { createEngine, type Engine } from "../core/createEngine.js";
import { oneLine, thrownMessage } from "../core/describeValue.js";
import { InvalidConfigError } from "../core/errors.js";
import { isPromiseResult } from "../core/promiseResult.js";
import type { GasEstimate, Snapshot, Strategy } from "../core/types.js";
import type { BacktestStrategy } from "./createBacktest.js";
import { createSpikeResponse, type SpikeResponseTracker } from "./createSpikeResponse.js";
import { createTierScore, type TierScore } from "./createTierScore.js";
import { LookaheadError } from "./lookaheadError.js";
import {
  LOOKAHEAD_BLOCKS,
  MAX_FAILURE_CHARS,
  type StrategyResult,
  TIERS,
  type Tier,
} from "./types.js";

/** One strategy inside a backtest: its engine, the snapshot to score next, and its scores. */
export interface Lane {
  /** Label in the results. */
  name: string;
  engine: Engine;
  /** The strategy object the engine drives (set when the engine makes it). */
  inner: Strategy | undefined;
  /** Whether the engine serves the strategy's own estimate (not `staticOverride`/disabled). */
  probe: boolean;
  /** The snapshot published after the newest block: what the next block is scored with. */
  published: Snapshot | undefined;
  /** Scored blocks without an estimate. */
  failures: number;
  /** The first of them and why (see `StrategyResult.firstFailure`). */
  firstFailure: { height: string; message: string } | undefined;
  /** One per tier, in {@link TIERS} order. */
  scores: TierScore[];
  spikes: SpikeResponseTracker[];
}

/**
 * Make the lane of one strategy: an engine driving it (the harness keeps a handle on the
 * strategy object, to ask it again when verifying) and one score and spike tracker per tier.
 *
 * @throws {InvalidConfigError} an invalid config or label.
 * @example
 * const lane = createLane({ strategy: aip34() }, {}, 0);
 */
export function createLane(
  s: BacktestStrategy,
  config: GasConfigInput | GasConfig,
  i: number,
): Lane {
  const lane = {} as Lane;
  // Keep a handle on the strategy object the engine drives, to ask it again when verifying.
  const engine = createEngine({
    strategy: (c) => {
      lane.inner = s.strategy(c);
      return lane.inner;
    },
    config,
    now: () => 0,
  });
  if (s.name !== undefined && (typeof s.name !== "string" || s.name === ""))
    throw new InvalidConfigError([
      { path: `strategies[${i}].name`, message: "must be a non-empty string" },
    ]);
  Object.assign(lane, {
    name: s.name ?? engine.strategyName,
    engine,
    probe: engine.config.enabled && !engine.config.staticOverride,
    published: undefined,
    failures: 0,
    firstFailure: undefined,
    scores: TIERS.map(() => createTierScore()),
    spikes: TIERS.map(() => createSpikeResponse()),
  });
  return lane;
}

/**
 * Count a scored block the lane had no estimate before, keeping the first one's reason: the
 * strategy's error on one line, at most {@link MAX_FAILURE_CHARS} characters.
 *
 * @example
 * if (!snap.estimate) noteFailure(lane, block.height, snap.failure);
 */
export function noteFailure(lane: Lane, height: bigint, failure: Error | undefined): void {
  lane.failures++;
  if (lane.firstFailure) return;
  const message = oneLine(failure?.message ?? "no estimate", MAX_FAILURE_CHARS);
  lane.firstFailure = { height: height.toString(), message };
}

const show = (e: GasEstimate) => `${e.deprioritized}/${e.regular}/${e.prioritized}`;

/**
 * Check (when `ask`) that the strategy, asked again now that `block` is known, gives the
 * estimate it published after the previous block. The snapshot scored is the one the lane's
 * engine published after the previous block by construction: `createBacktest` stores it right
 * after each ingest and scores only blocks that come next in order.
 *
 * @throws {LookaheadError} naming the strategy and the block.
 * @example
 * verifyLane(lane, block, true);
 */
export function verifyLane(lane: Lane, block: BlockSample, ask: boolean): void {
  const snap = lane.published;
  if (!ask || !lane.probe || !snap?.estimate) return;
  let again: GasEstimate | undefined;
  let thrown = "";
  try {
    const answer: unknown = lane.inner!.estimate(snap.minGasUnitPrice);
    // Its tiers are read here, inside the guard, as the engine reads them: a getter or proxy
    // trap that throws is the strategy giving an error, not a fault of the history being read.
    if (!isPromiseResult(answer)) {
      const o = answer as Partial<GasEstimate>;
      again = { deprioritized: o.deprioritized!, regular: o.regular!, prioritized: o.prioritized! };
    }
  } catch (error) {
    again = undefined;
    thrown = ` (${oneLine(thrownMessage(error), 100)})`;
  }
  const e = snap.estimate;
  if (
    again?.deprioritized !== e.deprioritized ||
    again.regular !== e.regular ||
    again.prioritized !== e.prioritized
  )
    throw new LookaheadError(
      lane.name,
      block.height,
      `it published ${show(e)} after block ${snap.ledger.blockHeight} but gives ${again ? show(again) : `an error${thrown}`} while block ${block.height} is being scored, without having been given a block: its estimate depends on something other than the blocks it was given`,
    );
}

/**
 * The scores of a lane, per tier; `meanClearing` (the mean clearing price of the scored blocks)
 * is the unit of each tier's `cost`.
 *
 * @example
 * const result = laneResult(lane, 120);
 */
export function laneResult(lane: Lane, meanClearing: number | null): StrategyResult {
  const tiers = {} as Record<Tier, StrategyResult["tiers"][Tier]>;
  const promises = lane.published?.promises;
  TIERS.forEach((tier, t) => {
    const promise = promises?.[tier];
    const { meanPaid, ...score } = lane.scores[t]!.result();
    tiers[tier] = {
      ...score,
      cost: meanPaid === null || !meanClearing ? null : meanPaid / meanClearing,
      promise: promise
        ? {
            withinBlocks: promise.withinBlocks,
            probability: promise.probability,
            achieved:
              promise.withinBlocks <= LOOKAHEAD_BLOCKS
                ? lane.scores[t]!.within(promise.withinBlocks)
                : null,
            achievedAboveMinimum:
              promise.withinBlocks <= LOOKAHEAD_BLOCKS
                ? lane.scores[t]!.withinAboveMinimum(promise.withinBlocks)
                : null,
          }
        : null,
      spikeCover: lane.spikes[t]!.cover(),
      spikeReturn: lane.spikes[t]!.back(),
    };
  });
  return {
    name: lane.name,
    strategy: lane.engine.strategyName,
    failures: lane.failures,
    ...(lane.firstFailure ? { firstFailure: lane.firstFailure } : {}),
    tiers,
  };
}
