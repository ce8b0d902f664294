import { BaseError } from "../../core/errors.js";
import type { BlockAnswer, NodeClient } from "./createNodeClient.js";
import { blockEpoch } from "./toBlockSample.js";
import type { NodeBlock } from "./transactions.js";

/** Most transactions `GET /v1/transactions` returns per page (more is answered 400). */
export const PAGE_LIMIT = 100;

/** A block with its complete transaction list and epoch, or where the node stands. */
export type Fetched =
  | Exclude<BlockAnswer, { kind: "block" }>
  | { kind: "block"; block: NodeBlock; epoch: bigint };

/**
 * Fetch a block and complete its transaction list when the node cut it: page through
 * `/v1/transactions` from the first missing version up to and including `last_version`.
 *
 * @example
 * const r = await fetchCompleteBlock(client, 1042n, signal); // r.block.transactions ends at last_version
 */
export async function fetchCompleteBlock(
  client: NodeClient,
  height: bigint,
  signal: AbortSignal,
): Promise<Fetched> {
  const r = await client.block(height, signal);
  if (r.kind !== "block") return r;
  const block = r.block;
  const txns = block.transactions.slice();
  let next = block.firstVersion + BigInt(txns.length);
  while (next <= block.lastVersion) {
    const remaining = block.lastVersion - next + 1n;
    const limit = remaining < BigInt(PAGE_LIMIT) ? Number(remaining) : PAGE_LIMIT;
    const page = await client.transactions(next, limit, block, signal);
    if (page === "pruned") return { kind: "pruned" };
    for (const t of page) txns.push(t);
    next += BigInt(page.length);
  }
  const epoch = blockEpoch(txns);
  // The parsers make sure the transaction at first_version is the metadata (or genesis) one.
  if (epoch === undefined) throw new BaseError(`block ${height}: no epoch after validation`);
  return { kind: "block", block: { ...block, transactions: txns }, epoch };
}
