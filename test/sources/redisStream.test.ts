import { firstValueFrom, from, Subject, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import {
  aip34,
  type BlockSample,
  createEngine,
  InvalidConfigError,
  parseBlockSample,
} from "../../src/index.js";
import {
  type RedisPublishResult,
  type RedisSinkEvent,
  redisStream,
  redisStreamSink,
} from "../../src/redis.js";
import { encodeStreamEntry } from "../../src/sources/redis/streamEntry.js";
import { freePort } from "../helpers/freePort.js";
import {
  redisSkipReason,
  startRedis,
  type TestRedis,
  useSharedRedis,
} from "../helpers/redisServer.js";
import { until } from "../helpers/until.js";
import {
  block,
  blocks,
  cleanup,
  follow,
  handSink,
  publish,
  STREAM,
  streamHeights,
} from "./redisHelpers.js";

const skip = redisSkipReason();

/** Blocks of another chain (chain id 5) at heights `from`..`to`, as after a chain reset. */
const chain5 = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) =>
    parseBlockSample({
      height: String(from + i),
      epoch: "1",
      chain_id: 5,
      gas_unit_prices: ["900"],
    }),
  );

/** The replicas' idle checks so far (each is one XREVRANGE), since the last CONFIG RESETSTAT. */
const idleChecks = async (redis: TestRedis) =>
  Number(/cmdstat_xrevrange:calls=(\d+)/.exec(await redis.client.info("commandstats"))?.[1] ?? 0);

/** Wait for `source` to warn that the stream fell from 520-0 (the old chain) to 15-0. */
async function rewoundFrom520To15(source: ReturnType<typeof follow>) {
  await until(() => source.events.some((e) => e.type === "stream_rewound"));
  expect(source.events.find((e) => e.type === "stream_rewound")).toEqual({
    type: "stream_rewound",
    stream: STREAM,
    from: "520-0",
    to: "15-0",
  });
}

/**
 * A replica (blockMs 1000) that read `first` (its newest 12, by warm start), after the stream
 * was deleted and `lower` written, its top below the last entry read: returned once the
 * replica's first idle check (one XREVRANGE) has found the fall.
 */
async function fallenReplica(redis: TestRedis, first: BlockSample[], lower: BlockSample[]) {
  await publish(redis.url, first);
  const source = follow(redis.url, { warmStartBlocks: 12, blockMs: 1000 });
  await until(() => source.got.length === 12);
  await redis.client.del(STREAM);
  await publish(redis.url, lower);
  await redis.client.call("CONFIG", "RESETSTAT");
  await until(async () => (await idleChecks(redis)) >= 1);
  return source;
}

describe.skipIf(skip)("Redis Stream sink and source", () => {
  let redis: TestRedis;
  useSharedRedis((r) => {
    redis = r;
  });

  it("publishes each height once: a second publisher's XADDs are refused and counted as already published", async () => {
    const first = await publish(redis.url, blocks(1, 50));
    expect(first.map((r) => r.outcome)).toEqual(Array(50).fill("published"));
    expect(first[0]).toEqual({ height: 1n, id: "1-0", outcome: "published" });
    const second = await publish(redis.url, blocks(30, 60));
    const count = (rs: RedisPublishResult[], o: string) => rs.filter((r) => r.outcome === o).length;
    expect(count(second, "already_published")).toBe(21);
    expect(count(second, "published")).toBe(10);
    expect(await streamHeights(redis)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    const entries = await redis.client.xrange(STREAM, "7-0", "7-0");
    expect(entries[0]?.[1]).toEqual([
      "block",
      JSON.stringify({ height: "7", epoch: "1", chain_id: 4, gas_unit_prices: ["100"] }),
      "received_at_ms",
      expect.stringMatching(/^[0-9]{13}$/),
    ]);
  });

  it("trims the stream to about --retain entries, never fewer", async () => {
    await publish(redis.url, blocks(1, 3000), { retain: 1000, batchSize: 500 });
    const length = await redis.client.xlen(STREAM);
    expect(length).toBeGreaterThanOrEqual(1000);
    expect(length).toBeLessThan(1300);
    expect((await streamHeights(redis)).at(-1)).toBe(3000);
  });

  it("warm start: the newest entries, oldest first, then new entries as they are added", async () => {
    await publish(redis.url, blocks(1, 300));
    const source = follow(redis.url, { warmStartBlocks: 121, batchSize: 50 });
    await until(() => source.got.length === 121);
    expect(source.heights()).toEqual(Array.from({ length: 121 }, (_, i) => 180 + i));
    expect(source.events).toContainEqual({
      type: "warm_start",
      stream: STREAM,
      blocks: 121,
      wanted: 121,
      from: 180n,
      to: 300n,
    });
    await publish(redis.url, blocks(301, 310));
    await until(() => source.got.length === 131);
    expect(source.heights().slice(-10)).toEqual(Array.from({ length: 10 }, (_, i) => 301 + i));
    expect(source.got.at(-1)).toEqual(block(310));
  });

  it("startHeight reads every entry from that height on", async () => {
    await publish(redis.url, blocks(1, 40));
    const source = follow(redis.url, { startHeight: 25 });
    await until(() => source.got.length === 16);
    expect(source.heights()).toEqual(Array.from({ length: 16 }, (_, i) => 25 + i));
  });

  it("startHeight below what the stream still holds: the heights trimmed away are a gap", async () => {
    // record --append continues a file from its next height; a stream trimmed past it must
    // not leave a hole in the file without a word.
    await publish(redis.url, blocks(1, 40));
    await redis.client.xtrim(STREAM, "MAXLEN", 15);
    const source = follow(redis.url, { startHeight: 21n });
    await until(() => source.got.length === 15);
    expect(source.heights()[0]).toBe(26);
    expect(source.events.filter((e) => e.type === "gap")).toEqual([
      { type: "gap", stream: STREAM, from: 21n, to: 25n },
    ]);
    // From height 0 too.
    const fromZero = follow(redis.url, { startHeight: 0n });
    await until(() => fromZero.got.length === 15);
    expect(fromZero.events.filter((e) => e.type === "gap")).toEqual([
      { type: "gap", stream: STREAM, from: 0n, to: 25n },
    ]);
  });

  it("a warm start counts only blocks an engine fed the newer ones takes: another chain's do not", async () => {
    // A second publisher on the wrong network wrote two heights first. The replicas that read
    // the stream live reject them; a replica started later must end with as many good blocks.
    const c = redis.client;
    for (let h = 1; h <= 40; h++) {
      const b = h === 30 || h === 35 ? { ...block(h), chainId: 5 } : block(h);
      await c.xadd(STREAM, `${h}-0`, ...encodeStreamEntry(b));
    }
    const source = follow(redis.url, { warmStartBlocks: 12 });
    await until(() => source.events.some((e) => e.type === "warm_start"));
    const ours = source.got.filter((b) => b.chainId === 4).map((b) => Number(b.height));
    expect(ours).toEqual([27, 28, 29, 31, 32, 33, 34, 36, 37, 38, 39, 40]);
  });

  it("a run of bad entries longer than the memory of recent ones is reported once each", async () => {
    const c = redis.client;
    await publish(redis.url, blocks(1, 2));
    const source = follow(redis.url);
    await until(() => source.got.length === 2);
    for (let h = 3; h <= 202; h++) await c.xadd(STREAM, `${h}-0`, "block", "{nope");
    await publish(redis.url, blocks(203, 203));
    await until(() => source.got.length === 3);
    const rejected = source.events.filter((e) => e.type === "rejected").map((e) => e.id);
    expect(rejected).toHaveLength(200);
    expect(new Set(rejected).size).toBe(200);
  });

  it("skips garbage entries with a rejected event naming the entry id and the field, and keeps going", async () => {
    const c = redis.client;
    const line = (b: BlockSample) =>
      JSON.stringify({ height: String(b.height), epoch: "1", gas_unit_prices: ["100"] });
    await c.xadd(STREAM, "1-0", "block", line(block(1)));
    await c.xadd(STREAM, "2-0", "block", "{not json");
    await c.xadd(STREAM, "3-0", "something", "else");
    await c.xadd(STREAM, "4-0", "block", '{"height":"4","epoch":"1","gas_unit_prices":["-5"]}');
    await c.xadd(STREAM, "5-0", "block", line(block(6)));
    await c.xadd(STREAM, "5-1", "block", line(block(5)));
    await c.xadd(STREAM, "7-0", "block", line(block(7)));
    const source = follow(redis.url);
    await until(() => source.got.length === 2);
    await c.xadd(STREAM, "8-0", "block", "[]");
    await c.xadd(STREAM, "9-0", "block", line(block(9)));
    await until(() => source.got.length === 3);
    expect(source.heights()).toEqual([1, 7, 9]);
    const rejected = source.events.filter((e) => e.type === "rejected");
    expect(rejected.map((e) => [e.id, e.issues.map((i) => i.path)])).toEqual([
      ["2-0", ["block"]],
      ["3-0", ["block"]],
      ["4-0", ["block.gas_unit_prices[0]"]],
      ["5-0", ["block.height"]],
      ["5-1", ["id"]],
      ["8-0", ["block"]],
    ]);
    expect(rejected[0]!.issues[0]!.message).toMatch(/^not valid JSON \(/);
    expect(rejected[1]!.issues[0]!.message).toBe("required (the entry has no block field)");
    expect(rejected[3]!.issues[0]!.message).toBe("must be the entry id's height 5 (got 6)");
    expect(rejected[4]!.issues[0]!.message).toBe('must be <height>-0 (got "5-1")');
    // Each issue keeps its code, the line reader's included (errors.md: every issue has one).
    expect(rejected.map((e) => e.issues.map((i) => i.code))).toEqual([
      ["invalid_json"],
      ["custom"],
      ["custom"],
      ["custom"],
      ["custom"],
      ["invalid_type"],
    ]);
    // Heights without a valid block between two blocks are told once each stretch.
    const gaps = source.events.flatMap((e) => (e.type === "gap" ? [[e.from, e.to]] : []));
    expect(gaps).toEqual([
      [2n, 6n],
      [8n, 8n],
    ]);
  });

  it("reports a key of another type as wrong_type, and reads it once it is a stream", async () => {
    await redis.client.set(STREAM, "not a stream");
    const source = follow(redis.url);
    await until(() => source.events.some((e) => e.type === "unreachable"));
    const retry = source.events.find((e) => e.type === "retrying");
    expect(retry?.type === "retrying" && retry.error.kind).toBe("wrong_type");
    expect(retry?.type === "retrying" && retry.error.shortMessage).toBe(
      `the key "${STREAM}" at redis://127.0.0.1:${redis.port}/0 holds a string, not a stream`,
    );
    await redis.client.del(STREAM);
    await publish(redis.url, blocks(1, 3));
    await until(() => source.got.length === 3);
    expect(source.events.map((e) => e.type)).toContain("recovered");
  });

  it("an empty or absent stream is reported, then followed from its first entry", async () => {
    const source = follow(redis.url, { stream: "elsewhere" });
    await until(() => source.events.some((e) => e.type === "stream_empty"));
    await publish(redis.url, blocks(1, 5), { stream: "elsewhere" });
    await until(() => source.got.length === 5);
    expect(source.heights()).toEqual([1, 2, 3, 4, 5]);
  });

  it("a chain reset: the key deleted and written again from lower heights is read again, and the engine follows it", async () => {
    await publish(redis.url, blocks(500, 520));
    const source = follow(redis.url, { warmStartBlocks: 12 });
    await until(() => source.got.length === 12);
    // Without the rewind check the source would wait after entry 520-0 for good.
    await redis.client.del(STREAM);
    const reset = chain5(1, 15);
    await publish(redis.url, reset);
    await rewoundFrom520To15(source);
    // It warm-starts from the new stream as a fresh replica would: its newest 12 entries.
    await until(() => source.got.length === 24);
    expect(source.heights().slice(12)).toEqual(reset.slice(3).map((b) => Number(b.height)));
    // An engine fed by the source follows the new chain after resyncAfterBlocks (10) of its blocks.
    const engine = createEngine({ strategy: aip34(), config: { resyncAfterBlocks: 10 } });
    for (const b of source.got) {
      try {
        engine.ingest(b);
      } catch {}
    }
    expect(engine.snapshot()?.ledger.blockHeight).toBe(15n);
    expect(engine.counters().resyncs).toBe(1);
  });

  it("a stream being restored (Redis lost it, the publisher writes its blocks back oldest first) is waited for, not read as a chain reset", async () => {
    // The replica's idle check finds the top at 60-0, below the 120-0 it read and unknown to
    // it; the restore then goes on.
    const source = await fallenReplica(redis, blocks(1, 120), blocks(1, 60));
    await publish(redis.url, blocks(61, 125));
    await until(() => source.got.length === 17);
    expect(source.heights().slice(12)).toEqual([121, 122, 123, 124, 125]);
    expect(source.events.map((e) => e.type)).not.toContain("stream_rewound");
    expect(source.events.map((e) => e.type)).not.toContain("warm_start_failed");
    expect(source.events.filter((e) => e.type === "warm_start")).toHaveLength(1);
  });

  it("a chain reset that passes the replica's height between its two looks is still a rewind", async () => {
    const source = await fallenReplica(redis, blocks(500, 520), chain5(1, 15));
    // Past 520 before the second look: the entries above the last one read are chain 5's.
    await publish(redis.url, chain5(16, 530), { batchSize: 600 });
    await rewoundFrom520To15(source);
    // Warm-started from the new chain, not fed 521.. after the old chain's 520.
    await until(() => source.got.length === 24);
    expect(source.got.slice(12).every((b) => b.chainId === 5)).toBe(true);
    expect(source.heights().slice(12)).toEqual(Array.from({ length: 12 }, (_, i) => 519 + i));
  });

  it("a chain reset that stands exactly at the replica's height at its second look is still a rewind", async () => {
    const source = await fallenReplica(redis, blocks(500, 520), chain5(1, 15));
    // Up to 520 exactly: the second look finds the top at the last entry read, not below.
    await publish(redis.url, chain5(16, 520), { batchSize: 600 });
    await until(async () => (await idleChecks(redis)) >= 2);
    await publish(redis.url, chain5(521, 530));
    await until(() => source.events.some((e) => e.type === "stream_rewound"));
    await until(() => source.got.length >= 24);
    expect(source.got.slice(12).every((b) => b.chainId === 5)).toBe(true);
  });

  it("a publisher behind a stream that went past its heights (a chain reset) reports them refused and warns once", async () => {
    await publish(redis.url, blocks(500, 520), { retain: 10 });
    const events: RedisSinkEvent[] = [];
    const results = await publish(redis.url, blocks(1, 250), {
      retain: 10,
      batchSize: 100,
      onEvent: (e: RedisSinkEvent) => events.push(e),
    });
    // None of them is in the stream: refused, not "already published".
    expect(results.every((r) => r.outcome === "refused")).toBe(true);
    expect(events.filter((e) => e.type === "stream_ahead")).toEqual([
      { type: "stream_ahead", stream: STREAM, height: 1n, top: "520-0" },
    ]);
    // A second publisher a few heights behind (the normal two-publisher case) does not warn:
    // the heights it is refused are in the stream.
    const quiet: RedisSinkEvent[] = [];
    const second = await publish(redis.url, blocks(515, 522), {
      retain: 10,
      onEvent: (e: RedisSinkEvent) => quiet.push(e),
    });
    expect(second.map((r) => r.outcome)).toEqual([
      ...Array(6).fill("already_published"),
      "published",
      "published",
    ]);
    expect(quiet.map((e) => e.type)).not.toContain("stream_ahead");
  });

  it("a publisher that published again after a stream_ahead warns again when the stream next goes past it", async () => {
    await publish(redis.url, blocks(500, 520), { retain: 10 });
    const sink = handSink(redis.url, { retain: 10 });
    await sink.write(1, 3);
    // Caught up with the stream: its next heights are published, the warning is over.
    await sink.write(521, 522);
    // Behind it again (another chain reset): a new warning, once.
    await sink.write(4, 6);
    expect(sink.results.map((r) => r.outcome)).toEqual([
      ...Array(3).fill("refused"),
      "published",
      "published",
      ...Array(3).fill("refused"),
    ]);
    expect(sink.events.filter((e) => e.type === "stream_ahead")).toEqual([
      { type: "stream_ahead", stream: STREAM, height: 1n, top: "520-0" },
      { type: "stream_ahead", stream: STREAM, height: 4n, top: "522-0" },
    ]);
  });

  it("a replica started at a height the stream has not reached waits for it (no rewind)", async () => {
    await publish(redis.url, blocks(1, 3));
    const source = follow(redis.url, { startHeight: 10n });
    await new Promise((r) => setTimeout(r, 1200)); // two idle XREADs of 500 ms
    await publish(redis.url, blocks(4, 11));
    await until(() => source.got.length === 2);
    expect(source.heights()).toEqual([10, 11]);
    expect(source.events.map((e) => e.type)).not.toContain("stream_rewound");
  });

  it("Redis refusing connections at start: retries, then warm-starts once it is up", async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const source = follow(url, { unreachableAfter: 2 });
    await until(() => source.events.some((e) => e.type === "unreachable"));
    const retry = source.events.find((e) => e.type === "retrying");
    expect(retry?.type === "retrying" && retry.error.kind).toBe("connect");
    expect(retry?.type === "retrying" && retry.error.details).toContain("ECONNREFUSED");
    expect(source.got).toEqual([]);
    const late = await startRedis({ port });
    cleanup.push(() => late.close());
    await publish(late.url, blocks(1, 10));
    await until(() => source.got.length === 10);
    expect(source.heights()).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    expect(source.events.map((e) => e.type)).toContain("recovered");
  });

  it("Redis restarting: the source resumes after the last height seen and the sink writes what waited", async () => {
    await publish(redis.url, blocks(1, 20));
    const source = follow(redis.url, { warmStartBlocks: 5 });
    await until(() => source.got.length === 5);
    const { input, results, events: sinkEvents } = handSink(redis.url);
    for (const b of blocks(21, 30)) input.next(b);
    await until(() => source.got.length === 15);
    await redis.stop();
    for (const b of blocks(31, 40)) input.next(b);
    await until(() => source.events.some((e) => e.type === "retrying"));
    await redis.start();
    await until(() => source.got.length === 25);
    expect(source.heights()).toEqual(Array.from({ length: 25 }, (_, i) => 16 + i));
    expect(results.map((r) => Number(r.height))).toEqual(
      Array.from({ length: 20 }, (_, i) => 21 + i),
    );
    expect(results.every((r) => r.outcome === "published")).toBe(true);
    expect(source.events.map((e) => e.type)).toContain("resumed");
    expect(sinkEvents.map((e) => e.type)).toContain("retrying");
    expect(await streamHeights(redis)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });

  it("the sink completes once every waiting block is written, and passes on an input error after that", async () => {
    const done = await firstValueFrom(
      from(blocks(1, 3)).pipe(redisStreamSink(redis.url), toArray()),
    );
    expect(done).toHaveLength(3);
    const failing = new Subject<BlockSample>();
    const seen: RedisPublishResult[] = [];
    const ended = new Promise<unknown>((resolve) =>
      failing
        .pipe(redisStreamSink(redis.url))
        .subscribe({ next: (r) => seen.push(r), error: resolve }),
    );
    failing.next(block(4));
    failing.error(new Error("source broke"));
    expect(await ended).toEqual(new Error("source broke"));
    expect(seen.map((r) => r.outcome)).toEqual(["published"]);
  });

  it("bad URLs and options throw at call time, naming every field", () => {
    expect(() => redisStream("http://127.0.0.1:6379")).toThrow(InvalidConfigError);
    expect(() => redisStream("redis://127.0.0.1:6379/x")).toThrow(
      'url: the path must be a database number, as in redis://host:6379/2 (got "/x")',
    );
    // More than one slash: the client would select database NaN and end the process.
    for (const url of ["redis://127.0.0.1:6379//0", "redis://h///1", "rediss://h//"])
      expect(() => redisStream(url)).toThrow(
        /url: the path must be a database number, as in redis:\/\/host:6379\/2 \(got "\/\/+\d*"\)/,
      );
    expect(() => redisStreamSink("redis://h//3")).toThrow(/the path must be a database number/);
    expect(() => redisStream("redis://h/")).not.toThrow();
    // A bad URL and bad options: every problem in one error, the URL's first.
    expect(() => redisStream("redis://h/x", { blockMs: 0 })).toThrow(
      /^invalid configuration: url: the path must be a database number.*; blockMs: must be a number of milliseconds/,
    );
    expect(() => redisStream("redis://h", { blockMs: 0, stream: "" })).toThrow(
      "invalid configuration: stream: must not be empty; blockMs: must be a number of milliseconds from 1 to 600000, got 0",
    );
    expect(() =>
      redisStreamSink("redis://h", { retain: 0, initialBackoffMs: 9, maxBackoffMs: 5 }),
    ).toThrow(
      "invalid configuration: retain: must be a whole number of entries from 1 to 2^53-1, got 0; initialBackoffMs: must not be above maxBackoffMs (5), got 9",
    );
  });
});
