import { setTimeout as sleep } from "node:timers/promises";
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

/** How many times a 404 for a height some node announced is asked again before it counts. */
export const NOT_FOUND_RETRIES = 3;

/**
 * {@link fetchCompleteBlock} for a height a ledger read announced (at or below the newest tip
 * seen): a 404 is asked again, up to {@link NOT_FOUND_RETRIES} times `pauseMs` apart, before it
 * is returned. Behind a load balancer each request may reach another node, and one that lags
 * answers 404 for blocks the others have: taken at once, that 404 threw away the blocks fetched
 * ahead and set the tip back to the lagging node's, and the source fell as far behind as its
 * slowest node.
 *
 * @example
 * const r = await fetchAnnouncedBlock(client, 1042n, signal, 50); // not_found only after 4 404s
 */
export async function fetchAnnouncedBlock(
  client: NodeClient,
  height: bigint,
  signal: AbortSignal,
  pauseMs: number,
): Promise<Fetched> {
  for (let retries = 0; ; retries++) {
    const r = await fetchCompleteBlock(client, height, signal);
    if (r.kind !== "not_found" || retries === NOT_FOUND_RETRIES) return r;
    await sleep(pauseMs, undefined, { signal });
  }
}
