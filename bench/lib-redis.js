// Shared by the Redis benches (suites/fanout.js, suites/publish.js): a redis-server of their own
// (Debian's) on a free loopback port in a temporary directory with AOF on, stopped by pid.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";

/** Whether `redis-server` is installed (the suites report a skipped row otherwise). */
export const redisServerAvailable =
  spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Start redis-server; resolves with { url, port, client, stop } once it answers PING. */
export async function startRedisServer() {
  const dir = mkdtempSync(join(tmpdir(), "gasdigest-bench-redis-"));
  const port = await freePort();
  const child = spawn(
    "redis-server",
    // AOF on as in production; no automatic rewrites (a background fork would land in one case).
    [
      ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir],
      ["--appendonly", "yes", "--auto-aof-rewrite-percentage", "0"],
      ["--save", "", "--loglevel", "warning"],
    ].flat(),
    { stdio: "ignore" },
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  let client;
  for (let tries = 0; ; tries++) {
    client = new Redis({ port, host: "127.0.0.1", lazyConnect: true, retryStrategy: () => null });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.ping();
      break;
    } catch (e) {
      client.disconnect();
      if (tries > 200) {
        child.kill("SIGTERM");
        throw new Error(`redis-server on port ${port} did not come up: ${e}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    client,
    async stop() {
      client.disconnect();
      child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** p-th percentile (0..100) of numbers, nearest rank. */
export function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** Wall-clock ms with sub-ms precision, comparable between processes of one machine. */
export const wallMs = () => performance.timeOrigin + performance.now();
