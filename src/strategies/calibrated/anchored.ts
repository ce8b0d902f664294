import type { BlockSample } from "../../core/blockSample.js";
import type { Tier } from "../../core/tiers.js";
import type { GasEstimate, PromiseRecord, Strategy } from "../../core/types.js";

/**
 * A strategy whose state depends on the whole history (what `calibrated` learned) served so that
 * every replica of one block stream serves the same estimates: learning starts again, from
 * nothing, at each height that is a multiple of `every`, in a new instance that runs beside the
 * one started at the multiple before. The older instance (`every` to `2 · every` blocks of
 * learning) is served; at the next multiple it is dropped and the younger one takes its place.
 * An instance's state is a function of the blocks since its start alone, so a replica that has
 * read blocks from before the second-newest multiple holds exactly the instance every other
 * replica serves. Until then (a replica that started later), it serves an instance started with
 * its own first block. At most three instances at once; each is told every block, every
 * estimate asked (so each learns from its own bids) and every epoch change.
 *
 * @example
 * const strategy = anchored(() => createCalibrated(settings, config), 5_000n);
 */
export function anchored(make: () => Strategy, every: bigint): Strategy {
  /** Started at the newest multiples of `every` crossed, oldest first (at most two). */
  const aligned: Strategy[] = [];
  /** Started with the first block; dropped once two aligned instances run. */
  let first: Strategy | undefined = make();
  let lastMultiple: bigint | undefined;
  const served = () => (aligned.length === 2 || !first ? aligned[0]! : first);
  const all = () => (first ? [first, ...aligned] : aligned);
  const name = first.name;

  return {
    name,
    ingest(block: BlockSample) {
      const multiple = block.height / every;
      // A first block at a multiple starts an instance too, as a replica running before it did.
      const crossed =
        lastMultiple === undefined ? block.height % every === 0n : multiple > lastMultiple;
      if (crossed) {
        aligned.push(make());
        if (aligned.length > 2) aligned.shift();
        if (aligned.length === 2) first = undefined;
        else if (lastMultiple === undefined) first = undefined; // the aligned one is as old
      }
      lastMultiple = multiple;
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
      return served().promises!();
    },
  };
}
