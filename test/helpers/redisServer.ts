import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterEach, beforeAll } from "vitest";
import { freePort } from "./freePort.js";

/** Whether Debian's `redis-server` is on the PATH. */
export const redisServerAvailable =
  spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;

/**
 * Why the Redis tests are skipped, or `undefined` when they run. Outside CI a missing
 * `redis-server` skips them with this message; in CI (`CI=true`) it is an error.
 */
export function redisSkipReason(): string | undefined {
  if (redisServerAvailable) return undefined;
  const message =
    "redis-server is not installed: the Redis tests need Debian's redis-server (apt-get install redis-server)";
  if (process.env.CI === "true") throw new Error(`${message}; CI must install it (.ci/run does)`);
  console.warn(`skipping: ${message}`);
  return message;
}

/** A `redis-server` of the tests: its own port on 127.0.0.1 and its own directory, AOF on. */
export interface TestRedis {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  readonly pid: number | undefined;
  /** A client for the test's own checks (closed by `close`). */
  readonly client: Redis;
  /** Stop the server by pid (SIGTERM: it writes its AOF and exits); resolves on exit. */
  stop(): Promise<void>;
  /** Start it again on the same port and directory (it reloads its AOF). */
  start(): Promise<void>;
  /** Stop it, close the client and remove the directory. */
  close(): Promise<void>;
}

/**
 * Start `redis-server` on a free loopback port in a temporary directory with `--appendonly yes`
 * (or on `port`) and wait until it answers PING.
 *
 * @example
 * const redis = await startRedis(); await redis.client.xlen("gasdigest:blocks"); await redis.close();
 */
export async function startRedis(options: { port?: number } = {}): Promise<TestRedis> {
  // A port found free may be taken before redis-server binds it (another test's server, or a
  // client socket's local port): then it exits "Address already in use", and another is tried.
  for (let tries = 1; ; tries++) {
    const port = options.port ?? (await freePort());
    try {
      return await startRedisOn(port);
    } catch (e) {
      const taken = e instanceof PortTakenError;
      if (!taken || options.port !== undefined || tries === 5) throw e;
    }
  }
}

/** redis-server could not bind its port: another process has it. */
class PortTakenError extends Error {}

async function startRedisOn(port: number): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), "gasdigest-redis-"));
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  async function start() {
    const proc = spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        dir,
        "--appendonly",
        "yes",
        "--save",
        "",
        "--daemonize",
        "no",
        "--loglevel",
        "warning",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    child = proc;
    let output = "";
    const keep = (d: Buffer) => {
      output = (output + String(d)).slice(-4000);
    };
    proc.stdout?.on("data", keep);
    proc.stderr?.on("data", keep);
    exited = new Promise((resolve) => proc.once("exit", () => resolve()));
    const end = Date.now() + 10_000;
    for (;;) {
      if (proc.exitCode !== null) {
        const message = `redis-server exited with ${proc.exitCode}: ${output}`;
        throw output.includes("Address already in use")
          ? new PortTakenError(message)
          : new Error(message);
      }
      const probe = new Redis({
        port,
        host: "127.0.0.1",
        lazyConnect: true,
        retryStrategy: () => null,
        // A port someone else holds may accept and answer nothing.
        connectTimeout: 1_000,
        commandTimeout: 1_000,
      });
      probe.on("error", () => undefined);
      try {
        await probe.connect();
        // Ours, not a server that took the port between freePort() and this start.
        const server = await probe.info("server");
        if (new RegExp(`^process_id:${proc.pid}\\r?$`, "m").test(server)) {
          probe.disconnect();
          return;
        }
      } catch {
        // not up yet
      }
      probe.disconnect();
      if (Date.now() > end)
        throw new Error(`redis-server on port ${port} did not come up: ${output}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async function stop() {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    proc.kill("SIGTERM");
    await exited;
  }

  try {
    await start();
  } catch (e) {
    await stop();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const client = new Redis({ port, host: "127.0.0.1", maxRetriesPerRequest: 2 });
  client.on("error", () => undefined);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    get pid() {
      return child?.pid;
    },
    client,
    stop,
    start,
    async close() {
      client.disconnect();
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One `redis-server` for a whole `describe` block: started before its tests (handed to `use`),
 * restarted after a test that stopped it, emptied after every test, closed at the end. Call it
 * inside the `describe`.
 *
 * @example
 * let redis: TestRedis;
 * useSharedRedis((r) => { redis = r; });
 */
export function useSharedRedis(use: (redis: TestRedis) => void): void {
  let redis: TestRedis | undefined;
  beforeAll(async () => {
    redis = await startRedis();
    use(redis);
    return () => redis?.close();
  });
  afterEach(async () => {
    if (!redis) return;
    if (redis.pid === undefined) await redis.start();
    await redis.client.flushall();
  });
}
