import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { type ServeHandle, startServe } from "../../src/cli/serve.js";
import { runCli } from "../helpers/cli.js";
import { FAST_DRAIN } from "../helpers/fastDrain.js";
import { replayedEstimate } from "../helpers/replayCli.js";
import { until } from "../helpers/until.js";
import { QUICK_FAULTS, startFakeNode } from "../sources/fakeNode.js";

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

async function served(handle: ServeHandle) {
  const res = await fetch(`${handle.url}/v1/estimate_gas_price`);
  return {
    status: res.status,
    body: await res.json(),
    height: res.headers.get("x-aptos-block-height"),
  };
}

describe("gasdigest serve --source aptos:URL", () => {
  it("serves the replayed estimate, through a fault storm and a node outage, and record+replay agrees", async () => {
    // Blocks as new as the wall clock: the backfill and the catch-up after the outage are then
    // fresh (a block read behind the tip is as old as its timestamp).
    const node = await startFakeNode({
      blocks: 200,
      seed: 9,
      pageSize: 30,
      timestampAt: () => BigInt(Date.now()) * 1000n,
    });
    cleanup.push(() => node.close());
    const logs: string[] = [];
    const stdout = new PassThrough();
    stdout.on("data", (d) => logs.push(String(d)));
    const handle = await startServe(
      [
        "--source",
        `aptos:${node.url}`,
        "--port",
        "0",
        "--poll-ms",
        "20",
        "--max-staleness-ms",
        "1500",
        ...FAST_DRAIN,
      ],
      { stdout, stderr: new PassThrough() },
    );
    cleanup.push(() => handle.close());
    const tip = () => node.chain.tip;
    const height = () => handle.engine.snapshot()?.ledger.blockHeight;

    // Backfill: the last aggressiveBlockHistory + 1 = 121 blocks, then the estimate is right.
    // (A block made now is read live: the backfilled ones are as old as their timestamps, and
    // on a loaded machine older than the 1.5 s staleness bound by the time they are read.)
    const start = tip();
    await until(() => height() === start, 30_000);
    const from = start - 120n;
    node.chain.addBlocks(1);
    const first = tip();
    await until(() => height() === first, 30_000);
    expect((await served(handle)).body).toEqual(
      await replayedEstimate(node.chain.expectedSamples(from, first), first),
    );

    // A storm of faults while the chain grows: nothing lost, nothing duplicated.
    node.storm({ rate: 0.3, seed: 3, kinds: QUICK_FAULTS });
    node.grow(20, 1);
    await until(() => height() !== undefined && height()! >= first + 60n, 30_000);
    node.stopGrowing();
    node.storm(undefined);
    await until(() => height() === tip(), 30_000);
    node.chain.addBlocks(1); // fresh, however long the storm's retries took
    await until(() => height() === tip(), 30_000);
    expect((await served(handle)).body).toEqual(
      await replayedEstimate(node.chain.expectedSamples(from, tip()), tip()),
    );
    const faulted = node.requests.filter((r) => typeof r.outcome !== "number");
    expect(faulted.length).toBeGreaterThan(10);
    expect(handle.engine.counters()).toMatchObject({ duplicate: 0, rejected: 0 });
    expect(handle.engine.counters().accepted).toBe(Number(tip() - from + 1n));

    // The node goes away: the last estimate is served until it is stale, then 503.
    await node.stop();
    const before = await served(handle);
    expect(before.status).toBe(200);
    await until(async () => (await served(handle)).status === 503, 10_000);
    expect((await served(handle)).body).toMatchObject({ error_code: "health_check_failed" });
    // It comes back with new blocks: the source backfills the gap and recovers by itself.
    node.chain.addBlocks(30);
    await node.start();
    await until(() => height() === tip(), 30_000);
    // The chain goes on: a block made after the catch-up is fresh.
    node.chain.addBlocks(1);
    await until(() => height() === tip(), 30_000);
    const after = await served(handle);
    expect(after.status).toBe(200);
    expect(after.body).toEqual(
      await replayedEstimate(node.chain.expectedSamples(from, tip()), tip()),
    );
    const text = logs.join("");
    expect(text).toContain('"event":"unreachable"');
    expect(text).toContain('"event":"recovered"');

    // gasdigest record of the same node, then gasdigest replay, ends on the served estimate.
    const dir = mkdtempSync(join(tmpdir(), "gasdigest-record-"));
    const out = join(dir, "rec.ndjson");
    const rec = await runCli([
      "record",
      "--source",
      `aptos:${node.url}`,
      "--blocks",
      "121",
      "--out",
      out,
    ]);
    expect(rec.code).toBe(0);
    const replayed = await runCli(["replay", "--input", out]);
    expect(replayed.code).toBe(0);
    const { height: last, ...estimate } = JSON.parse(replayed.stdout.trim().split("\n").pop()!);
    expect(last).toBe(String(tip()));
    expect(estimate).toEqual(after.body);
  }, 90_000);
});
