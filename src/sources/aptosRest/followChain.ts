import { setTimeout as sleep } from "node:timers/promises";
import type { BlockSample } from "../../core/blockSample.js";
import { BaseError } from "../../core/errors.js";
import { type BlockAnswer, createNodeClient, type NodeClient } from "./createNodeClient.js";
import type { ResolvedAptosRestOptions } from "./options.js";
import type { LedgerInfo } from "./schemas.js";
import { blockEpoch, toBlockSample } from "./toBlockSample.js";
import type { NodeBlock } from "./transactions.js";

/** Most transactions `GET /v1/transactions` returns per page (more is answered 400). */
export const PAGE_LIMIT = 100;

type Fetched =
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

function startHeight(info: LedgerInfo, options: ResolvedAptosRestOptions): bigint {
  if (options.startHeight !== undefined) return options.startHeight;
  const from = info.blockHeight + 1n - BigInt(options.backfillBlocks);
  return from > info.oldestBlockHeight ? from : info.oldestBlockHeight;
}

/**
 * The follow loop of the `aptosRest` source: read the ledger info, backfill, then poll the tip,
 * fetching up to `concurrency` blocks at once and emitting them strictly in height order, each
 * exactly once. Returns only when `signal` aborts (it then rejects with the abort reason).
 */
export async function followChain(
  options: ResolvedAptosRestOptions,
  emit: (block: BlockSample) => void,
  signal: AbortSignal,
): Promise<void> {
  const { onEvent } = options;
  let catchingUp = true;
  let caughtUpBlocks = 0;
  const client = createNodeClient({
    ...options,
    onEvent(event) {
      if (event.type === "recovered") {
        catchingUp = true;
        caughtUpBlocks = 0;
      }
      onEvent(event);
    },
  });
  let info = await client.ledgerInfo(signal);
  const chainId = info.chainId;
  let tip = info.blockHeight;
  let next = startHeight(info, options);
  onEvent({
    type: "started",
    url: options.baseUrl,
    chainId,
    tip,
    oldest: info.oldestBlockHeight,
    from: next,
  });
  let epoch: bigint | undefined;
  let minPrice: bigint | undefined;
  // Blocks being fetched ahead of `next`, by height; cleared (and aborted) on a skip or a 404.
  let window = new Map<bigint, Promise<Fetched>>();
  let windowAbort = new AbortController();
  const abortWindow = () => windowAbort.abort(signal.reason);
  signal.addEventListener("abort", abortWindow, { once: true });
  const resetWindow = () => {
    windowAbort.abort();
    window = new Map();
    windowAbort = new AbortController();
  };

  try {
    while (!signal.aborted) {
      if (next > tip) {
        if (catchingUp) {
          onEvent({ type: "caught_up", height: next - 1n, blocks: caughtUpBlocks });
          catchingUp = false;
        }
        await sleep(options.pollIntervalMs, undefined, { signal });
        info = await client.ledgerInfo(signal, chainId);
        tip = info.blockHeight;
        continue;
      }
      const last = next + BigInt(options.concurrency) - 1n;
      for (let h = next; h <= last && h <= tip; h++) {
        if (window.has(h)) continue;
        const p = fetchCompleteBlock(client, h, windowAbort.signal);
        p.catch(() => undefined); // aborted fetches of a cleared window are not awaited
        window.set(h, p);
      }
      const r = await window.get(next)!;
      window.delete(next);
      if (r.kind === "block") {
        if (r.epoch !== epoch) {
          const value = await client.minGasUnitPrice(r.block.firstVersion, signal);
          onEvent({
            type: "min_gas_unit_price",
            epoch: r.epoch,
            height: r.block.height,
            value,
            previous: minPrice,
          });
          epoch = r.epoch;
          minPrice = value;
        }
        emit(toBlockSample(r.block, r.epoch, { chainId, minGasUnitPrice: minPrice }));
        next++;
        if (catchingUp) caughtUpBlocks++;
      } else if (r.kind === "not_found") {
        // The node that answered is behind the tip we were told: wait for it.
        resetWindow();
        tip = next - 1n;
      } else {
        resetWindow();
        info = await client.ledgerInfo(signal, chainId);
        tip = info.blockHeight;
        if (info.oldestBlockHeight > next) {
          onEvent({ type: "pruned_skip", from: next, to: info.oldestBlockHeight });
          next = info.oldestBlockHeight;
          catchingUp = true;
          caughtUpBlocks = 0;
        } else await sleep(options.pollIntervalMs, undefined, { signal });
      }
    }
  } finally {
    signal.removeEventListener("abort", abortWindow);
    windowAbort.abort();
  }
}
