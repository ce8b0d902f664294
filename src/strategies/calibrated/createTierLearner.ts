import type { PromiseRecord } from "../../core/types.js";
import { levelPrice, logPrice } from "./levelPrice.js";
import type { SortedWindow } from "./sortedWindow.js";

/** How a tier learns; see {@link createTierLearner}. */
export interface TierLearnerOptions {
  /** Blocks a bid may wait. */
  readonly withinBlocks: number;
  /** Share of bids that must get in. */
  readonly probability: number;
  /** Blocks between a bid and the first block it is scored on (1 with `skipLatestBlock`). */
  readonly lag: number;
  /** Step of each sample's quantile level per outcome. */
  readonly learningRate: number;
  /** Step of the final level correction per outcome. */
  readonly correctionRate: number;
  /** How many samples (experts) the tier chooses from. */
  readonly experts: number;
}

/** One tier of the calibrated strategy. */
export interface TierLearner {
  /**
   * A new block was seen; `outcome(k)` is the lowest clearing price of the newest `k` blocks.
   * Settles the bid whose horizon this block completes. The experts' losses read no outcome
   * above `lossCap` (whether the bid got in is the real outcome's).
   */
  settle(outcome: (k: number) => bigint, lossCap?: bigint): void;
  /** The tier's bid from the samples (one window per expert), at least `floor`; remembered as pending. */
  bid(samples: readonly SortedWindow[], floor: bigint): bigint;
  /**
   * What was actually served for the bid just made (after the tiers were made monotone, so at
   * least the bid), and the lowest price the tier could have served (`floor`: the minimum, or
   * with `roundToBuckets` the bucket at or above it): the correction learns from its outcome,
   * and a hit at `floor` teaches it nothing.
   */
  served(price: bigint, floor: bigint): void;
  /**
   * A price served with no window to bid from (after an epoch change, before its first block
   * is handed over), where `floor` is the lowest price the tier could serve: counted in the
   * record when it settles, learned from by nothing.
   */
  servedWithoutBid(price: bigint, floor: bigint): void;
  /**
   * Forget the pending bids (an epoch change: the engine drops the old epoch's newest block, so
   * their outcomes cannot be known). With `learning`, also forget what was learned (levels,
   * correction, losses). The observed record always stays.
   */
  reset(learning: boolean): void;
  /** The promise and the inclusion rate of the served bids so far. */
  record(): PromiseRecord;
  /**
   * Internal state, for tests of the guarantee: each expert's level, the correction, the chosen
   * expert, the largest shortfall seen (how far, log scale, a settled outcome lay above the
   * highest price of the window its bid was taken from; 0 if never), the settled prices served
   * without a bid, and how many times the learning started (1, plus each reset that forgot it).
   */
  state(): {
    levels: readonly number[];
    correction: number;
    chosen: number;
    shortfall: number;
    withoutBid: number;
    starts: number;
  };
}

/**
 * The guarantee: the most a tier's miss rate can exceed `1 − probability` after `bids` settled
 * bids, on any sequence of prices, given the largest shortfall `shortfall`, the settled prices
 * served without a bid `withoutBid` (each may miss: nothing was learned from them) and how many
 * times the learning started, `starts` (a reset that forgets it, `epochReset: "all"`, starts
 * the correction from its prior again, and each start has the same slack). See
 * {@link TierLearner.state}.
 *
 * @example
 * missBound({ withinBlocks: 1, lag: 1, correctionRate: 0.005 }, 10_000, 0); // 0.0252
 */
export function missBound(
  o: Pick<TierLearnerOptions, "withinBlocks" | "lag" | "correctionRate">,
  bids: number,
  shortfall: number,
  withoutBid = 0,
  starts = 1,
): number {
  const delay = o.lag + o.withinBlocks;
  const slack =
    (-MIN_LEVEL + 1 + Math.max(0, shortfall) + delay * o.correctionRate) / o.correctionRate;
  return (starts * slack + withoutBid) / bids;
}

/**
 * Most EW decay of each expert's pinball loss per outcome (a mean age of 50 outcomes, a weighted
 * memory of about 100).
 * A promise with a small `1 − p` decays slower: see `lossDecay`.
 */
const MAX_LOSS_DECAY = 0.02;
/**
 * Least EW decay of each expert's pinball loss: its value at 99.9 % (a weighted memory of about
 * 3,000 outcomes). Above 99.9 % a decay of `2(1 − p)/3` made the memory outgrow a history
 * (30,000 outcomes at 99.99 %): the first outcomes fixed the ranking, and a stricter promise kept
 * fewer of its bids than a looser one (docs/calibrated-experiments.md).
 */
const MIN_LOSS_DECAY = (2 * 0.001) / 3;
/**
 * The decay of the experts' losses for miss rate `alpha`: at most {@link MAX_LOSS_DECAY}, and
 * slow enough that the weighted memory (about `2 / decay` outcomes) holds at least 3 expected
 * misses, down to {@link MIN_LOSS_DECAY}. At 99 % a fixed 0.02 ranked experts on about one
 * miss, so which one was chosen was noise, and on heavy-tailed prices the tier kept switching to
 * windows whose top is a poor guide. Tiers at 95 % and below keep 0.02 (5 misses or more).
 */
const lossDecay = (alpha: number) =>
  Math.max(MIN_LOSS_DECAY, Math.min(MAX_LOSS_DECAY, (2 * alpha) / 3));
/** Lowest quantile level an expert may drift to (a quarter below its window's minimum). */
const MIN_LEVEL = -0.25;
/** Lowest final correction: the guarantee needs no bound below, this keeps recovery quick. */
const MIN_CORRECTION = -0.5;
/** Outcomes kept for the recent inclusion rate. */
const RECENT = 1000;

interface Pending {
  experts: bigint[];
  /** The price served for the bid (its own, until {@link TierLearner.served} says otherwise). */
  served: bigint;
  /** The lowest price the bid could be (the minimum in force): a hit there teaches no level. */
  floor: bigint;
  /**
   * The lowest price the tier could serve (the minimum, or the bucket at or above it): a hit
   * there teaches the correction nothing, and counts as included at the minimum.
   */
  servedFloor: bigint;
  /** Highest price of the chosen expert's window when the bid was made. */
  top: bigint;
  /** Whether the outcome teaches the levels (not for a price served without a bid). */
  learn: boolean;
}

/**
 * One tier's online learner: adaptive conformal inference (Gibbs and Candès, 2021) over several
 * samples of recent prices, with the best sample chosen by its recent pinball loss.
 *
 * Each expert bids the price at quantile level `a_i` of its own window of observed prices, and
 * moves `a_i` by `learningRate · (miss − (1 − p))` whenever one of its bids settles, so each is
 * calibrated on its own. The tier serves the expert with the lowest exponentially weighted
 * pinball loss at level `p` (log scale), at level `a_best + δ`; `δ` moves by
 * `correctionRate · (miss − (1 − p))` on the outcome of the price served for the tier
 * ({@link TierLearner.served}: at least the tier's bid, lifted where a lower tier bid more), so
 * the promise is kept on what was served, not over-delivered where the lower tier lifts it. A bid at the floor (the minimum
 * price) that got in moves nothing: no lower level could have bid less. On any sequence of
 * prices, after `T` settled bids the share that missed is at most
 * `1 − p + (S · (1.25 + R + D · correctionRate) / correctionRate + E) / T` ({@link missBound}),
 * where `R` is the largest shortfall, `D = lag + withinBlocks`, `E` the prices served without a
 * bid (after the start and each epoch change, before a window holds a block) and `S` the starts
 * of the learning (1, plus one per epoch with `epochReset: "all"`); docs/strategies.md derives
 * it: `δ`
 * climbs only on misses, and once `a_best + δ` reaches `1 + R` every bid covers, because
 * {@link levelPrice} grows without bound with the level and no level goes below −0.25.
 *
 * A bid made after block `s` is scored on blocks `s + lag + 1 .. s + lag + withinBlocks`, so it
 * settles `lag + withinBlocks` blocks later: at most that many bids wait at a time.
 *
 * @example
 * const tier = createTierLearner({ withinBlocks: 1, probability: 0.99, lag: 1, learningRate: 0.005, correctionRate: 0.005, experts: 3 });
 */
export function createTierLearner(o: TierLearnerOptions): TierLearner {
  const alpha = 1 - o.probability;
  const p = o.probability;
  const delay = o.lag + o.withinBlocks;
  const decay = lossDecay(alpha);
  const levels = new Float64Array(o.experts);
  const losses = new Float64Array(o.experts);
  const pending: Pending[] = [];
  // The recent outcomes: 0 a miss, 1 in, 2 in at the minimum price.
  const recent = new Uint8Array(RECENT);
  let recentCount = 0;
  let recentHits = 0;
  let recentAtMinimum = 0;
  let recentHead = 0;
  let correction = 0;
  let chosen = 0;
  let bids = 0;
  let included = 0;
  let includedAtMinimum = 0;
  let shortfall = 0;
  let withoutBid = 0;
  let starts = 0;

  // Before any outcome, each expert starts at the level that would keep the promise if blocks
  // cleared independently: P(some of k blocks clears at or below it) = p.
  const prior = 1 - (1 - p) ** (1 / o.withinBlocks);
  function forget(learning: boolean) {
    pending.length = 0;
    if (!learning) return;
    starts++;
    levels.fill(prior);
    losses.fill(0);
    correction = 0;
    chosen = 0;
  }
  forget(true);

  /** Count a served bid's outcome; `bid.served <= bid.servedFloor`: it was the minimum price. */
  function observe(bid: Pending, y: bigint) {
    const outcome = bid.served < y ? 0 : bid.served <= bid.servedFloor ? 2 : 1;
    bids++;
    if (outcome > 0) included++;
    if (outcome === 2) includedAtMinimum++;
    if (recentCount === RECENT) {
      const old = recent[recentHead]!;
      if (old > 0) recentHits--;
      if (old === 2) recentAtMinimum--;
    } else recentCount++;
    recent[recentHead] = outcome;
    if (outcome > 0) recentHits++;
    if (outcome === 2) recentAtMinimum++;
    recentHead = (recentHead + 1) % RECENT;
  }

  return {
    settle(outcome, lossCap) {
      if (pending.length < delay) return;
      const bid = pending.shift()!;
      const y = outcome(o.withinBlocks);
      if (!bid.learn) {
        withoutBid++;
        observe(bid, y);
        return;
      }
      const realLogY = logPrice(y);
      const over = realLogY - logPrice(bid.top);
      if (over > shortfall) shortfall = over;
      // A bid at the floor that got in says nothing about the level: no lower level could have
      // bid less. Lowering the level there anyway is what let a long quiet stretch carry every
      // tier far below the floor, to climb back one miss at a time when the chain got busy.
      // (Misses always count, so the guarantee's bound on the miss rate is unchanged.)
      // Outcomes every expert bid alike on leave their losses' order as it was; they are
      // skipped so a quiet stretch does not wear the ranking learned before it down to ties.
      const same = bid.experts.every((e) => e === bid.experts[0]);
      // One block far above the rest (an outlier, or a peer's valid block at u64's maximum) is
      // a miss by every expert. Scored in full, it ranks first the expert that missed it by
      // least, a long window whose top is the last real spike, and that one is served for as
      // long as the loss remembers: on a spiky chain, 10 times the price for hundreds of blocks.
      // The losses read the outcome no higher than `lossCap`, as the long windows read no rank
      // above their second-highest price.
      const capLog = lossCap === undefined ? Number.POSITIVE_INFINITY : logPrice(lossCap);
      const logY = realLogY > capLog ? capLog : realLogY;
      for (let i = 0; i < o.experts; i++) {
        const e = bid.experts[i]!;
        if (!same) {
          const f = logPrice(e);
          const loss = f >= logY ? (1 - p) * (f - logY) : p * (logY - f);
          losses[i] = (1 - decay) * losses[i]! + decay * loss;
        }
        if (e < y || e > bid.floor) {
          const level = levels[i]! + o.learningRate * ((e < y ? 1 : 0) - alpha);
          levels[i] = level < MIN_LEVEL ? MIN_LEVEL : level;
        }
      }
      if (bid.served < y || bid.served > bid.servedFloor) {
        const next = correction + o.correctionRate * ((bid.served < y ? 1 : 0) - alpha);
        correction = next < MIN_CORRECTION ? MIN_CORRECTION : next;
      }
      observe(bid, y);
    },
    bid(samples, floor) {
      const experts: bigint[] = new Array(o.experts);
      let best = 0;
      for (let i = 0; i < o.experts; i++) {
        const price = levelPrice(samples[i]!, levels[i]!, floor);
        experts[i] = price < floor ? floor : price;
        if (losses[i]! < losses[best]!) best = i;
      }
      chosen = best;
      const price = levelPrice(samples[best]!, levels[best]! + correction, floor);
      const final = price < floor ? floor : price;
      const window = samples[best]!;
      const top = window.at(window.size - 1, floor);
      pending.push({ experts, served: final, floor, servedFloor: floor, top, learn: true });
      return final;
    },
    served(price, floor) {
      const last = pending[pending.length - 1];
      if (!last) return;
      last.served = price;
      last.servedFloor = floor;
    },
    servedWithoutBid(price, floor) {
      pending.push({
        experts: [],
        served: price,
        floor,
        servedFloor: floor,
        top: price,
        learn: false,
      });
    },
    reset: forget,
    record: () => ({
      withinBlocks: o.withinBlocks,
      probability: o.probability,
      bids,
      included,
      rate: bids > 0 ? included / bids : null,
      recentBids: recentCount,
      recentRate: recentCount > 0 ? recentHits / recentCount : null,
      includedAtMinimum,
      recentIncludedAtMinimum: recentAtMinimum,
    }),
    state: () => ({ levels: [...levels], correction, chosen, shortfall, withoutBid, starts }),
  };
}
