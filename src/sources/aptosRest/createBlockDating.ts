import { noteArrival } from "../../core/blockArrival.js";
import type { BlockSample } from "../../core/blockSample.js";
import type { LedgerInfo } from "./schemas.js";

/** When the blocks of the `aptosRest` source were made, on the local clock; see {@link createBlockDating}. */
export interface BlockDating {
  /** A ledger info was just read: its tip's timestamp is the reference from now on. */
  readTip(info: LedgerInfo): void;
  /** Date `sample` for staleness (`noteArrival`) before it is emitted, when its time allows. */
  date(sample: BlockSample): void;
}

/**
 * Staleness counts from when a block was made, so a long backfill is not served as the chain's
 * current price. The newest ledger info's tip timestamp is kept with when it was read (local wall
 * clock, ms): a block made no later than that tip is dated by how long before it (in chain time)
 * it was made, counted back from that read (the tip itself: the read). So a block read behind the
 * tip (a backfill, a catch-up, a reader fallen behind) is as old as it is, whatever the offset
 * between the local and chain clocks; a block made after that tip is dated by its own read.
 *
 * Not dated: a block without a time, one made after the tip read (both then arrived when they
 * were read), and one dated before the last block dated. A chain's block times never go back,
 * and a 1970 timestamp from a node's bogus answer would have made every fresh block look
 * decades stale. A block made after the tip read is not a reference for the blocks after it:
 * one claiming a time an hour ahead would otherwise have left every later block undated.
 *
 * @example
 * const dating = createBlockDating(Date.now, info);
 * dating.date(sample); // noteArrival(sample, ...) when the sample was made before info's tip
 */
export function createBlockDating(now: () => number, info: LedgerInfo): BlockDating {
  let tipClock = { timestampUsec: info.timestampUsec, atMs: now() };
  // The latest time of a block made no later than the tip read then: a block dated before it
  // is not dated. Never above a tip's timestamp, so a block's absurd time cannot raise it.
  let lastMade: bigint | undefined;
  return {
    readTip(i) {
      tipClock = { timestampUsec: i.timestampUsec, atMs: now() };
    },
    date(sample) {
      const made = sample.timestampUsec;
      if (made === undefined) return;
      // Made after the tip: arrived when read, and no reference for the blocks after it (a
      // block an hour ahead of what the node says is now would otherwise leave every block
      // after it undated, for the life of the process).
      if (made > tipClock.timestampUsec) return;
      if (lastMade !== undefined && made < lastMade) return;
      noteArrival(sample, tipClock.atMs - Number(tipClock.timestampUsec - made) / 1000);
      lastMade = made;
    },
  };
}
