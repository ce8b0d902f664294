import { createTDigest } from "../sketch/tdigest.js";
import { LOOKAHEAD_BLOCKS, type TierResult } from "./types.js";

/** Compression of the overpayment digests: exact below this many distinct ratios. */
export const OVERPAYMENT_COMPRESSION = 300;

/** Inclusion and overpayment of one tier, fed block by block; see {@link createTierScore}. */
export interface TierScore {
  /**
   * The next block of the history: `bid` is the tier's estimate made before it (`undefined`
   * when there was none), `clearing` its clearing price; `atMinimum`: the bid was the minimum
   * price in force (no bid could be cheaper). Settles the pending bids.
   */
  observe(bid: bigint | undefined, clearing: bigint, atMinimum?: boolean): void;
  /** Bids waiting for their 10-block outcome (at most {@link LOOKAHEAD_BLOCKS}). */
  pending(): number;
  /**
   * Inclusion counts, shares and overpayment so far (pending bids left out), and `meanPaid`: the
   * mean price of the bids included within 10 blocks (`null` when none got in).
   */
  result(): Pick<TierResult, "bids" | "included" | "inclusion" | "overpayment"> & {
    meanPaid: number | null;
  };
  /** Share of settled bids included within `k` blocks (1..10); `null` without bids. */
  within(k: number): number | null;
  /**
   * The same share, leaving out the bids at the minimum price that got in within `k`: the
   * bids whose price was a choice, and the misses. `null` when nothing is left.
   */
  withinAboveMinimum(k: number): number | null;
}

/**
 * Score one tier's bids in bounded memory. A bid `p` made before block `t` is included
 * within `k` blocks iff `p >= clearing(t + j)` for some `j` in `0..k-1`; its overpayment is
 * `p / clearing` of the first block it got into, and it pays `p` (a first-price auction). A
 * bid is counted once it has seen 10 blocks (or got in earlier and then seen them), so at most
 * 10 bids wait at any time; the ratios go into a t-digest (exact for fewer than
 * {@link OVERPAYMENT_COMPRESSION} distinct ratios).
 *
 * @example
 * const score = createTierScore();
 * score.observe(150n, 100n); // a bid of 150 before a block clearing at 100: in at once, ratio 1.5
 */
export function createTierScore(): TierScore {
  const n = LOOKAHEAD_BLOCKS;
  // Ring of pending bids, oldest at `start`.
  const price: bigint[] = new Array(n).fill(0n);
  const made = new Float64Array(n);
  const wait = new Int32Array(n); // blocks waited before getting in; -1 while out
  const atMin = new Uint8Array(n);
  const ratio = new Float64Array(n);
  let start = 0;
  let size = 0;
  let index = 0;
  let bids = 0;
  // Settled bids that got in after waiting exactly j blocks, j = 0..9 (of them, at the minimum).
  const waited = new Float64Array(n);
  const waitedAtMin = new Float64Array(n);
  let ratioSum = 0;
  let paidSum = 0;
  const digest = createTDigest({ compression: OVERPAYMENT_COMPRESSION });

  function settle(slot: number) {
    bids++;
    const w = wait[slot]!;
    if (w < 0) return;
    waited[w]!++;
    if (atMin[slot]) waitedAtMin[w]!++;
    digest.add(ratio[slot]!);
    ratioSum += ratio[slot]!;
    paidSum += Number(price[slot]!);
  }

  return {
    observe(bid, clearing, atMinimum = false) {
      if (bid !== undefined) {
        const slot = (start + size) % n;
        price[slot] = bid;
        atMin[slot] = atMinimum ? 1 : 0;
        made[slot] = index;
        wait[slot] = -1;
        size++;
      }
      const denominator = Number(clearing > 0n ? clearing : 1n);
      for (let i = 0; i < size; i++) {
        const slot = (start + i) % n;
        if (wait[slot]! < 0 && price[slot]! >= clearing) {
          wait[slot] = index - made[slot]!;
          // A bid of exactly the clearing price paid what was needed, 0 into 0 included.
          ratio[slot] = price[slot] === clearing ? 1 : Number(price[slot]!) / denominator;
        }
      }
      // The oldest bid has now seen its 10th block: its outcome is final.
      if (size > 0 && index - made[start]! === n - 1) {
        settle(start);
        start = (start + 1) % n;
        size--;
      }
      index++;
    },
    pending: () => size,
    within(k) {
      let c = 0;
      for (let j = 0; j < k && j < n; j++) c += waited[j]!;
      return bids > 0 ? c / bids : null;
    },
    withinAboveMinimum(k) {
      let c = 0;
      let free = 0;
      for (let j = 0; j < k && j < n; j++) {
        c += waited[j]!;
        free += waitedAtMin[j]!;
      }
      return bids - free > 0 ? (c - free) / (bids - free) : null;
    },
    result() {
      const share = (k: number) => (bids > 0 ? k / bids : null);
      let within1 = 0;
      let within3 = 0;
      let within10 = 0;
      for (let j = 0; j < n; j++) {
        const c = waited[j]!;
        within10 += c;
        if (j < 3) within3 += c;
        if (j < 1) within1 += c;
      }
      return {
        bids,
        included: { within1, within3, within10 },
        inclusion: { within1: share(within1), within3: share(within3), within10: share(within10) },
        overpayment:
          within10 > 0
            ? {
                median: digest.quantile(0.5),
                p90: digest.quantile(0.9),
                mean: ratioSum / within10,
              }
            : null,
        meanPaid: within10 > 0 ? paidSum / within10 : null,
      };
    },
  };
}
