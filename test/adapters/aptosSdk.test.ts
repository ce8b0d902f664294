// The claim the README makes: a real chain client pointed at gasdigest just works. The client
// is the Aptos TypeScript SDK (`@aptos-labs/ts-sdk`, what wallets and dApps use), talking to
// the node adapter over a loopback socket as it would to a fullnode.
//
// The SDK memoizes `getGasPriceEstimation` for 5 minutes per network, process-wide, and only
// what resolved: so this file asks for the estimate once per network, after the failures.
import { Aptos, AptosApiError, AptosConfig, Network } from "@aptos-labs/ts-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { createServer, type GasdigestServer, listen } from "../../src/adapters/node/index.js";
import { createEngine, type Engine } from "../../src/core/createEngine.js";
import { aip34 } from "../../src/strategies/aip34.js";
import { calibrated } from "../../src/strategies/calibrated.js";
import { fullBlock, idleBlock } from "../helpers/blocks.js";

const started: GasdigestServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.shutdown()));
});

async function serve(engine: Engine, basePath?: string) {
  // The SDK keeps its connections alive: a short keep-alive lets shutdown() close them quickly.
  const server = createServer(engine, {
    maxStalenessMs: false,
    keepAliveTimeout: 100,
    ...(basePath ? { basePath } : {}),
  });
  started.push(server);
  const { port } = await listen(server, { host: "127.0.0.1", port: 0 });
  return `http://127.0.0.1:${port}`;
}

const client = (fullnode: string, network = Network.CUSTOM) =>
  new Aptos(new AptosConfig({ network, fullnode }));

/** A chain whose full blocks clear at different prices, so the three tiers differ. */
function busyEngine(strategy = aip34()): Engine {
  const engine = createEngine({ strategy });
  for (let h = 1; h <= 40; h++)
    engine.ingest(h % 4 === 0 ? idleBlock(h) : fullBlock(h, 100 + ((h * 37) % 400)));
  return engine;
}

/** The estimate the engine serves, as the SDK's JSON reads it. */
function served(engine: Engine) {
  const estimate = engine.snapshot()?.estimate;
  if (!estimate) throw new Error("the engine serves no estimate");
  expect(estimate.deprioritized < estimate.regular).toBe(true);
  expect(estimate.regular < estimate.prioritized).toBe(true);
  return {
    deprioritized_gas_estimate: Number(estimate.deprioritized),
    gas_estimate: Number(estimate.regular),
    prioritized_gas_estimate: Number(estimate.prioritized),
  };
}

async function apiError(promise: Promise<unknown>): Promise<AptosApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AptosApiError);
  return error as AptosApiError;
}

describe("@aptos-labs/ts-sdk pointed at gasdigest", () => {
  it("reads a 503 before the first block as an API error carrying gasdigest's message and code", async () => {
    const base = await serve(createEngine({ strategy: aip34() }));
    const error = await apiError(client(`${base}/v1`).getGasPriceEstimation());
    expect(error.status).toBe(503);
    expect(error.data).toMatchObject({ error_code: "internal_error", vm_error_code: null });
    expect(String(error.data.message)).toMatch(/no block/i);
  });

  it("reads gasdigest's ledger info: the chain id and the newest block it ingested", async () => {
    const base = await serve(busyEngine());
    const aptos = client(`${base}/v1`);
    await expect(aptos.getLedgerInfo()).resolves.toMatchObject({
      chain_id: 4,
      epoch: "1",
      block_height: "40",
      ledger_version: "40999",
      node_role: "full_node",
    });
    await expect(aptos.getChainId()).resolves.toBe(4);
  });

  it("reads a route gasdigest does not serve as a 404 API error, not a parse failure", async () => {
    const base = await serve(busyEngine());
    const error = await apiError(client(`${base}/v1`).getBlockByHeight({ blockHeight: 40 }));
    expect(error.status).toBe(404);
    expect(error.data).toMatchObject({ error_code: "web_framework_error", vm_error_code: null });
  });

  it("gets the estimate the engine serves, all three tiers, as numbers", async () => {
    const engine = busyEngine();
    const base = await serve(engine);
    await expect(client(`${base}/v1`).getGasPriceEstimation()).resolves.toEqual(served(engine));
  });

  it("works under a base path other than /v1, with an opt-in strategy", async () => {
    const engine = busyEngine(calibrated());
    const base = await serve(engine, "/gas/v1");
    // Another network: the SDK's memo of the estimate is per network.
    const aptos = client(`${base}/gas/v1`, Network.LOCAL);
    await expect(aptos.getGasPriceEstimation()).resolves.toEqual(served(engine));
  });
});
