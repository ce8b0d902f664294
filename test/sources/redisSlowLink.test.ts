// A replica whose link from Redis is slow: a warm-start page that cannot arrive within the
// timeout must not fail the same way on every retry.
import { createServer, Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { redisSkipReason, startRedis } from "../helpers/redisServer.js";
import { until } from "../helpers/until.js";
import { block, blocks, cleanup, follow, publish } from "./redisHelpers.js";

const skip = redisSkipReason();

/**
 * A TCP proxy on 127.0.0.1 to `port`, stopped at cleanup: what the client sends passes at once;
 * each chunk Redis answers goes to `relay` (with the client's socket and a stop for its timers),
 * which writes it on when it will.
 */
async function proxy(
  port: number,
  relay: (client: Socket) => { data(d: Buffer): void; stop?(): void },
): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = new Socket();
    sockets.add(client).add(upstream);
    const forward = relay(client);
    const close = () => {
      forward.stop?.();
      client.destroy();
      upstream.destroy();
    };
    upstream.connect(port, "127.0.0.1");
    upstream.on("data", (d: Buffer) => forward.data(d));
    client.on("data", (d) => upstream.write(d));
    for (const s of [client, upstream]) {
      s.on("error", close);
      s.on("close", close);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return (server.address() as { port: number }).port;
}

/**
 * A TCP proxy on 127.0.0.1 to `port`: what the client sends passes at once, what Redis answers
 * at most `bytesPerTick` every 50 ms.
 */
function slowProxy(port: number, bytesPerTick: number): Promise<number> {
  return proxy(port, (client) => {
    const queue: Buffer[] = [];
    const tick = setInterval(() => {
      let budget = bytesPerTick;
      while (budget > 0 && queue.length > 0) {
        const head = queue[0]!;
        const part = head.subarray(0, budget);
        if (part.length === head.length) queue.shift();
        else queue[0] = head.subarray(part.length);
        budget -= part.length;
        if (!client.destroyed) client.write(part);
      }
    }, 50);
    return { data: (d) => queue.push(d), stop: () => clearInterval(tick) };
  });
}

describe.skipIf(skip)("a replica on a slow link to Redis", () => {
  it("warm-starts in smaller pages after a page timed out, instead of retrying the same page forever", async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.close());
    // 60 blocks of 100 prices: about 1 KiB an entry.
    const prices = Array.from({ length: 100 }, (_, i) => 100 + i);
    await publish(
      redis.url,
      Array.from({ length: 60 }, (_, i) => block(i + 1, prices)),
    );
    // 1 KiB every 50 ms (20 KiB/s): a page of 60 entries takes about 3 s, one of 7 about 0.35 s.
    const port = await slowProxy(redis.port, 1024);
    const source = follow(`redis://127.0.0.1:${port}`, {
      warmStartBlocks: 60,
      timeoutMs: 600,
      maxBackoffMs: 50,
    });
    await until(() => source.got.length === 60, 30_000, "the warm start over the slow link");
    expect(source.heights()).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    const timeouts = source.events.filter(
      (e) => e.type === "retrying" && e.error.kind === "timeout",
    );
    expect(timeouts.length).toBeGreaterThan(0);
    expect(source.events.find((e) => e.type === "warm_start")).toMatchObject({
      blocks: 60,
      wanted: 60,
    });
  }, 40_000);
});

/**
 * A TCP proxy on 127.0.0.1 to `port` whose answers from Redis can be held back (`freeze`), as a
 * Redis that stalls (a fork, `CLIENT PAUSE`, a partition) holds them; `thaw` lets them through.
 */
async function stallProxy(port: number) {
  let frozen = false;
  const held: [Socket, Buffer][] = [];
  const proxyPort = await proxy(port, (client) => ({
    data(d) {
      if (frozen) held.push([client, d]);
      else if (!client.destroyed) client.write(d);
    },
  }));
  return {
    port: proxyPort,
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      for (const [client, d] of held.splice(0)) if (!client.destroyed) client.write(d);
    },
  };
}

describe.skipIf(skip)("a replica whose Redis stalled longer than the timeout", () => {
  it("reads whole pages again once it reads in time: stalls do not leave it one entry per XREAD", async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.close());
    await publish(redis.url, blocks(1, 10));
    const proxy = await stallProxy(redis.port);
    const source = follow(`redis://127.0.0.1:${proxy.port}`, {
      warmStartBlocks: 5,
      blockMs: 100,
      timeoutMs: 200,
      maxBackoffMs: 50,
    });
    await until(() => source.got.length === 5, 10_000, "the warm start");
    // Stalls of Redis under the replica's idle XREADs, each longer than the timeout (a page of
    // any size times out): every one that hit an XREAD halved its page.
    const timeouts = () =>
      source.events.filter((e) => e.type === "retrying" && e.error.kind === "timeout").length;
    const resumed = () => source.events.filter((e) => e.type === "resumed").length;
    for (let i = 0; i < 12; i++) {
      const before = timeouts();
      const reads = resumed();
      await new Promise((r) => setTimeout(r, 30 + ((i * 37) % 60)));
      proxy.freeze();
      await until(() => timeouts() > before, 10_000, "a timeout under the stall");
      proxy.thaw();
      await until(() => resumed() > reads, 10_000, "the replica reading again");
    }
    const calls = async () =>
      Number(/cmdstat_xread:calls=(\d+)/.exec(await redis.client.info("commandstats"))?.[1]);
    const before = await calls();
    await publish(redis.url, blocks(11, 2010));
    await until(() => source.got.length === 2005, 30_000, "the replica to catch up");
    expect(source.heights().slice(-2000)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 11));
    // Read in pages that double back (1, 2, 4 ... after 8 full ones each): about 70 XREADs.
    // Before, the stalls' cut stayed for good: one entry per XREAD, 2,000 of them.
    expect((await calls()) - before).toBeLessThan(200);
  }, 60_000);
});

describe("a replica whose Redis accepts connections but answers nothing", () => {
  it("closes its connection at once when stopped, not after the connect timeout", async () => {
    // A frozen Redis (SIGSTOP, a host that stopped answering): the kernel accepts, nobody
    // answers. (What the client sends is read and dropped, so its close is seen.)
    const open = new Set<Socket>();
    const server = createServer((socket) => {
      open.add(socket);
      socket.resume();
      socket.on("close", () => open.delete(socket));
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanup.push(
      () =>
        new Promise<void>((resolve) => {
          for (const s of open) s.destroy();
          server.close(() => resolve());
        }),
    );
    const { port } = server.address() as { port: number };
    const source = follow(`redis://127.0.0.1:${port}`, { timeoutMs: 30_000 });
    await until(() => open.size === 1);
    source.sub.unsubscribe();
    // Before, the connection attempt held on until its 30 s timeout, and a stopping replica
    // with it (4 s with the CLI's 5 s).
    await until(() => open.size === 0, 5_000, "the replica to close its connection");
  });
});
