import type { BlockSample } from "./blockSample.js";

/** What the ledger's "oldest" fields need of a block. */
export interface HeldBlock {
  readonly height: bigint;
  readonly firstVersion: bigint | undefined;
  readonly lastVersion: bigint | undefined;
}

/**
 * A ring of the newest `capacity` blocks' heights and versions: the blocks the configured
 * windows can still refer to, for a snapshot's `oldestBlockHeight` and `oldestLedgerVersion`.
 *
 * @example
 * const held = createHeldBlocks(121);
 * held.hold(block);
 * held.oldest().height;
 */
export function createHeldBlocks(capacity: number) {
  const ring: HeldBlock[] = [];
  let start = 0;
  return {
    hold(block: BlockSample) {
      const entry = {
        height: block.height,
        firstVersion: block.firstVersion,
        lastVersion: block.lastVersion,
      };
      if (ring.length < capacity) ring.push(entry);
      else {
        ring[start] = entry;
        start = (start + 1) % capacity;
      }
    },
    /** The oldest block held (call after at least one `hold`). */
    oldest: (): HeldBlock => ring[start]!,
    clear() {
      ring.length = 0;
      start = 0;
    },
  };
}
