// Replicas that must agree, and a publisher that must not die, when the stream or the server
// misbehaves: entries that are not blocks, newest entries deleted, replies that are not Redis's.
import { from } from "rxjs";
import { describe, expect, it, vi } from "vitest";
import {
  aip34,
  calibrated,
  createEngine,
  createHandler,
  type HandlerResponse,
  simulateBlocks,
} from "../../src/index.js";
import {
  describeRedisEvent,
  describeRedisSinkEvent,
  type RedisSinkEvent,
  redisStream,
  redisStreamSink,
} from "../../src/redis.js";
import { encodeStreamEntry } from "../../src/sources/redis/streamEntry.js";
import { redisSkipReason, type TestRedis, useSharedRedis } from "../helpers/redisServer.js";
import { until } from "../helpers/until.js";
import { block, blocks, cleanup, follow, publish, STREAM, streamHeights } from "./redisHelpers.js";
import { respServer } from "./respServer.js";

const skip = redisSkipReason();

describe.skipIf(skip)("replicas and publishers against a misbehaving stream", () => {
  let redis: TestRedis;
  useSharedRedis((r) => {
    redis = r;
  });

  it("a replica counts staleness from when the publisher got each block, not from its own start", async () => {
    const before = Date.now();
    await publish(redis.url, blocks(1, 3));
    const fields = (await redis.client.xrange(STREAM, "3-0", "3-0"))[0]![1];
    expect(fields[0]).toBe("block");
    expect(fields[2]).toBe("received_at_ms");
    expect(Number(fields[3])).toBeGreaterThanOrEqual(before);
    expect(Number(fields[3])).toBeLessThanOrEqual(Date.now());
    // A stream whose publisher stopped a minute ago (entries written as it would have).
    const minuteAgo = Date.now() - 60_000;
    for (let h = 4; h <= 6; h++)
      await redis.client.xadd(
        STREAM,
        `${h}-0`,
        ...encodeStreamEntry(block(h)).slice(0, 2),
        "received_at_ms",
        String(minuteAgo + h),
      );
    const engine = createEngine({ strategy: aip34() });
    cleanup.push(() => engine.close());
    engine.connect(redisStream(redis.url, { warmStartBlocks: 6, initialBackoffMs: 20 }));
    await until(() => engine.snapshot()?.ledger.blockHeight === 6n);
    expect(engine.snapshot()!.receivedAtMs).toBe(minuteAgo + 6);
    // So a replica started now answers what the replicas that read it live answer: stale.
    const res = createHandler(engine).respond({
      method: "GET",
      url: "/v1/estimate_gas_price",
      headers: {},
    }) as HandlerResponse;
    expect(res.status).toBe(503);
    expect(JSON.parse(new TextDecoder().decode(res.body))).toMatchObject({
      error_code: "health_check_failed",
    });
    // An entry without the field (an older publisher), or with a bad one, arrives when read.
    const read = Date.now();
    await redis.client.xadd(
      STREAM,
      "7-0",
      ...encodeStreamEntry(block(7)).slice(0, 2),
      "received_at_ms",
      "soon",
    );
    await until(() => engine.snapshot()?.ledger.blockHeight === 7n);
    expect(engine.snapshot()!.receivedAtMs).toBeGreaterThanOrEqual(read);
  });

  it("a warm start from a stream holding fewer blocks than wanted says so", async () => {
    await publish(redis.url, blocks(1, 7));
    const source = follow(redis.url, { warmStartBlocks: 10 });
    await until(() => source.events.some((e) => e.type === "warm_start"));
    const event = source.events.find((e) => e.type === "warm_start")!;
    expect(event).toMatchObject({ blocks: 7, wanted: 10, from: 1n, to: 7n });
    expect(describeRedisEvent(event)).toContain(
      "warm start: only 7 of the 10 blocks wanted (heights 1..7)",
    );
  });

  it("a warm start counts blocks, not entries: notes between blocks do not shrink it", async () => {
    for (let h = 1; h <= 20; h++) {
      await publish(redis.url, [block(h)]);
      await redis.client.xadd(STREAM, `${h}-1`, "note", "hello");
    }
    const source = follow(redis.url, { warmStartBlocks: 5 });
    await until(() => source.events.some((e) => e.type === "warm_start"));
    expect(source.heights()).toEqual([16, 17, 18, 19, 20]);
    expect(source.events.find((e) => e.type === "warm_start")).toEqual({
      type: "warm_start",
      stream: STREAM,
      blocks: 5,
      wanted: 5,
      from: 16n,
      to: 20n,
    });
    // The notes it read past are reported, each once.
    expect(source.events.filter((e) => e.type === "rejected").length).toBe(5);
  });

  it("the newest entries deleted on an idle stream: read on after the new top, nothing fed twice", async () => {
    await publish(redis.url, blocks(1, 30));
    const source = follow(redis.url, { warmStartBlocks: 10, blockMs: 100 });
    await until(() => source.got.length === 10);
    await redis.client.xdel(STREAM, "30-0", "29-0");
    await until(() => source.events.some((e) => e.type === "resumed"));
    expect(source.events.find((e) => e.type === "resumed")).toEqual({
      type: "resumed",
      stream: STREAM,
      afterId: "28-0",
    });
    await publish(redis.url, blocks(31, 32));
    await until(() => source.got.length === 12);
    expect(source.heights()).toEqual([21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32]);
    expect(source.events.filter((e) => e.type === "stream_rewound")).toEqual([]);
  });

  it("entries Redis lost and the publisher wrote back as they were are not fed twice", async () => {
    await publish(redis.url, blocks(1, 20));
    const source = follow(redis.url, { warmStartBlocks: 20, blockMs: 100 });
    await until(() => source.got.length === 20);
    // Redis comes back from an older snapshot: 16..20 gone, the last id back at 15.
    const lost = await redis.client.xrange(STREAM, "16-0", "+");
    await redis.client.xdel(STREAM, ...lost.map(([id]) => id));
    await redis.client.call("XSETID", STREAM, "15-0");
    await until(() => source.events.some((e) => e.type === "resumed"));
    // The publisher writes them back byte for byte (its kept entries), then a new block.
    for (const [id, fields] of lost) await redis.client.xadd(STREAM, id, ...fields);
    await publish(redis.url, [block(21)]);
    await until(() => source.got.length === 21);
    expect(source.heights()).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
    expect(source.events.filter((e) => e.type === "stream_rewound")).toEqual([]);
  });

  it("the repair of a block written far ahead (XDEL, XSETID): the replica reads on, no warm start again", async () => {
    await publish(redis.url, blocks(1, 10));
    const source = follow(redis.url, { warmStartBlocks: 5, blockMs: 100 });
    await until(() => source.got.length === 5);
    await publish(redis.url, [block(2_000_000)]); // a valid block, written by something else
    await until(() => source.got.length === 6);
    await redis.client.xdel(STREAM, "2000000-0");
    await redis.client.call("XSETID", STREAM, "10-0");
    await until(() => source.events.some((e) => e.type === "resumed"));
    await publish(redis.url, blocks(11, 12));
    await until(() => source.got.length === 8);
    expect(source.heights()).toEqual([6, 7, 8, 9, 10, 2_000_000, 11, 12]);
    expect(source.events.filter((e) => e.type === "warm_start")).toHaveLength(1);
    expect(source.events.filter((e) => e.type === "stream_rewound")).toEqual([]);
  });

  for (const [foreigners, thenBlocks] of [
    [1, true],
    [70, false],
    [70, true],
  ] as const)
    it(`${foreigners} foreign entries removed${thenBlocks ? " and blocks written" : ""} before the replica looks: it reads on after its last block`, async () => {
      await publish(redis.url, blocks(1, 5));
      const source = follow(redis.url, { blockMs: 300 });
      await until(() => source.got.length === 5);
      // More foreign entries than the replica's memory of 64 newest ones, in the second case.
      const ids: string[] = [];
      for (let i = 0; i < foreigners; i++)
        ids.push((await redis.client.xadd(STREAM, "*", "note", "written by hand"))!);
      await until(() => source.events.filter((e) => e.type === "rejected").length === foreigners);
      // The repair, then maybe the publisher's next blocks, all within one idle wait.
      await redis.client.xdel(STREAM, ...ids);
      await redis.client.call("XSETID", STREAM, "5-0");
      if (thenBlocks) await publish(redis.url, blocks(6, 8));
      await until(() => source.events.some((e) => e.type === "resumed"));
      if (!thenBlocks) await publish(redis.url, blocks(6, 8));
      await until(() => source.got.length === 8);
      expect(source.heights()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(source.events.find((e) => e.type === "resumed")).toEqual({
        type: "resumed",
        stream: STREAM,
        afterId: "5-0",
      });
      expect(source.events.filter((e) => e.type === "stream_rewound")).toEqual([]);
    });

  it("a foreign entry far ahead repaired, and the publisher past it before the replica looks: the blocks below it are read too", async () => {
    await publish(redis.url, blocks(1, 5));
    // No idle check in this test: the replica learns of the repair only from the entries.
    const source = follow(redis.url, { blockMs: 60_000 });
    await until(() => source.got.length === 5);
    await redis.client.xadd(STREAM, "100-0", "note", "written by hand");
    await until(() => source.events.some((e) => e.type === "rejected"));
    await redis.client.xdel(STREAM, "100-0");
    await redis.client.call("XSETID", STREAM, "5-0");
    // The publisher writes what waited, past the foreign id: XREAD after 100-0 wakes at 101.
    await publish(redis.url, blocks(6, 102));
    await until(() => source.got.length === 102);
    expect(source.heights()).toEqual(Array.from({ length: 102 }, (_, i) => i + 1));
    expect(source.events.filter((e) => e.type === "gap")).toEqual([]);
    expect(source.events.filter((e) => e.type === "stream_rewound")).toEqual([]);
  });

  it("a stream written again with other blocks at the same heights is a rewind, not a resume", async () => {
    await publish(redis.url, blocks(1, 10));
    const source = follow(redis.url, { warmStartBlocks: 3, blockMs: 100 });
    await until(() => source.got.length === 3);
    await redis.client.del(STREAM);
    await publish(redis.url, [block(1, [500]), block(2, [500]), block(3, [500])]);
    await until(() => source.events.some((e) => e.type === "stream_rewound"));
    await until(() => source.got.length === 6);
    expect(source.got.slice(3).map((b) => [Number(b.height), b.gasUnitPrices])).toEqual([
      [1, [500n]],
      [2, [500n]],
      [3, [500n]],
    ]);
  });

  it("a height already written with another block is reported once, until the publishers agree again", async () => {
    await publish(redis.url, blocks(1, 4));
    const events: RedisSinkEvent[] = [];
    const onEvent = (e: RedisSinkEvent) => events.push(e);
    // A second publisher following another node: heights 3 and 4 differ, then 5 is new.
    const other = [block(3, [999]), block(4, [999]), block(5)];
    const results = await publish(redis.url, other, { onEvent });
    expect(results.map((r) => r.outcome)).toEqual([
      "already_published",
      "already_published",
      "published",
    ]);
    expect(events.filter((e) => e.type === "stream_differs")).toEqual([
      { type: "stream_differs", stream: STREAM, height: 3n, id: "3-0" },
    ]);
    expect(describeRedisSinkEvent(events.find((e) => e.type === "stream_differs")!)).toBe(
      `stream ${STREAM} already holds height 3 (entry 3-0), written by another publisher with a different block: the publishers follow nodes that disagree (another chain, a fork?); replicas serve what the stream holds`,
    );
    // The same blocks again (a failover publisher on the same node): nothing to report.
    const again: RedisSinkEvent[] = [];
    await publish(redis.url, blocks(1, 5), { onEvent: (e: RedisSinkEvent) => again.push(e) });
    expect(again.filter((e) => e.type === "stream_differs")).toEqual([]);
  });

  it("a publisher that agreed with the stream again reports the next height that differs", async () => {
    await publish(redis.url, blocks(1, 6));
    const events: RedisSinkEvent[] = [];
    // One sink: 3 differs, 4 is the same block (the publishers agree again), 5 differs again.
    const other = [block(3, [999]), block(4), block(5, [999]), block(7)];
    const results = await publish(redis.url, other, {
      onEvent: (e: RedisSinkEvent) => events.push(e),
    });
    expect(results.map((r) => r.outcome)).toEqual([
      "already_published",
      "already_published",
      "already_published",
      "published",
    ]);
    expect(events.filter((e) => e.type === "stream_differs")).toEqual([
      { type: "stream_differs", stream: STREAM, height: 3n, id: "3-0" },
      { type: "stream_differs", stream: STREAM, height: 5n, id: "5-0" },
    ]);
  });

  it("a database the server does not have is refused, not silently replaced by database 0", async () => {
    await publish(redis.url, blocks(1, 5));
    const url = `${redis.url}/16`; // a default server has databases 0..15
    const source = follow(url, { maxBackoffMs: 50 });
    await until(() => source.events.filter((e) => e.type === "retrying").length >= 2);
    const retrying = source.events.find((e) => e.type === "retrying") as { error: Error };
    expect(retrying.error.message).toMatch(/refuses database 16/);
    expect(retrying.error.message).toMatch(/DB index is out of range/);
    expect(source.got).toEqual([]);
    const events: RedisSinkEvent[] = [];
    const sub = from(blocks(6, 6))
      .pipe(
        redisStreamSink(url, {
          initialBackoffMs: 20,
          maxBackoffMs: 50,
          onEvent: (e) => events.push(e),
        }),
      )
      .subscribe();
    cleanup.push(() => sub.unsubscribe());
    await until(() => events.filter((e) => e.type === "retrying").length >= 2);
    expect(await streamHeights(redis)).toEqual([1, 2, 3, 4, 5]);
  });

  it("a publisher whose already-published check fails keeps its blocks and retries", async () => {
    await publish(redis.url, blocks(1, 3));
    // A publisher's user that may write and read the top, but not XRANGE one id: the check of
    // a refused block's id fails, as when the connection drops under it.
    await redis.client.call("ACL", "SETUSER", "norange", "on", ">pw", "~*", "+@all", "-xrange");
    cleanup.push(() => redis.client.call("ACL", "DELUSER", "norange"));
    const url = redis.url.replace("redis://", "redis://norange:pw@");
    const events: RedisSinkEvent[] = [];
    const done = publish(url, blocks(3, 5), {
      maxBackoffMs: 50,
      onEvent: (e: RedisSinkEvent) => events.push(e),
    });
    await until(() => events.filter((e) => e.type === "retrying").length >= 2);
    const retrying = events.find((e) => e.type === "retrying");
    expect(retrying).toMatchObject({ error: { kind: "command" } });
    expect(String((retrying as { error: Error }).error.message)).toMatch(/NOPERM|permission/i);
    await redis.client.call("ACL", "SETUSER", "norange", "+xrange");
    // The batch went back whole, so 4 and 5, written before the check failed, read as
    // already published on the retry: every height once, none refused.
    const results = await done;
    expect(results.map((r) => r.height)).toEqual([3n, 4n, 5n]);
    expect(results.filter((r) => r.outcome === "refused")).toEqual([]);
    expect(await streamHeights(redis)).toEqual([1, 2, 3, 4, 5]);
  });

  it("calibrated replicas with anchorBlocks serve the same estimates from one stream, whenever they started", async () => {
    // A spiky chain; the learning of a replica that read all of it and of one warm-started
    // with 2K + 1 entries would differ for good without anchorBlocks.
    const chain = [...simulateBlocks({ scenario: "mixed", seed: 5, blocks: 3_000 })];
    await publish(redis.url, chain.slice(0, 2_500), { retain: 10_000 });
    const replica = (warmStartBlocks: number) => {
      const engine = createEngine({ strategy: calibrated({ anchorBlocks: 500 }) });
      cleanup.push(() => engine.close());
      engine.connect(redisStream(redis.url, { warmStartBlocks, initialBackoffMs: 20 }));
      return engine;
    };
    const old = replica(10_000);
    const young = replica(1_001);
    await publish(redis.url, chain.slice(2_500), { retain: 10_000 });
    const tip = chain.at(-1)!.height;
    await until(() => old.snapshot()?.ledger.blockHeight === tip);
    await until(() => young.snapshot()?.ledger.blockHeight === tip);
    // The estimate, and the served learner's recent record (the counters count what each
    // replica served since it started, so the younger one's are smaller).
    const shown = (e: typeof old) => {
      const s = e.snapshot()!;
      const recent = Object.values(s.promises!).map((r) => [r.recentBids, r.recentRate]);
      return JSON.stringify({ e: s.estimate, recent }, (_, v) =>
        typeof v === "bigint" ? String(v) : v,
      );
    };
    expect(young.counters().accepted).toBeLessThan(old.counters().accepted);
    const bids = (e: typeof old) => e.snapshot()!.promises!.regular.bids;
    expect(bids(young)).toBeLessThan(bids(old));
    expect(shown(young)).toBe(shown(old));
  });
});

/**
 * A TCP server speaking just enough RESP for a replica to connect, then answering `answer` to
 * reads; `xadd`, when set, answers an XADD of that id (else `+OK`).
 */
async function fakeRedis(answer: string | ((command: string) => string)) {
  const commands: string[] = [];
  const fake: {
    url: string;
    commands: string[];
    /** The reply to an XADD of that id (inside a transaction, EXEC sends it). */
    xadd?: (id: string) => string;
    /** Sent right after every EXEC's reply. */
    afterExec?: string;
    /** Sent once, right after the reply to the next `command`. */
    extraAfter?: { command: string; reply: string };
    close(): Promise<void>;
  } = { url: "", commands, close: async () => undefined };
  const server = await respServer(() => {
    // Replies of the commands queued since MULTI, sent as one array by EXEC.
    let queued: string[] | undefined;
    return (args, socket) => {
      const name = args[0]!.toUpperCase();
      commands.push(name);
      if (name === "INFO")
        socket.write("$0\r\n\r\n"); // ready check: nothing loading
      else if (name === "TYPE") socket.write("+stream\r\n");
      else if (name === "XREVRANGE" || name === "XREAD" || name === "XRANGE")
        socket.write(typeof answer === "string" ? answer : answer(name));
      else if (name === "MULTI") {
        queued = [];
        socket.write("+OK\r\n");
      } else if (name === "EXEC") {
        socket.write(`*${queued?.length ?? 0}\r\n${(queued ?? []).join("")}`);
        queued = undefined;
        if (fake.afterExec) socket.write(fake.afterExec);
      } else if (name === "XADD" && fake.xadd) {
        const id = args.find((a) => /^\d+-\d+$/.test(a)) ?? "*";
        if (queued) {
          queued.push(fake.xadd(id));
          socket.write("+QUEUED\r\n");
        } else socket.write(fake.xadd(id));
      } else socket.write("+OK\r\n");
      if (fake.extraAfter?.command === name) {
        socket.write(fake.extraAfter.reply);
        fake.extraAfter = undefined;
      }
    };
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}

/** A replica following a {@link fakeRedis} answering `answer`, with quick retries; its events. */
async function followFake(answer: string) {
  const fake = await fakeRedis(answer);
  cleanup.push(fake.close);
  const events: { type: string; error?: { kind?: string; message?: string } }[] = [];
  const sub = redisStream(fake.url, {
    initialBackoffMs: 10,
    maxBackoffMs: 20,
    onEvent: (e) => events.push(e as (typeof events)[number]),
  }).subscribe({ error: (e) => events.push({ type: "error", error: e }) });
  cleanup.push(() => sub.unsubscribe());
  return { fake, events };
}

describe("a server whose replies are not Redis's", () => {
  for (const [name, answer] of [
    ["a number", ":5\r\n"],
    ["an entry with no fields", "*1\r\n*2\r\n$3\r\n1-0\r\n$-1\r\n"],
    ["a status", "+OK\r\n"],
  ] as const)
    it(`a replica answered ${name} retries with backoff and says what was wrong`, async () => {
      const { fake, events } = await followFake(answer);
      await until(() => events.filter((e) => e.type === "retrying").length >= 3);
      expect(events.filter((e) => e.type === "error")).toEqual([]);
      const retrying = events.find((e) => e.type === "retrying")!;
      expect(retrying.error?.kind).toBe("reply");
      expect(retrying.error?.message).toMatch(
        /answered XREVRANGE with something that is not a stream reply/,
      );
      expect(fake.commands.filter((c) => c === "XREVRANGE").length).toBeGreaterThanOrEqual(3);
    });
});

describe("a server that answers an XADD with something other than its id", () => {
  for (const [name, reply] of [
    ["a number", ":1\r\n"],
    ["another entry's id", "$5\r\n999-0\r\n"],
  ] as const)
    it(`a publisher answered ${name} counts no block published, retries and says why`, async () => {
      const fake = await fakeRedis("*0\r\n");
      cleanup.push(fake.close);
      fake.xadd = () => reply;
      const outcomes: string[] = [];
      const events: RedisSinkEvent[] = [];
      const sub = from(blocks(1, 3))
        .pipe(
          redisStreamSink(fake.url, {
            initialBackoffMs: 10,
            maxBackoffMs: 20,
            onEvent: (e) => events.push(e),
          }),
        )
        .subscribe({
          next: (r) => outcomes.push(`${r.height}:${r.outcome}`),
          error: () => undefined,
        });
      cleanup.push(() => sub.unsubscribe());
      await until(() => events.filter((e) => e.type === "retrying").length >= 3);
      // Nothing says the blocks were written: none is counted published (they were, and lost).
      expect(outcomes).toEqual([]);
      const retrying = events.find((e) => e.type === "retrying");
      expect(retrying?.type === "retrying" && retrying.error.kind).toBe("reply");
      expect(describeRedisSinkEvent(retrying!)).toMatch(
        /answered XADD 1-0 of stream gasdigest:blocks with something that is not that entry's id/,
      );
      // Once the server answers each XADD with its id, every block is written, once, in order.
      fake.xadd = (id: string) => `$${id.length}\r\n${id}\r\n`;
      await until(() => outcomes.length === 3);
      expect(outcomes).toEqual(["1:published", "2:published", "3:published"]);
    });
});

describe("a server that sends replies no command asked for", () => {
  // ioredis turned these into an uncaught exception that ended the process (hardenIoredis.ts).
  for (const [name, answer] of [
    ["a stray null after the reply", "*-1\r\n$-1\r\n"],
    ["a RESP3 push frame whose kind is null", ">1\r\n$-1\r\n*-1\r\n"],
  ] as const)
    it(`${name}: the replica drops the connection and reconnects; the process lives`, async () => {
      const { fake, events } = await followFake(answer);
      await until(() => fake.commands.filter((c) => c === "XREVRANGE").length >= 3);
      expect(events.filter((e) => e.type === "error")).toEqual([]);
    });

  it("a publisher whose XADD is answered with a stray null after its id keeps going", async () => {
    const fake = await fakeRedis("*-1\r\n");
    cleanup.push(fake.close);
    fake.xadd = (id: string) => `$${id.length}\r\n${id}\r\n`;
    fake.afterExec = "$-1\r\n";
    const outcomes: string[] = [];
    // One block: its XADD is the only command waiting, so the null after its id is stray. (It
    // was an uncaught TypeError in ioredis that ended the process; vitest fails on one.)
    const sub = from(blocks(1, 1))
      .pipe(redisStreamSink(fake.url, { initialBackoffMs: 10, maxBackoffMs: 20 }))
      .subscribe({
        next: (r) => outcomes.push(`${r.height}:${r.outcome}`),
        error: () => undefined,
      });
    cleanup.push(() => sub.unsubscribe());
    await until(() => outcomes.length === 1);
    await new Promise((r) => setTimeout(r, 100)); // the stray null is read after the id
    expect(outcomes).toEqual(["1:published"]);
  });
});

describe("the application's own ioredis clients", () => {
  it("keep ioredis' own handling of a stray reply once gasdigest's connections are hardened", async () => {
    // A gasdigest replica first, so ioredis' reply handlers are wrapped in this process.
    const { fake } = await followFake("*-1\r\n");
    await until(() => fake.commands.includes("XREVRANGE"));
    // The application's client, on a server that sends one "+STRAY" after its PING's reply:
    // ioredis reports it as an error event and the client stays connected (gasdigest's own
    // connections are closed there instead, which must not reach this client).
    const other = await fakeRedis("*-1\r\n");
    cleanup.push(other.close);
    const { Redis } = await import("ioredis");
    const client = new Redis(other.url, { enableReadyCheck: false, lazyConnect: true });
    cleanup.push(async () => client.disconnect());
    const errors: string[] = [];
    client.on("error", (e: Error) => errors.push(e.message));
    await client.connect();
    other.extraAfter = { command: "PING", reply: "+STRAY\r\n" };
    expect(await client.ping()).toBe("OK");
    await until(() => errors.length > 0);
    expect(errors[0]).not.toMatch(/out of step/);
    expect(client.status).toBe("ready");
    expect(await client.ping()).toBe("OK");
  });
});

describe("a server that answers XREAD BLOCK with nothing at once", () => {
  it("the replica waits out blockMs between reads instead of spinning", async () => {
    // Redis answers nothing only after blockMs; this one does at once (an empty stream).
    const fake = await fakeRedis((command) => (command === "XREAD" ? "*-1\r\n" : "*0\r\n"));
    cleanup.push(fake.close);
    const sub = redisStream(fake.url, { blockMs: 200 }).subscribe({ error: () => undefined });
    cleanup.push(() => sub.unsubscribe());
    await until(() => fake.commands.includes("XREAD"));
    await new Promise((r) => setTimeout(r, 1000));
    // About one read per 200 ms (it spun through thousands a second before).
    expect(fake.commands.filter((c) => c === "XREAD").length).toBeLessThanOrEqual(8);
  });

  it("a wall clock stepped back during a read does not stop the replica reading", async () => {
    // The clock steps back an hour while each XREAD waits (an NTP step, a VM resumed): the
    // rest of blockMs was counted by it, and the replica slept an hour, serving 503.
    let offset = 0;
    const realNow = Date.now;
    const fake = await fakeRedis((command) => {
      if (command === "XREAD") offset -= 3_600_000;
      return command === "XREAD" ? "*-1\r\n" : "*0\r\n";
    });
    cleanup.push(fake.close);
    const spy = vi.spyOn(Date, "now").mockImplementation(() => realNow() + offset);
    cleanup.push(() => spy.mockRestore());
    const sub = redisStream(fake.url, { blockMs: 200 }).subscribe({ error: () => undefined });
    cleanup.push(() => sub.unsubscribe());
    await until(() => fake.commands.includes("XREAD"));
    // About one read per 200 ms, as with a steady clock (one read an hour before). Waited for,
    // not counted after a fixed second: a busy machine that stood still for most of it left
    // room for two reads only. (vi.waitFor keeps to real timers; Date.now is the stepped clock.)
    await vi.waitFor(
      () => expect(fake.commands.filter((c) => c === "XREAD").length).toBeGreaterThanOrEqual(3),
      { timeout: 10_000, interval: 20 },
    );
  });
});
