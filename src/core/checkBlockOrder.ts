import { BlockOrderError } from "./errors.js";

/** What the ordering rules need to know of a block. */
export interface BlockPosition {
  readonly height: bigint;
  readonly epoch: bigint;
  /** The block's chain, when it says. */
  readonly chainId?: number | undefined;
}

/**
 * The ordering rules for `block` after the newest accepted one: `"duplicate"` for the same
 * height (to be ignored), `"next"` otherwise (gaps up to `maxHeightJump` are fine).
 *
 * @throws {BlockOrderError} for a lower height, a lower epoch at a higher height, an epoch
 * more epochs above the newest's than it is heights above it (a chain changes epoch at most
 * once per block: epoch 999 right after epoch 2 is a poison block, not news), another chain id
 * than the newest's, or a height more than `maxHeightJump` above the newest.
 * @example
 * checkBlockOrder({ height: 5n, epoch: 1n }, { height: 6n, epoch: 1n }); // "next"
 */
export function checkBlockOrder(
  newest: BlockPosition | undefined,
  block: BlockPosition,
  maxHeightJump?: bigint,
): "duplicate" | "next" {
  if (!newest) return "next";
  if (block.height === newest.height) return "duplicate";
  if (block.height < newest.height)
    throw new BlockOrderError({
      path: "height",
      message: `${block.height} is below the newest accepted height ${newest.height}; heights must increase`,
      code: "out_of_order",
    });
  if (block.epoch < newest.epoch)
    throw new BlockOrderError({
      path: "epoch",
      message: `${block.epoch} is below the current epoch ${newest.epoch} at a higher height (${block.height})`,
      code: "out_of_order",
    });
  if (block.epoch - newest.epoch > block.height - newest.height)
    throw new BlockOrderError({
      path: "epoch",
      message: `${block.epoch} is ${block.epoch - newest.epoch} epochs above the current epoch ${newest.epoch} over ${block.height - newest.height} height(s); a chain changes epoch at most once per block`,
      code: "out_of_order",
    });
  if (
    block.chainId !== undefined &&
    newest.chainId !== undefined &&
    block.chainId !== newest.chainId
  )
    throw new BlockOrderError({
      path: "chain_id",
      message: `${block.chainId} is not the chain ${newest.chainId} of the newest accepted block`,
      code: "out_of_order",
    });
  if (maxHeightJump !== undefined && block.height - newest.height > maxHeightJump)
    throw new BlockOrderError({
      path: "height",
      message: `${block.height} is ${block.height - newest.height} above the newest accepted height ${newest.height}; more than maxHeightJump (${maxHeightJump})`,
      code: "out_of_order",
    });
  return "next";
}
