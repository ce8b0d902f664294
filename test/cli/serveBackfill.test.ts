import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { type ServeHandle, startServe } from "../../src/cli/serve.js";
import { FAST_DRAIN } from "../helpers/fastDrain.js";
import { until } from "../helpers/until.js";
import { startFakeNode } from "../sources/fakeNode.js";

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

async function serveNode(url: string, flags: string[]): Promise<ServeHandle> {
  const handle = await startServe(
    ["--source", `aptos:${url}`, "--port", "0", "--poll-ms", "20", ...FAST_DRAIN, ...flags],
    { stdout: new PassThrough(), stderr: new PassThrough() },
  );
  cleanup.push(() => handle.close());
  return handle;
}

const estimate = (handle: ServeHandle) => fetch(`${handle.url}/v1/estimate_gas_price`);

describe("gasdigest serve --source aptos:URL: the backfill", () => {
  it("answers 503 while its newest block was made long before the node's tip, 200 from blocks near it", async () => {
    // Blocks 250 ms apart (from November 2023: only the time before the tip counts), read one
    // at a time 10 ms each, so the backfill of 121 lasts long enough to be watched. With a
    // staleness bound of 5 s, a block more than 20 blocks before the tip is stale.
    const node = await startFakeNode({ blocks: 200, latencyMs: 10 });
    cleanup.push(() => node.close());
    const handle = await serveNode(node.url, ["--concurrency", "1", "--max-staleness-ms", "5000"]);
    const tip = node.chain.tip;
    const seen: { status: number; code?: string; height: bigint }[] = [];
    while (handle.engine.snapshot()?.ledger.blockHeight !== tip) {
      const r = await estimate(handle);
      const body = (await r.json()) as { error_code?: string };
      const height = r.headers.get("x-aptos-block-height");
      if (height !== null)
        seen.push({ status: r.status, code: body.error_code, height: BigInt(height) });
      await new Promise((r) => setTimeout(r, 10));
    }
    const stale = seen.filter((s) => s.status === 503);
    expect(stale.length).toBeGreaterThan(0);
    for (const s of stale) expect(s.code).toBe("health_check_failed");
    // Never the price of a block made more than 5 s before the tip.
    for (const s of seen.filter((s) => s.status === 200))
      expect(s.height).toBeGreaterThanOrEqual(tip - 20n);
    const last = await estimate(handle);
    expect(last.status).toBe(200);
    expect(last.headers.get("x-aptos-block-height")).toBe(String(tip));
  });

  it("reads what the strategy needs by default (calibrated: 2,001 blocks), or --backfill N", async () => {
    const fresh = () => BigInt(Date.now()) * 1000n;
    const node = await startFakeNode({ blocks: 2_100, usersPerBlock: [0, 3], timestampAt: fresh });
    cleanup.push(() => node.close());
    // Staleness is the test above's subject: off here, so a loaded machine that takes longer
    // than its bound to read 2,001 blocks (made once, at the node's start) does not turn the
    // last answer into a 503.
    const off = ["--max-staleness-ms", "0"];
    const calibrated = await serveNode(node.url, ["--strategy", "calibrated", ...off]);
    const aip34 = await serveNode(node.url, off);
    const chosen = await serveNode(node.url, ["--backfill", "50", ...off]);
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
