import { type BlockPosition, checkBlockOrder, versionsFollow } from "./checkBlockOrder.js";

/** Settings of {@link createBlockOrder} (the config fields of the same names). */
export interface BlockOrderOptions {
  /** Largest accepted step above the newest height. */
  readonly maxHeightJump: number;
  /** Blocks rejected in a row, in order among themselves, after which they are followed. */
  readonly resyncAfterBlocks: number;
}

/** The ordering rules with memory: see {@link createBlockOrder}. */
export interface BlockOrder {
  /**
   * What to do with `block`: `"next"` (accept it), `"duplicate"` (ignore it) or `"resync"`
   * (accept it after forgetting the newest block: the rejected run is followed).
   * @throws {BlockOrderError} the block breaks the ordering rules (it is counted in the run).
   */
  check(block: BlockPosition): "next" | "duplicate" | "resync";
  /** `block` was accepted: it is the newest now, and the run of rejected blocks is over. */
  accept(block: BlockPosition): void;
  /** Forget everything (the next block is accepted whatever its height). */
  clear(): void;
}

/** How many of the newest accepted blocks a copy of history is recognised among. */
export const RECENT_BLOCKS = 1024;

/**
 * Whether `block` is `held`, a block accepted at its height: the same epoch, chain (when both
 * say) and versions (as each says them: a block without versions matches one without).
 */
function isRecent(held: BlockPosition | undefined, block: BlockPosition): boolean {
  return (
    held !== undefined &&
    held.epoch === block.epoch &&
    (held.chainId === undefined || block.chainId === undefined || held.chainId === block.chainId) &&
    held.firstVersion === block.firstVersion &&
    held.lastVersion === block.lastVersion
  );
}

/** What a block's copy is recognised by (see {@link isRecent}): its position as it says it. */
const held = (block: BlockPosition): BlockPosition => ({
  height: block.height,
  epoch: block.epoch,
  chainId: block.chainId,
  firstVersion: block.firstVersion,
  lastVersion: block.lastVersion,
});

/**
 * The engine's ordering rules ({@link checkBlockOrder}, with `maxHeightJump`) plus the way out
 * of a wrong newest block: a run of `resyncAfterBlocks` blocks in a row that are all rejected
 * but in order among themselves (heights increasing by at most `maxHeightJump`, epochs not
 * decreasing nor rising faster than heights, one chain id, versions increasing) means the
 * newest block was wrong (a poison line at height 2^64-1) or the chain was reset (a test
 * network wiped): the last block of the run is accepted as `"resync"`. So no single block can
 * stop a source for good, and one stray old block is still rejected. A copy of one of the
 * {@link RECENT_BLOCKS} newest blocks accepted (the same height, epoch, chain and versions:
 * another source of the same chain lagging behind) is rejected too, but never counts in a run:
 * history sent again is no new chain. Nor does a copy of one of the run's own blocks (a second
 * source of the chain the run follows, out of step with the first) break the run.
 *
 * @example
 * const order = createBlockOrder({ maxHeightJump: 1_000_000, resyncAfterBlocks: 10 });
 * if (order.check(block) !== "duplicate") order.accept(block);
 */
export function createBlockOrder(options: BlockOrderOptions): BlockOrder {
  const maxJump = BigInt(options.maxHeightJump);
  let newest: BlockPosition | undefined;
  // The newest accepted blocks by height, as they came: a block equal to one of them is a copy
  // of history (a second source lagging behind), never one of a run to follow.
  const recent = new Map<bigint, BlockPosition>();
  // The run of rejected blocks that are in order among themselves: its newest block and length.
  let runLast: BlockPosition | undefined;
  let runLength = 0;
  // The run's blocks by height, as they came: a copy of one of them (a second source of the
  // chain the run follows, a block or two behind the first) neither counts nor breaks the run.
  const runBlocks = new Map<bigint, BlockPosition>();
  // The position of a block `check` answered "resync" for, with the run's chain: what `accept`
  // makes the newest (not the old newest's chain, which the run replaces).
  let resynced: BlockPosition | undefined;

  const follows = (a: BlockPosition, b: BlockPosition) =>
    b.height > a.height &&
    b.height - a.height <= maxJump &&
    b.epoch >= a.epoch &&
    b.epoch - a.epoch <= b.height - a.height &&
    (a.chainId === undefined || b.chainId === undefined || a.chainId === b.chainId) &&
    versionsFollow(a, b);
  // A block that does not say its chain or versions keeps those of the one before it (`before`),
  // so one block without a chain id cannot let the next one switch chains, nor one without
  // versions let the next one go back.
  const position = (b: BlockPosition, before: BlockPosition | undefined): BlockPosition => ({
    height: b.height,
    epoch: b.epoch,
    chainId: b.chainId ?? before?.chainId,
    lastVersion: b.lastVersion ?? b.firstVersion ?? before?.lastVersion,
  });

  return {
    check(block) {
      resynced = undefined;
      try {
        return checkBlockOrder(newest, block, maxJump);
      } catch (error) {
        // A copy of a block accepted (a second source lagging behind, a recording joined with
        // an overlap) is rejected as below the newest, but is no sign of a new chain: ten of
        // them in a row took the engine back to them, its windows thrown away.
        if (isRecent(recent.get(block.height), block)) throw error;
        if (runLast && block.height === runLast.height) throw error; // the run's duplicate
        // A copy of one of the run's blocks: two sources of that chain out of step by a block
        // broke the run at every block, and it was never followed (stuck for good).
        if (isRecent(runBlocks.get(block.height), block)) throw error;
        if (runLast && follows(runLast, block)) runLength++;
        else {
          runLength = 1;
          runBlocks.clear();
        }
        runLast = position(block, runLength > 1 ? runLast : undefined);
        runBlocks.set(block.height, held(block));
        if (runLength < options.resyncAfterBlocks) throw error;
        resynced = runLast;
        return "resync";
      }
    },
    accept(block) {
      // A run followed replaces the history it was refused against.
      if (resynced?.height === block.height) recent.clear();
      newest = resynced?.height === block.height ? resynced : position(block, newest);
      recent.set(block.height, held(block));
      if (recent.size > RECENT_BLOCKS) recent.delete(recent.keys().next().value as bigint);
      resynced = undefined;
      runLast = undefined;
      runLength = 0;
      runBlocks.clear();
    },
    clear() {
      newest = undefined;
      recent.clear();
      resynced = undefined;
      runLast = undefined;
      runLength = 0;
      runBlocks.clear();
    },
  };
}
