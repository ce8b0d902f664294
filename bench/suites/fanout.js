// Issue 14's fan-out latency: from handing a block to the feed until all 3 replicas serve it.
// Each replica is a child process (bench/servers/fanout-replica.js: engine + node:http server of
// the built package) reporting when a new snapshot, the thing every request reads, is in place.
//   ours: the block goes through redisStreamSink (pipelined XADD) into a redis-server of our own
//         (loopback, AOF on); 3 replicas follow it with redisStream (XREAD BLOCK).
//   baseline: 3 replicas fed by an in-process push source: the same block as an NDJSON line
//         written straight to each replica's stdin (no broker at all).
// 250-transaction blocks, one at a time (the next when all 3 replicas have the previous one,
// plus a pause), the two setups alternating in rounds. Latency = the last replica's snapshot
// time minus the send time (wall clock, same machine).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { Subject } from "rxjs";
import { serializeBlockSample } from "../../dist/core/blockSample.js";
import { redisStreamSink } from "../../dist/redis.js";
import { makeBlocks } from "../lib.js";
import { percentile, redisServerAvailable, startRedisServer, wallMs } from "../lib-redis.js";

const TITLE = "Fan-out: a new block until 3 replicas serve it (Redis Stream vs push)";
const REPLICAS = 3;

function startReplica(args) {
  const path = new URL("../servers/fanout-replica.js", import.meta.url).pathname;
  const child = spawn(process.execPath, [path, ...args], { stdio: ["pipe", "pipe", "inherit"] });
  const seen = new Map();
  let onSeen = () => undefined;
  let resolveReady;
  const ready = new Promise((resolve) => {
    resolveReady = resolve;
  });
  createInterface({ input: child.stdout }).on("line", (line) => {
    const m = JSON.parse(line);
    if (m.port !== undefined) resolveReady(m.port);
    else {
      seen.set(BigInt(m.h), m.t);
      onSeen();
    }
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    child,
    ready,
    seen,
    set onSeen(f) {
      onSeen = f;
    },
    stop: () => {
      child.stdin.end();
      return exited;
    },
  };
}

/** Resolves when every replica has reported `height` (rejects after 10 s). */
function allSeen(replicas, height) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`height ${height} never reached all replicas`)),
      10_000,
    );
    const check = () => {
      if (replicas.every((r) => r.seen.has(height))) {
        clearTimeout(timer);
        resolve(Math.max(...replicas.map((r) => r.seen.get(height))));
      }
    };
    for (const r of replicas) r.onSeen = check;
    check();
  });
}

export default async function run({ quick }) {
  if (!redisServerAvailable)
    return { title: TITLE, rows: [{ name: "skipped: redis-server is not installed" }] };
  const rounds = quick ? 2 : 6;
  const perRound = quick ? 25 : 100;
  const blocks = makeBlocks(rounds * perRound + 1, 5);
  const redis = await startRedisServer();
  const viaRedis = Array.from({ length: REPLICAS }, () => startReplica(["redis", redis.url]));
  const viaPush = Array.from({ length: REPLICAS }, () => startReplica(["push"]));
  const input = new Subject();
  const sink = input.pipe(redisStreamSink(redis.url)).subscribe();
  const setups = {
    redis: { replicas: viaRedis, send: (b) => input.next(b), next: 0, latencies: [] },
    push: {
      replicas: viaPush,
      send: (b) => {
        const line = `${serializeBlockSample(b)}\n`;
        for (const r of viaPush) r.child.stdin.write(line);
      },
      next: 0,
      latencies: [],
    },
  };
  try {
    await Promise.all([...viaRedis, ...viaPush].map((r) => r.ready));
    // Warm-up: the first block makes sure every replica follows its feed.
    for (const s of Object.values(setups)) {
      const b = blocks[s.next++];
      const sent = allSeen(s.replicas, b.height);
      s.send(b);
      await sent;
    }
    for (let round = 0; round < rounds; round++)
      for (const name of round % 2 ? ["push", "redis"] : ["redis", "push"]) {
        const s = setups[name];
        for (let i = 0; i < perRound; i++) {
          const b = blocks[s.next++];
          const seen = allSeen(s.replicas, b.height);
          const t0 = wallMs();
          s.send(b);
          s.latencies.push((await seen) - t0);
          await new Promise((r) => setTimeout(r, 5));
        }
      }
  } finally {
    sink.unsubscribe();
    await Promise.all([...viaRedis, ...viaPush].map((r) => r.stop()));
    await redis.stop();
  }
  const n = setups.redis.latencies.length;
  const row = (p) => {
    const ours = percentile(setups.redis.latencies, p);
    const baseline = percentile(setups.push.latencies, p);
    return {
      name: `p${p} latency until all ${REPLICAS} replicas serve the block`,
      ours,
      baseline,
      unit: "ms",
      ratio: baseline / ours,
      kind: "overhead",
      note: `${n} blocks of 250 transactions per setup, alternating rounds; ours = redisStreamSink -> redis-server (AOF) -> redisStream (XREAD BLOCK) in each replica; baseline = the NDJSON line written to each replica's stdin into a push source; <1 = Redis's share`,
    };
  };
  return { title: TITLE, rows: [row(50), row(99)] };
}
