import type { LedgerState } from "../core/types.js";

/** The seven chain-state headers (names after the prefix) and the ledger field each carries. */
export const CHAIN_STATE_HEADERS = Object.freeze([
  { name: "Chain-Id", field: "chainId", description: "Chain id, 0..255." },
  { name: "Ledger-Version", field: "ledgerVersion", description: "Newest ledger version seen." },
  {
    name: "Ledger-Oldest-Version",
    field: "oldestLedgerVersion",
    description: "Oldest ledger version still held.",
  },
  {
    name: "Ledger-TimestampUsec",
    field: "timestampUsec",
    description: "Newest block's timestamp, microseconds since the Unix epoch.",
  },
  { name: "Epoch", field: "epoch", description: "Current epoch." },
  { name: "Block-Height", field: "blockHeight", description: "Newest block height." },
  {
    name: "Oldest-Block-Height",
    field: "oldestBlockHeight",
    description: "Oldest block height still held.",
  },
] as const satisfies readonly { name: string; field: keyof LedgerState; description: string }[]);

/**
 * The chain-state headers of a ledger state, as decimal strings under `prefix`.
 *
 * @example
 * chainStateHeaders(snapshot.ledger)["X-Aptos-Block-Height"]; // "1042"
 */
export function chainStateHeaders(
  ledger: LedgerState,
  prefix = "X-Aptos-",
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const h of CHAIN_STATE_HEADERS) headers[prefix + h.name] = String(ledger[h.field]);
  return headers;
}
