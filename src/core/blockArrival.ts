import type { BlockSample } from "./blockSample.js";

/**
 * When each block first arrived in a gasdigest process, where that is not the process holding
 * it: a Redis replica's blocks arrived at the publisher, which writes the time into each stream
 * entry. Kept beside the blocks (a `WeakMap`: nothing is added to a `BlockSample`, and a block
 * dropped is forgotten with it).
 */
const arrivals = new WeakMap<BlockSample, number>();

/**
 * Record that `block` arrived at `ms` (wall clock, ms since the epoch). The engine takes it as
 * the block's `receivedAtMs` when it is earlier than its own clock, so a replica that warm-starts
 * from a stream whose publisher stopped a minute ago knows its newest block is a minute old (and
 * stale), as the replicas that read it live do. A later call for the same block is ignored: the
 * first arrival is the one that counts.
 *
 * @example
 * noteArrival(block, 1_795_700_000_000);
 * arrivalOf(block); // 1795700000000
 */
export function noteArrival(block: BlockSample, ms: number): void {
  if (!arrivals.has(block) && Number.isFinite(ms) && ms >= 0) arrivals.set(block, ms);
}

/** When `block` first arrived, if a source or sink recorded it ({@link noteArrival}). */
export function arrivalOf(block: BlockSample): number | undefined {
  return arrivals.get(block);
}
