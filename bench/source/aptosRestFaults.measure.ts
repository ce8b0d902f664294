// The aptosRest source catching up with a growing chain on the fake node, with and without
// faults (not part of the suite). Run: npm run bench:source, or this file alone:
//   npx vitest run --config bench/source/vitest.config.ts bench/source/aptosRestFaults.measure.ts
// (ONLY_FAULTS=1 skips the fault-free runs; LOOKAHEAD=N and CONCURRENCY=N override the source's
// defaults.) Prints blocks/s while behind the tip, the request overlap and the lag while
// following afterwards; asserts nothing.
import { it } from "vitest";
import { type AptosRestEvent, aptosRest } from "../../src/sources/aptosRest.js";
import { type Fault, startFakeNode } from "../../test/sources/fakeNode.js";

/** The fault mix of issue 13's probe: 500, 503, 429 with Retry-After: 1, 2 s stalls, resets, cut bodies. */
const FAULTS: readonly Fault[] = [
  { kind: "status", status: 500 },
  { kind: "status", status: 503 },
  { kind: "rate_limit", retryAfter: "1" },
  { kind: "stall", ms: 2_000 },
  { kind: "drop" },
  { kind: "truncate" },
];
const BACKLOG = 600;
const GROWTH_PER_S = 10;
const LIMIT_MS = 120_000;
/**
 * Blocks from the tip below which the source counts as caught up: 5 s of growth. Closer than
 * that, the pace is set by the chain (and the 500 ms poll), not by the source.
 */
const CLOSE = 50n;
const FOLLOW_MS = 10_000;

/** Time-weighted count of requests in flight, from the fetch call to the end of the body. */
function overlapMeter() {
  let inFlight = 0;
  let area = 0;
  let last = performance.now();
  const change = (d: number) => {
    const t = performance.now();
    area += inFlight * (t - last);
    last = t;
    inFlight += d;
  };
  const tracked = (res: Response): Response => {
    if (!res.body) {
      change(-1);
      return res;
    }
    const reader = res.body.getReader();
    let open = true;
    const finish = () => {
      if (open) change(-1);
      open = false;
    };
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        try {
          const r = await reader.read();
          if (r.done) {
            finish();
            c.close();
          } else c.enqueue(r.value);
        } catch (e) {
          finish();
          c.error(e);
        }
      },
      cancel(reason) {
        finish();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: res.status, headers: res.headers });
  };
  const meteredFetch: typeof fetch = async (input, init) => {
    change(1);
    try {
      return tracked(await fetch(input, init));
    } catch (e) {
      change(-1);
      throw e;
    }
  };
  const average = (ms: number) => {
    change(0);
    return area / ms;
  };
  return { fetch: meteredFetch, average };
}

async function followGrowing(label: string, faultRate: number, seed: number) {
  const node = await startFakeNode({
    blocks: BACKLOG + 10,
    usersPerBlock: [100, 100],
    pageSize: 10_000,
    seed,
  });
  node.grow(1000 / GROWTH_PER_S, 1);
  if (faultRate > 0) node.storm({ rate: faultRate, seed, kinds: FAULTS });
  const events: AptosRestEvent[] = [];
  const meter = overlapMeter();
  let emitted = 0;
  let newest = 0n;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const sub = aptosRest(node.url, {
    backfillBlocks: BACKLOG,
    ...(process.env.LOOKAHEAD ? { lookaheadBlocks: Number(process.env.LOOKAHEAD) } : {}),
    ...(process.env.CONCURRENCY ? { concurrency: Number(process.env.CONCURRENCY) } : {}),
    fetch: meter.fetch,
    onEvent: (e) => events.push(e),
  }).subscribe((b) => {
    emitted++;
    newest = b.height;
  });
  // Behind while more than CLOSE blocks separate the newest block emitted from the tip.
  while (node.chain.tip - newest > CLOSE && performance.now() - t0 < LIMIT_MS)
    await new Promise((r) => setTimeout(r, 20));
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const busy = (cpu.user + cpu.system) / 1000 / ms;
  const blocks = emitted;
  const overlap = meter.average(ms);
  const caught = node.chain.tip - newest <= CLOSE;
  // Then follow for FOLLOW_MS: how far behind the growing tip does it stay?
  let lagSum = 0n;
  let lagMax = 0n;
  let lagSamples = 0n;
  const followEnd = performance.now() + FOLLOW_MS;
  while (caught && performance.now() < followEnd) {
    await new Promise((r) => setTimeout(r, 50));
    const lag = node.chain.tip - newest;
    lagSum += lag;
    lagSamples++;
    if (lag > lagMax) lagMax = lag;
  }
  sub.unsubscribe();
  node.stopGrowing();
  node.storm(undefined);
  const faults = node.requests.filter((r) => typeof r.outcome === "string").length;
  const retried = events.filter((e) => e.type === "retrying").length;
  const rate = blocks / (ms / 1000);
  const lagMean = lagSamples > 0n ? Number(lagSum) / Number(lagSamples) : Number.NaN;
  console.log(
    `${label} (seed ${seed}): ${rate.toFixed(1)} blocks/s while behind ` +
      `(${blocks} blocks in ${(ms / 1000).toFixed(1)} s${caught ? "" : ", NOT caught up"}), ` +
      `requests in flight ${overlap.toFixed(2)} on average, CPU ${(busy * 100).toFixed(0)} % ` +
      `of one core (node and source); then ${FOLLOW_MS / 1000} s following: ` +
      `${lagMean.toFixed(1)} blocks behind on average, ${lagMax} at most; ` +
      `${node.requests.length} requests, ${faults} faults, ${retried} retries`,
  );
  await node.close();
  return rate;
}

it("measures catching up with a growing chain (10 blocks/s), with and without 25 % faults", async () => {
  for (const [label, rate] of [
    ["no faults", 0],
    ["25 % faults", 0.25],
  ] as const) {
    if (process.env.ONLY_FAULTS && rate === 0) continue;
    const rates: number[] = [];
    for (const seed of [1, 2, 3]) rates.push(await followGrowing(label, rate, seed));
    rates.sort((a, b) => a - b);
    console.log(`${label}: median ${rates[1]!.toFixed(1)} blocks/s`);
  }
}, 900_000);
