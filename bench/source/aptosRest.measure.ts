// Throughput of the aptosRest source against the fake node on loopback (not part of the suite).
// Run: npm run bench:source (about 3 minutes). Prints blocks/s; asserts nothing.
import { lastValueFrom, take, toArray } from "rxjs";
import { it } from "vitest";
import { aptosRest } from "../../src/sources/aptosRest.js";
import { startFakeNode } from "../../test/sources/fakeNode.js";

const N = 2000;
async function run(
  label: string,
  options: { pageSize: number; latencyMs?: number },
  concurrency: number,
  runs = 3,
) {
  const node = await startFakeNode({ blocks: N, usersPerBlock: [100, 100], ...options });
  await lastValueFrom(
    aptosRest(node.url, { backfillBlocks: N, concurrency: 8 }).pipe(take(N), toArray()),
  ); // warm-up: renders every block once
  const rates: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    let n = 0;
    await lastValueFrom(aptosRest(node.url, { backfillBlocks: N, concurrency }).pipe(take(N)), {
      defaultValue: undefined,
    }).then(() => (n = N));
    rates.push(n / ((performance.now() - t0) / 1000));
  }
  rates.sort((a, b) => a - b);
  console.log(
    `${label} concurrency ${concurrency}: median ${rates[Math.floor(rates.length / 2)]!.toFixed(0)} blocks/s (runs ${rates.map((x) => x.toFixed(0)).join(", ")})`,
  );
  await node.close();
}

it("measures backfill throughput", async () => {
  for (const c of [1, 4, 8])
    await run("2000 blocks x 100 txns, inline lists, no latency", { pageSize: 10_000 }, c, 5);
  await run("2000 blocks x 100 txns, lists cut at 40 (3 pages per block)", { pageSize: 40 }, 4, 3);
  for (const c of [1, 4, 8])
    await run("2000 blocks x 100 txns, 20 ms latency", { pageSize: 10_000, latencyMs: 20 }, c, 1);
}, 900_000);
