import { createTDigest } from "../sketch/tdigest.js";
import type { SpikePhase } from "./createSpikeDetector.js";
import type { SpikeResponse } from "./types.js";

/** How one tier of one strategy follows spikes; see {@link createSpikeResponse}. */
export interface SpikeResponseTracker {
  /**
   * The next block: its spike phase, its clearing price, the tier's estimate made before it
   * (`undefined` when there was none) and the tier's idle-chain value at that time.
   */
  observe(phase: SpikePhase, clearing: bigint, estimate: bigint | undefined, rest: bigint): void;
  /** Blocks to cover each spike. */
  cover(): SpikeResponse;
  /** Blocks to come back after each spike. */
  back(): SpikeResponse;
}

interface Tally {
  spikes: number;
  hits: number;
  sum: number;
  max: number;
  digest: ReturnType<typeof createTDigest>;
}

const tally = (): Tally => ({ spikes: 0, hits: 0, sum: 0, max: 0, digest: createTDigest() });
const hit = (t: Tally, blocks: number) => {
  t.spikes++;
  t.hits++;
  t.sum += blocks;
  if (blocks > t.max) t.max = blocks;
  t.digest.add(blocks);
};
const summary = (t: Tally): SpikeResponse => ({
  spikes: t.spikes,
  hits: t.hits,
  median: t.hits > 0 ? t.digest.quantile(0.5) : null,
  mean: t.hits > 0 ? t.sum / t.hits : null,
  max: t.hits > 0 ? t.max : null,
});

/**
 * Spike response of one tier, in constant memory.
 *
 * - cover: blocks from the spike's first block `s` to the first spike block `t` (clearing
 *   above the minimum) whose clearing price the tier's estimate made before it reached:
 *   `t - s` (0 when the estimate before the first spike block already covered it). A spike
 *   that ends before that counts as missed; one still going at the end of the history without
 *   a cover is left out.
 * - return: blocks from the spike's end `e` (first block of the calm run that ended it) to
 *   the first block `t >= e` before which the tier's estimate was back at or below its
 *   idle-chain value (the default estimate: the minimum price for deprioritized and regular,
 *   nextBucket of it for prioritized, which aip34, tdigest, geth and last-block serve on an
 *   idle chain; calibrated serves the minimum there, below it): `t - e`. Missed when the next
 *   spike starts first; left out when the history ends first.
 *
 * @example
 * const r = createSpikeResponse();
 * r.observe(detector.next(false), 300n, 150n, 100n);
 */
export function createSpikeResponse(): SpikeResponseTracker {
  const cover = tally();
  const back = tally();
  let index = 0;
  let spikeStart = -1; // >= 0 while the current spike is not covered yet
  let calmAt = -1; // first block of the current calm run inside a spike
  let backSeenAt = -1; // first block of that run the tier was back, if any
  let endAt = -1; // >= 0 while waiting for the tier to come back after an ended spike

  return {
    observe(phase, clearing, estimate, rest) {
      if (phase.started) {
        if (endAt >= 0) {
          back.spikes++; // still up when the next spike started
          endAt = -1;
        }
        spikeStart = index;
      }
      if (phase.spiking && spikeStart >= 0 && estimate !== undefined && estimate >= clearing) {
        hit(cover, index - spikeStart);
        spikeStart = -1;
      }
      if (phase.calmStart) {
        calmAt = index;
        backSeenAt = -1;
      }
      const isBack = estimate !== undefined && estimate <= rest;
      if (phase.calming && backSeenAt < 0 && isBack) backSeenAt = index;
      if (!phase.calming && !phase.spiking && endAt >= 0 && isBack) {
        hit(back, index - endAt);
        endAt = -1;
      }
      if (phase.ended) {
        if (spikeStart >= 0) {
          cover.spikes++; // the spike was over before the tier covered it
          spikeStart = -1;
        }
        if (backSeenAt >= 0) hit(back, backSeenAt - calmAt);
        else endAt = calmAt;
      }
      index++;
    },
    cover: () => summary(cover),
    back: () => summary(back),
  };
}
