import { BlockOrderError } from "./errors.js";

/** What the ordering rules need to know of a block. */
export interface BlockPosition {
  readonly height: bigint;
  readonly epoch: bigint;
  /** The block's chain, when it says. */
  readonly chainId?: number | undefined;
  /** The block's first ledger version, when it says. */
  readonly firstVersion?: bigint | undefined;
  /** The block's last ledger version, when it says (of the newest: the newest version known). */
  readonly lastVersion?: bigint | undefined;
}

/** The lowest ledger version `b` says it holds. */
const lowestVersion = (b: BlockPosition) => b.firstVersion ?? b.lastVersion;
/** The highest ledger version `b` says it holds. */
const highestVersion = (b: BlockPosition) => b.lastVersion ?? b.firstVersion;

/**
 * Whether `b`'s versions may come after `a`'s: its lowest version above `a`'s highest (a ledger
 * version is one transaction: no two blocks share one). A version either block does not say is
 * no constraint.
 */
export function versionsFollow(a: BlockPosition, b: BlockPosition): boolean {
  const top = highestVersion(a);
  const bottom = lowestVersion(b);
  return top === undefined || bottom === undefined || bottom > top;
}

/**
 * The ordering rules for `block` after the newest accepted one: `"duplicate"` for the same
 * height of the same chain and epoch (to be ignored), `"next"` otherwise (gaps up to
 * `maxHeightJump` are fine).
 *
 * @throws {BlockOrderError} for a lower height, another epoch at the same height, a lower epoch
 * at a higher height, an epoch
 * more epochs above the newest's than it is heights above it (a chain changes epoch at most
 * once per block: epoch 999 right after epoch 2 is a poison block, not news), another chain id
 * than the newest's, a height more than `maxHeightJump` above the newest, a first version (or
 * last, when it says no first) not above the newest's last version (versions must increase from
 * block to block, so the ledger version served never goes back and the oldest one held is never
 * above it). A timestamp is no rule: some chains' go back (Bitcoin's may), and refusing
 * their blocks would lose fee data for a header.
 * @example
 * checkBlockOrder({ height: 5n, epoch: 1n }, { height: 6n, epoch: 1n }); // "next"
 */
export function checkBlockOrder(
  newest: BlockPosition | undefined,
  block: BlockPosition,
  maxHeightJump?: bigint,
): "duplicate" | "next" {
  if (!newest) return "next";
  const otherChain =
    block.chainId !== undefined && newest.chainId !== undefined && block.chainId !== newest.chainId;
  const chainError = () =>
    new BlockOrderError({
      path: "chain_id",
      message: `${block.chainId} is not the chain ${newest.chainId} of the newest accepted block`,
      code: "out_of_order",
    });
  // Another chain's block is named as such whatever its height and epoch (a node of another
  // network was reported as below the newest height, or in a lower epoch, as if it lagged). The
  // newest height again is a duplicate only if it is the same chain's, in the same epoch:
  // another chain's block, or another epoch's, is no copy of it.
  if (otherChain) throw chainError();
  if (block.height === newest.height) {
    if (block.epoch === newest.epoch) return "duplicate";
    throw new BlockOrderError({
      path: "epoch",
      message: `${block.epoch} is not the epoch ${newest.epoch} of the newest accepted block at the same height ${block.height}`,
      code: "out_of_order",
    });
  }
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
  if (maxHeightJump !== undefined && block.height - newest.height > maxHeightJump)
    throw new BlockOrderError({
      path: "height",
      message: `${block.height} is ${block.height - newest.height} above the newest accepted height ${newest.height}; more than maxHeightJump (${maxHeightJump})`,
      code: "out_of_order",
    });
  if (!versionsFollow(newest, block))
    throw new BlockOrderError({
      path: block.firstVersion !== undefined ? "first_version" : "last_version",
      message: `${lowestVersion(block)} is not above the newest accepted ledger version ${highestVersion(newest)}; versions must increase from block to block`,
      code: "out_of_order",
    });
  return "next";
}
