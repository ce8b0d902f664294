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

/**
 * The engine's ordering rules ({@link checkBlockOrder}, with `maxHeightJump`) plus the way out
 * of a wrong newest block: a run of `resyncAfterBlocks` blocks in a row that are all rejected
 * but in order among themselves (heights increasing by at most `maxHeightJump`, epochs not
 * decreasing nor rising faster than heights, one chain id, versions increasing) means the
 * newest block was wrong (a poison line at height 2^64-1) or the chain was reset (a test
 * network wiped): the last block of the run is accepted as `"resync"`. So no single block can
 * stop a source for good, and one stray old block is still rejected.
 *
 * @example
 * const order = createBlockOrder({ maxHeightJump: 1_000_000, resyncAfterBlocks: 10 });
 * if (order.check(block) !== "duplicate") order.accept(block);
 */
export function createBlockOrder(options: BlockOrderOptions): BlockOrder {
  const maxJump = BigInt(options.maxHeightJump);
  let newest: BlockPosition | undefined;
  // The run of rejected blocks that are in order among themselves: its newest block and length.
  let runLast: BlockPosition | undefined;
  let runLength = 0;
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
        if (runLast && block.height === runLast.height) throw error; // the run's duplicate
        if (runLast && follows(runLast, block)) runLength++;
        else runLength = 1;
        runLast = position(block, runLength > 1 ? runLast : undefined);
        if (runLength < options.resyncAfterBlocks) throw error;
        resynced = runLast;
        return "resync";
      }
    },
    accept(block) {
      newest = resynced?.height === block.height ? resynced : position(block, newest);
      resynced = undefined;
      runLast = undefined;
      runLength = 0;
    },
    clear() {
      newest = undefined;
      resynced = undefined;
      runLast = undefined;
      runLength = 0;
    },
  };
}
