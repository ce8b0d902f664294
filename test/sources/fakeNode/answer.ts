import type { FakeChain } from "./chain.js";
import { renderBlock, renderTxn } from "./render.js";

/** Which call a request is. */
export type Route = "ledger" | "block" | "transactions" | "gas" | "other";

/** The chain-state headers every answer carries. */
export function apiHeaders(chain: FakeChain): Record<string, string> {
  const tip = chain.block(chain.tip)!;
  const oldest = chain.block(chain.oldest)!;
  return {
    "content-type": "application/json",
    "x-aptos-chain-id": String(chain.chainId),
    "x-aptos-ledger-version": tip.lastVersion.toString(),
    "x-aptos-ledger-oldest-version": oldest.firstVersion.toString(),
    "x-aptos-ledger-timestampusec": tip.timestampUsec.toString(),
    "x-aptos-epoch": tip.epoch.toString(),
    "x-aptos-block-height": tip.height.toString(),
    "x-aptos-oldest-block-height": chain.oldest.toString(),
  };
}

const error = (status: number, code: string, message: string) => ({
  status,
  body: { message, error_code: code, vm_error_code: null },
});

/** The right answer to a request: status and JSON body. */
export function answer(
  chain: FakeChain,
  pageSize: number,
  route: Route,
  url: URL,
): { status: number; body: unknown } {
  const tip = chain.block(chain.tip)!;
  const oldest = chain.block(chain.oldest)!;
  if (route === "ledger")
    return {
      status: 200,
      body: {
        chain_id: chain.chainId,
        epoch: tip.epoch.toString(),
        ledger_version: tip.lastVersion.toString(),
        oldest_ledger_version: oldest.firstVersion.toString(),
        ledger_timestamp: tip.timestampUsec.toString(),
        node_role: "full_node",
        oldest_block_height: chain.oldest.toString(),
        block_height: tip.height.toString(),
        git_hash: "fake",
      },
    };
  if (route === "block") {
    const h = BigInt(url.pathname.slice("/v1/blocks/by_height/".length));
    if (h > chain.tip) return error(404, "block_not_found", `Block not found by height(${h})`);
    if (h < chain.oldest) return error(410, "block_pruned", `Block pruned by height(${h})`);
    return { status: 200, body: renderBlock(chain.block(h)!, pageSize) };
  }
  if (route === "transactions") {
    const startText = url.searchParams.get("start") ?? "0";
    const limit = Number(url.searchParams.get("limit") ?? "25");
    if (!/^\d+$/.test(startText)) return error(400, "invalid_input", "start must be a u64");
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      return error(400, "invalid_input", `limit must be from 1 to 100, got ${limit}`);
    const start = BigInt(startText);
    if (start < oldest.firstVersion)
      return error(410, "version_pruned", `Ledger version(${start}) pruned`);
    if (start > tip.lastVersion)
      return error(404, "version_not_found", `Ledger version(${start}) not found`);
    const out: unknown[] = [];
    for (let v = start; v < start + BigInt(limit) && v <= tip.lastVersion; v++) {
      const b = chain.blockAtVersion(v)!;
      out.push(renderTxn(b, Number(v - b.firstVersion)));
    }
    return { status: 200, body: out };
  }
  if (route === "gas") {
    const at = url.searchParams.get("ledger_version");
    let epoch = tip.epoch;
    if (at !== null) {
      const v = BigInt(at);
      if (v < oldest.firstVersion) return error(410, "version_pruned", "state pruned");
      const b = chain.blockAtVersion(v);
      if (!b) return error(404, "version_not_found", `Ledger version(${v}) not found`);
      epoch = b.epoch;
    }
    return {
      status: 200,
      body: {
        type: "0x1::gas_schedule::GasScheduleV2",
        data: {
          feature_version: "40",
          entries: [
            { key: "instr.nop", val: "36" },
            { key: "txn.min_transaction_gas_units", val: "2760000" },
            { key: "txn.min_price_per_gas_unit", val: chain.minPriceOfEpoch(epoch).toString() },
            { key: "txn.max_price_per_gas_unit", val: "10000000000" },
          ],
        },
      },
    };
  }
  return error(404, "web_framework_error", "not found");
}

/** Which call a request is. */
export function routeOf(url: URL): Route {
  const p = decodeURIComponent(url.pathname);
  if (p === "/v1" || p === "/v1/") return "ledger";
  if (/^\/v1\/blocks\/by_height\/\d+$/.test(p)) return "block";
  if (p === "/v1/transactions") return "transactions";
  if (p === "/v1/accounts/0x1/resource/0x1::gas_schedule::GasScheduleV2") return "gas";
  return "other";
}

/** Make one field of a correct answer the wrong type (each route its own field). */
export function corrupt(route: Route, body: unknown): unknown {
  // biome-ignore lint/suspicious/noExplicitAny: a test helper mutating known JSON shapes
  const copy = structuredClone(body) as any;
  if (route === "ledger") copy.chain_id = String(copy.chain_id);
  else if (route === "block") {
    const user = copy.transactions.find((t: { type: string }) => t.type === "user_transaction");
    if (user) user.gas_unit_price = Number(user.gas_unit_price);
    else copy.block_height = Number(copy.block_height);
  } else if (route === "transactions" && copy[0]) copy[0].version = Number(copy[0].version);
  else if (route === "gas") copy.data.entries = "none";
  else return { nothing: true };
  return copy;
}
