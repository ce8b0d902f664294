import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { type ServeHandle, startServe } from "../../src/cli/serve.js";
import { until } from "../helpers/until.js";
import { startFakeNode } from "../sources/fakeNode.js";

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

async function serveNode(url: string, flags: string[]): Promise<ServeHandle> {
  const handle = await startServe(
    ["--source", `aptos:${url}`, "--port", "0", "--poll-ms", "20", ...flags],
    { stdout: new PassThrough(), stderr: new PassThrough() },
  );
  cleanup.push(() => handle.close());
  return handle;
}

const estimate = (handle: ServeHandle) => fetch(`${handle.url}/v1/estimate_gas_price`);

describe("gasdigest serve --source aptos:URL: the backfill", () => {
  it("answers 503 while its newest block is an old one read behind the tip, 200 once a block is read live", async () => {
    // The fake chain's blocks are from November 2023: read behind the tip, they are stale.
    const node = await startFakeNode({ blocks: 200 });
    cleanup.push(() => node.close());
    const handle = await serveNode(node.url, []);
    const height = () => handle.engine.snapshot()?.ledger.blockHeight;
    await until(() => height() === node.chain.tip, 30_000);
    const old = await estimate(handle);
    expect(old.status).toBe(503);
    expect(await old.json()).toMatchObject({ error_code: "health_check_failed" });
    // A block made after the server caught up is read live: its estimate is served.
    node.chain.addBlocks(1);
    await until(() => height() === node.chain.tip, 30_000);
    const live = await estimate(handle);
    expect(live.status).toBe(200);
    expect(live.headers.get("x-aptos-block-height")).toBe(String(node.chain.tip));
  });

  it("reads what the strategy needs by default (calibrated: 2,001 blocks), or --backfill N", async () => {
    const fresh = () => BigInt(Date.now()) * 1000n;
    const node = await startFakeNode({ blocks: 2_100, usersPerBlock: [0, 3], timestampAt: fresh });
    cleanup.push(() => node.close());
    const calibrated = await serveNode(node.url, ["--strategy", "calibrated"]);
    const aip34 = await serveNode(node.url, []);
    const chosen = await serveNode(node.url, ["--backfill", "50"]);
    for (const [handle, blocks] of [
      [calibrated, 2_001],
      [aip34, 121],
      [chosen, 50],
    ] as const) {
      await until(() => handle.engine.snapshot()?.ledger.blockHeight === node.chain.tip, 60_000);
      expect(handle.engine.counters().accepted).toBe(blocks);
      expect((await estimate(handle)).status).toBe(200);
    }
  }, 90_000);
});
