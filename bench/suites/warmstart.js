// Issue 14's warm start: how soon a replica started next to a filled stream serves the estimate.
// `gasdigest serve --source redis://...` (the built CLI, a fresh process) against the same
// command reading the same 121 blocks from a local NDJSON file (`--source ndjson:FILE`: no
// network, the floor of a process start), alternating, best of several starts each. Time =
// spawn until the first 200 of GET /v1/estimate_gas_price (polled every 5 ms); the split shows
// how much of it is Node loading the CLI, before the server listens.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { from, lastValueFrom } from "rxjs";
import { serializeBlockSample } from "../../dist/core/blockSample.js";
import { redisStreamSink } from "../../dist/redis.js";
import { makeBlocks } from "../lib.js";
import { redisServerAvailable, startRedisServer } from "../lib-redis.js";

const TITLE = "Warm start: a new replica next to a filled stream, spawn to first estimate";
const BIN = new URL("../../bin/gasdigest.js", import.meta.url).pathname;

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Spawn `serve` with `source`; ms until it served the estimate, and until it listened. */
async function startOnce(source) {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    // No staleness check: the stream was filled once, before the first start, and its blocks'
    // arrival times age past the default 30 s over a full run's starts (then every estimate is a
    // 503 and the run never ends); the time to the first estimate is what is measured.
    [BIN, "serve", "--source", source, "--port", String(port), "--max-staleness-ms", "0"],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let listenedAt;
  let out = "";
  child.stdout.on("data", (d) => {
    out += String(d);
    if (listenedAt === undefined && out.includes("gasdigest serving"))
      listenedAt = performance.now();
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    for (;;) {
      const res = await fetch(`http://127.0.0.1:${port}/v1/estimate_gas_price`).catch(
        () => undefined,
      );
      if (res?.status === 200) {
        const served = performance.now();
        return { total: served - t0, afterListen: served - (listenedAt ?? served) };
      }
      await res?.arrayBuffer();
      if (performance.now() - t0 > 30_000) throw new Error(`${source}: no estimate after 30 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

export default async function run({ quick }) {
  if (!redisServerAvailable)
    return { title: TITLE, rows: [{ name: "skipped: redis-server is not installed" }] };
  const starts = quick ? 2 : 6;
  const blocks = makeBlocks(10_000, 9);
  const redis = await startRedisServer();
  const dir = mkdtempSync(join(tmpdir(), "gasdigest-bench-warm-"));
  const file = join(dir, "window.ndjson");
  writeFileSync(file, `${blocks.slice(-121).map(serializeBlockSample).join("\n")}\n`);
  const best = { redis: { total: Infinity }, file: { total: Infinity } };
  try {
    await lastValueFrom(from(blocks).pipe(redisStreamSink(redis.url)));
    const sources = { redis: redis.url, file: `ndjson:${file}` };
    for (let i = 0; i < starts; i++)
      for (const name of i % 2 ? ["file", "redis"] : ["redis", "file"]) {
        const t = await startOnce(sources[name]);
        if (t.total < best[name].total) best[name] = t;
      }
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    title: TITLE,
    rows: [
      {
        name: "spawn to first estimate, serve --source redis:// (stream of 10,000 blocks)",
        ours: best.redis.total,
        baseline: best.file.total,
        unit: "ms",
        ratio: best.file.total / best.redis.total,
        kind: "overhead",
        note: `best of ${starts} starts each, alternating; baseline = serve --source ndjson: of the same newest 121 blocks (250 transactions each); after listening: ${Math.round(best.redis.afterListen)} ms (redis) vs ${Math.round(best.file.afterListen)} ms (file); target: estimate within 1 s`,
      },
    ],
  };
}
