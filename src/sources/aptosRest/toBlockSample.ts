import { type BlockSample, parseBlockSample } from "../../core/blockSample.js";
import { isSpecialAddress } from "./entryFunction.js";
import type { NodeBlock, NodeTxn } from "./transactions.js";

/** What a block sample needs besides the block itself. */
export interface BlockContext {
  readonly chainId: number;
  readonly minGasUnitPrice: bigint | undefined;
}

/**
 * The epoch of a complete block: its block metadata transaction's; `0` for the genesis block.
 * `undefined` when the block has neither (the caller treats that as a bad response).
 */
export function blockEpoch(transactions: readonly NodeTxn[]): bigint | undefined {
  const first = transactions[0];
  if (first?.type === "block_metadata_transaction") return first.epoch;
  if (first?.type === "genesis_transaction") return 0n;
  return undefined;
}

/**
 * Share (0..1) of the user transactions that call the most common contract address through an
 * entry function, as the node's gas estimation counts use cases: calls to the framework's
 * special addresses `0x0`-`0xf` are the platform's use case, not a contract's, and user
 * transactions without an entry function (scripts, multisig) are another; both count in the
 * denominator only. (The node finds no fraction when its most common use case is not a
 * contract; a contract over half of the block is the most common, so rule (a) decides alike.)
 * `undefined` for a block without user transactions.
 *
 * @example
 * majorityUseCaseFraction(txns); // 0.75 when 3 of 4 user transactions call 0xbeef::dex::...
 */
export function majorityUseCaseFraction(transactions: readonly NodeTxn[]): number | undefined {
  const counts = new Map<string, number>();
  let users = 0;
  let top = 0;
  for (const t of transactions) {
    if (t.type !== "user_transaction") continue;
    users++;
    if (t.contract === undefined || isSpecialAddress(t.contract)) continue;
    const n = (counts.get(t.contract) ?? 0) + 1;
    counts.set(t.contract, n);
    if (n > top) top = n;
  }
  return users === 0 ? undefined : top / users;
}

/**
 * Turn a complete block (every transaction from `firstVersion` to `lastVersion`) into a
 * validated {@link BlockSample}.
 *
 * @example
 * const sample = toBlockSample(block, 12345n, { chainId: 1, minGasUnitPrice: 100n });
 */
export function toBlockSample(block: NodeBlock, epoch: bigint, context: BlockContext): BlockSample {
  const prices: bigint[] = [];
  const used: bigint[] = [];
  let limitReached: boolean | undefined;
  for (const t of block.transactions) {
    if (t.type === "user_transaction") {
      prices.push(t.gasUnitPrice);
      used.push(t.gasUsed);
    } else if (t.type === "block_epilogue_transaction" && t.limitReached !== undefined)
      limitReached = t.limitReached;
  }
  return parseBlockSample({
    height: block.height,
    epoch,
    timestamp_usec: block.timestampUsec,
    first_version: block.firstVersion,
    last_version: block.lastVersion,
    chain_id: context.chainId,
    min_gas_unit_price: context.minGasUnitPrice,
    gas_unit_prices: prices,
    gas_used: used,
    block_gas_limit_reached: limitReached,
    majority_use_case_fraction: majorityUseCaseFraction(block.transactions),
  });
}
