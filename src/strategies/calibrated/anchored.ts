import type { BlockSample } from "../../core/blockSample.js";
import { TIERS, type Tier } from "../../core/tiers.js";
import type { GasEstimate, PromiseRecord, Strategy } from "../../core/types.js";

interface Counts {
  bids: number;
  included: number;
  includedAtMinimum: number;
}
const ZERO: Counts = { bids: 0, included: 0, includedAtMinimum: 0 };

/**
 * A strategy whose state depends on the whole history (what `calibrated` learned) served so that
 * every replica of one block stream serves the same estimates: learning starts again, from
 * nothing, at each height that is a multiple of `every`, in a new instance that runs beside the
 * one started at the multiple before. The older instance (`every` to `2 · every` blocks of
 * learning) is served; at the next multiple it is dropped and the younger one takes its place.
 * An instance's state is a function of the blocks since its start alone, so a replica that has
 * read blocks from before the second-newest multiple holds exactly the instance every other
 * replica serves. Until then (a replica that started later, or a chain started again at a lower
 * height), it serves an instance started with its own first block. Two instances at most; each
 * is told every block, every estimate asked (so each learns from its own bids) and every epoch
 * change.
 *
 * The promise records count what this replica served: the served instance's outcomes from the
 * moment it is served on, added to those of the instances served before it, so the counts only
 * grow. Around each change they are off by a horizon's worth: the bids a dropped instance served
 * last never settle, and as many the new one made just before it was served are counted.
 *
 * @example
 * const strategy = anchored(() => createCalibrated(settings, config), 5_000n);
 */
export function anchored(make: () => Strategy, every: bigint): Strategy {
  /** Started at the newest multiples of `every` crossed, oldest first (at most two). */
  let aligned: Strategy[] = [];
  /** Started with the first block (or after the heights fell); dropped once one is aligned. */
  let first: Strategy | undefined = make();
  let lastHeight: bigint | undefined;
  const name = first.name;
  const served = () => (aligned.length === 2 || !first ? aligned[0]! : first);
  const all = () => (first ? [first, ...aligned] : aligned);

  // What earlier served instances counted, and the served one's counts when it began serving.
  let current = served();
  const earlier = new Map<Tier, Counts>(TIERS.map((t) => [t, ZERO]));
  let startedAt = new Map<Tier, Counts>(TIERS.map((t) => [t, ZERO]));
  const countsOf = (s: Strategy) => s.promises?.() ?? undefined;
  /** After a change of instances: carry the counts over if another one is served now. */
  function follow() {
    const next = served();
    if (next === current) return;
    const was = countsOf(current);
    const now = countsOf(next);
    for (const t of TIERS) {
      const e = earlier.get(t)!;
      const start = startedAt.get(t)!;
      const r = pick(was?.[t] ?? ZERO);
      earlier.set(t, {
        bids: e.bids + r.bids - start.bids,
        included: e.included + r.included - start.included,
        includedAtMinimum: e.includedAtMinimum + r.includedAtMinimum - start.includedAtMinimum,
      });
    }
    startedAt = new Map(TIERS.map((t) => [t, pick(now?.[t] ?? ZERO)]));
    current = next;
  }

  return {
    name,
    ingest(block: BlockSample) {
      // A chain started again (a resync to a lower height), or heights that skip two multiples
      // or more (a resync to another chain ahead, or a gap of K heights: every instance is of
      // another stretch): learning starts over, as it does for every replica meeting the block.
      if (
        lastHeight !== undefined &&
        (block.height <= lastHeight || block.height / every - lastHeight / every >= 2n)
      ) {
        aligned = [];
        first = make();
        lastHeight = undefined;
      }
      const multiple = block.height / every;
      // A first block at a multiple starts an aligned instance, as a replica running before it did.
      const crossed =
        lastHeight === undefined ? block.height % every === 0n : multiple > lastHeight / every;
      if (crossed) {
        aligned.push(make());
        if (aligned.length > 2) aligned.shift();
        if (aligned.length === 2 || lastHeight === undefined) first = undefined;
      }
      lastHeight = block.height;
      follow();
      for (const s of all()) s.ingest(block);
    },
    estimate(min: bigint): GasEstimate {
      const chosen = served();
      let estimate: GasEstimate | undefined;
      for (const s of all()) {
        const e = s.estimate(min);
        if (s === chosen) estimate = e;
      }
      return estimate!;
    },
    reset() {
      for (const s of all()) s.reset();
    },
    promises(): Readonly<Record<Tier, PromiseRecord>> {
      const records = served().promises!();
      const out = {} as Record<Tier, PromiseRecord>;
      for (const t of TIERS) {
        const r = records[t];
        const c = pick(r);
        const e = earlier.get(t)!;
        const start = startedAt.get(t)!;
        const bids = e.bids + c.bids - start.bids;
        const included = e.included + c.included - start.included;
        const counted = { ...r, bids, included, rate: bids > 0 ? included / bids : null };
        // A count the inner record does not keep is not made up.
        out[t] =
          r.includedAtMinimum === undefined
            ? counted
            : {
                ...counted,
                includedAtMinimum:
                  e.includedAtMinimum + c.includedAtMinimum - start.includedAtMinimum,
              };
      }
      return out;
    },
  };
}

/** The counts of a record (a copy: the record object may be reused). */
function pick(r: Pick<PromiseRecord, "bids" | "included" | "includedAtMinimum">): Counts {
  return { bids: r.bids, included: r.included, includedAtMinimum: r.includedAtMinimum ?? 0 };
}
