// A publisher whose Redis comes back without entries it had acknowledged: restarted from an
// older snapshot, or without persistence, while the publisher keeps running.
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { Redis } from "ioredis";
import { describe, expect, it, vi } from "vitest";
import { startPublish } from "../../src/cli/publish.js";
import { serializeBlockSample } from "../../src/index.js";
import { describeRedisSinkEvent } from "../../src/redis.js";
import { redisSkipReason, startRedis, type TestRedis } from "../helpers/redisServer.js";
import { until } from "../helpers/until.js";
import { block, cleanup, handSink, STREAM, streamHeights } from "./redisHelpers.js";

const skip = redisSkipReason();

/** Replace the server's AOF with the copy in `from` (stopped), and start it on that. */
async function restartFrom(redis: TestRedis, from: string | undefined) {
  await redis.stop();
  const aof = join(redis.dir, "appendonlydir");
  rmSync(aof, { recursive: true });
  if (from) cpSync(from, aof, { recursive: true });
  await redis.start();
}

/** How many times Redis ran `command` since it started. */
async function calls(redis: TestRedis, command: string): Promise<number> {
  const stats = await redis.client.info("commandstats");
  return Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, "m").exec(stats)?.[1] ?? 0);
}

describe.skipIf(skip)("a publisher whose Redis lost entries it had acknowledged", () => {
  it("Redis restarted from an older snapshot: stream_lost once, the lost heights written again before newer ones", async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.close());
    const aof = join(redis.dir, "appendonlydir");
    const snapshot = join(redis.dir, "snapshot");
    const { write, results, events, lost } = handSink(redis.url);
    await write(1, 10);
    await redis.stop();
    cpSync(aof, snapshot, { recursive: true });
    await redis.start();
    await write(11, 20);
    // Nothing lost across the first restart: nothing reported.
    expect(lost()).toEqual([]);
    await restartFrom(redis, snapshot);
    expect(await streamHeights(redis)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));

    await write(21, 25);
    expect(lost()).toEqual([
      { type: "stream_lost", stream: STREAM, top: "10-0", from: 11n, to: 20n, rewriteFrom: 11n },
    ]);
    expect(describeRedisSinkEvent(lost()[0]!)).toBe(
      `stream ${STREAM} ends at entry 10-0, below height 20 that Redis had acknowledged to this publisher: Redis lost heights 11..20 (it restarted from an older snapshot, or without persistence); this publisher kept them and writes them again before any newer block. Run Redis with AOF (appendonly yes, appendfsync everysec) so that a restart loses at most about 1 s of writes`,
    );
    // Every height once, in order, each entry the block as first written.
    expect(await streamHeights(redis)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    const [entry] = await redis.client.xrange(STREAM, "15-0", "15-0");
    expect(entry?.[1]).toEqual([
      "block",
      serializeBlockSample(block(15)),
      "received_at_ms",
      expect.stringMatching(/^[0-9]{13}$/),
    ]);
    // One result per block given, in order: the heights written again are not results.
    expect(results.map((r) => Number(r.height))).toEqual(
      Array.from({ length: 25 }, (_, i) => i + 1),
    );
    expect(results.every((r) => r.outcome === "published")).toBe(true);
    // The check costs one XREVRANGE on the new connection, none per block.
    expect(await calls(redis, "xrevrange")).toBe(1);
    expect(await calls(redis, "xadd")).toBe(15);
    expect(events.filter((e) => e.type === "stream_ahead")).toEqual([]);
  });

  it("Redis restarted without persistence: the kept blocks written again, the older ones reported missing", async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.close());
    const { write, lost } = handSink(redis.url, { keepBlocks: 3 });
    await write(1, 10);
    await restartFrom(redis, undefined);
    await write(11, 12);
    expect(lost()).toEqual([
      { type: "stream_lost", stream: STREAM, top: undefined, from: 1n, to: 10n, rewriteFrom: 8n },
    ]);
    expect(describeRedisSinkEvent(lost()[0]!)).toBe(
      `stream ${STREAM} is empty, below height 10 that Redis had acknowledged to this publisher: Redis lost every entry it held, heights 1..10 at most (the stream keeps --retain of them, whichever publisher wrote them) (it restarted from an older snapshot or without persistence, or the stream was deleted or emptied: DEL, FLUSHALL, XTRIM, or evicted by a maxmemory-policy other than noeviction); this publisher writes heights 8..10 again (what it kept) before any newer block; heights 1..7 stay missing: replicas that read them keep them, a replica started now warm-starts across the hole until newer blocks fill its windows. Run Redis with AOF (appendonly yes, appendfsync everysec) so that a restart loses at most about 1 s of writes`,
    );
    expect(await streamHeights(redis)).toEqual([8, 9, 10, 11, 12]);
  });

  it("keeps at most retain blocks to write again, with keepBlocks above it: a loss writes back what the stream holds", async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.close());
    // keepBlocks at its default (10,000), above retain.
    const { write, lost } = handSink(redis.url, { retain: 5 });
    await write(1, 10);
    await restartFrom(redis, undefined);
    await write(11, 11);
    expect(lost()).toEqual([
      { type: "stream_lost", stream: STREAM, top: undefined, from: 6n, to: 10n, rewriteFrom: 6n },
    ]);
    expect(await streamHeights(redis)).toEqual([6, 7, 8, 9, 10, 11]);
  });

  it("an entry something else wrote at a height is not kept: after a loss the publisher writes its own block there", async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.close());
    const { write, events } = handSink(redis.url);
    await write(1, 2);
    // Written by hand where height 3 goes: the publisher finds it there (already published).
    await redis.client.xadd(STREAM, "3-0", "block", "not json {");
    await write(3, 6);
    const differs = events.filter((e) => e.type === "stream_differs");
    expect(differs).toEqual([
      { type: "stream_differs", stream: STREAM, height: 3n, id: "3-0", notABlock: true },
    ]);
    // Not "another publisher with a different block": nothing wrote a block there.
    expect(describeRedisSinkEvent(differs[0]!)).toBe(
      `stream ${STREAM} holds an entry that is not a gasdigest block at height 3 (entry 3-0), written by something else: replicas skip that height; this block is kept and written there if the stream loses that entry`,
    );
    await redis.client.del(STREAM);
    await write(7, 7);
    // Every height is a valid block again, height 3 the publisher's own.
    const [entry] = await redis.client.xrange(STREAM, "3-0", "3-0");
    expect(entry?.[1][1]).toBe(serializeBlockSample(block(3)));
    expect(await streamHeights(redis)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("a stream deleted under a publisher that joined late: the loss named reaches below its own first write", async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.close());
    // Heights 1..10 from another publisher (gone since); this one resumes after them.
    for (let h = 1; h <= 10; h++)
      await redis.client.xadd(STREAM, `${h}-0`, "block", serializeBlockSample(block(h)));
    const { write, lost } = handSink(redis.url, { keepBlocks: 5 });
    await write(11, 20);
    await redis.client.del(STREAM);
    await write(21, 21);
    // It said "lost 11..20" (from its own first write), as if heights 1..10 had never been.
    expect(lost()).toEqual([
      { type: "stream_lost", stream: STREAM, top: undefined, from: 1n, to: 20n, rewriteFrom: 16n },
    ]);
    expect(describeRedisSinkEvent(lost()[0]!)).toContain("heights 1..15 stay missing");
    expect(await streamHeights(redis)).toEqual([16, 17, 18, 19, 20, 21]);
  });

  it("the stream deleted under a running publisher (DEL, FLUSHALL): noticed, the kept blocks written again, no hole", async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.close());
    const { write, events, lost } = handSink(redis.url);
    await write(1, 10);
    await redis.client.del(STREAM);
    await write(11, 12);
    expect(lost()).toEqual([
      { type: "stream_lost", stream: STREAM, top: undefined, from: 1n, to: 10n, rewriteFrom: 1n },
    ]);
    const retry = events.find((e) => e.type === "retrying");
    expect(retry?.type === "retrying" && retry.error.message).toContain(
      `stream ${STREAM} is gone (deleted, or Redis flushed) since this publisher wrote to it`,
    );
    expect(await streamHeights(redis)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    // FLUSHALL the same way, once more.
    await redis.client.flushall();
    await write(13, 13);
    expect(lost()).toHaveLength(2);
    expect(await streamHeights(redis)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
  });

  // The repair wrote its batches without NOMKSTREAM, and so did the first newer write after
  // it: a stream deleted (or evicted by an allkeys-* maxmemory policy) between two of them was
  // started again by the next one, above a hole no event named (measured: a FLUSHDB during the
  // repair of 6,129 heights left the stream starting at 2701, with the one stream_lost saying
  // all were written again). The sink's transactions, counted: the first (heights 11, 12) finds
  // the stream gone, the repair writes 1..10 in the next five (batches of 2), then 11, 12.
  // Deleted after the repair is done, it is a second loss, and said as one.
  it.each([
    [3, "between two batches of the repair", 1],
    [7, "after the repair, before the next newer block", 2],
  ])(
    "the stream deleted again before the sink's transaction %i (%s): written again whole, no hole",
    async (deleteBefore, _, losses) => {
      const redis = await startRedis();
      cleanup.push(() => redis.close());
      const { write, lost } = handSink(redis.url, { batchSize: 2 });
      await write(1, 10);
      await redis.client.del(STREAM);
      let execs = 0;
      const multi = Redis.prototype.multi;
      const spy = vi.spyOn(Redis.prototype, "multi").mockImplementation(function (
        this: Redis,
        ...args: unknown[]
      ) {
        const transaction = (multi as (...a: unknown[]) => ReturnType<Redis["multi"]>).apply(
          this,
          args,
        );
        if (this === redis.client) return transaction;
        const exec = transaction.exec.bind(transaction);
        transaction.exec = (async () => {
          if (++execs === deleteBefore) await redis.client.del(STREAM);
          return exec();
        }) as typeof transaction.exec;
        return transaction;
      });
      cleanup.push(() => spy.mockRestore());
      await write(11, 12);
      expect(execs).toBeGreaterThan(deleteBefore);
      expect(lost()).toHaveLength(losses);
      expect(await streamHeights(redis)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    },
  );

  it("a repair refused by Redis (OOM) is retried with backoff and reported once, then completed", async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.close());
    const { write, events, lost } = handSink(redis.url, { maxBackoffMs: 50 });
    await write(1, 10);
    await restartFrom(redis, undefined);
    await redis.client.config("SET", "maxmemory", "1");
    const writing = write(11, 11);
    await until(() => events.filter((e) => e.type === "retrying").length >= 3);
    expect(await streamHeights(redis)).toEqual([]);
    await redis.client.config("SET", "maxmemory", "0");
    await writing;
    expect(lost()).toHaveLength(1);
    expect(await streamHeights(redis)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
  });

  it("a repair Redis refuses by a last id set ahead is a failure naming the XSETID that mends it, the loss reported once", async () => {
    // Something else wrote `XADD key MAXLEN 0 * ...`: the stream is empty and its last id a
    // time in ms. The rewrites of the kept blocks were refused, taken for another publisher's,
    // and the loss reported again on every retry, the heights never written.
    const redis = await startRedis();
    cleanup.push(() => redis.close());
    const { write, events, lost } = handSink(redis.url, { maxBackoffMs: 50 });
    await write(1, 10);
    await redis.client.xadd(STREAM, "MAXLEN", "0", "*", "foo", "bar");
    const writing = write(11, 11);
    await until(() => events.filter((e) => e.type === "retrying").length >= 4);
    expect(lost()).toHaveLength(1);
    // Block 11 refused first, then the repair on the new connection.
    const retries = events.flatMap((e) => (e.type === "retrying" ? [e.error.message] : []));
    expect(retries[0]).toBe(
      `Redis refuses height 11 of stream ${STREAM}, whose newest entry is none (the stream is empty): the stream's last id was set past its entries\n\nDetails: set it back (XSETID ${STREAM} 0-0); the blocks wait in memory meanwhile`,
    );
    // The repair, refused up to height 10, waits for the same XSETID: block 11's refusal names it.
    expect(new Set(retries)).toEqual(new Set([retries[0]]));
    await redis.client.call("XSETID", STREAM, "0-0");
    await writing;
    expect(lost()).toHaveLength(1);
    expect(await streamHeights(redis)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
  });

  it("entries removed with the last id kept (XTRIM MAXLEN 0, XDEL of the newest), then a reconnection: newer blocks are written, no repair waited for", async () => {
    // An operator empties the stream (say, to get out of a maxmemory hit) and the publisher
    // reconnects before its next write: its repair of heights 1..10 is refused (the stream's
    // last id is still 10-0), and it retried that repair on every connection, writing nothing
    // more until someone ran XSETID, every replica going stale.
    const redis = await startRedis();
    cleanup.push(() => redis.close());
    const { input, results, lost, events } = handSink(redis.url, { maxBackoffMs: 50 });
    for (const b of Array.from({ length: 10 }, (_, i) => block(i + 1))) input.next(b);
    await until(() => results.length === 10);
    await redis.client
      .multi()
      .xtrim(STREAM, "MAXLEN", 0)
      .call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
      .exec();
    input.next(block(11));
    await until(() => results.length === 11, 5_000, "height 11 written");
    expect(results.at(-1)).toMatchObject({ height: 11n, outcome: "published" });
    expect(lost()).toHaveLength(1);
    expect(await streamHeights(redis)).toEqual([11]);
    // Said once: stream_lost had announced the kept blocks written again.
    const refused = events.filter((e) => e.type === "repair_refused");
    expect(refused).toEqual([{ type: "repair_refused", stream: STREAM, from: 1n, to: 10n }]);
    expect(describeRedisSinkEvent(refused[0]!)).toMatch(
      /^Redis refuses heights 1\.\.10 of stream .+ removed by a command \(XTRIM \.\.\. MAXLEN 0, XDEL\) .+ newer blocks go on after them$/,
    );
    // The same after XDEL of the newest entry: 12 deleted, 13 written above it.
    input.next(block(12));
    await until(() => results.length === 12);
    await redis.client
      .multi()
      .xdel(STREAM, "12-0")
      .call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
      .exec();
    input.next(block(13));
    await until(() => results.length === 13, 5_000, "height 13 written");
    expect(results.at(-1)).toMatchObject({ height: 13n, outcome: "published" });
    expect(await streamHeights(redis)).toEqual([11, 13]);
  });

  it("a height found written by the other publisher is written again as the stream held it", async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.close());
    const other = handSink(redis.url);
    await other.write(1, 3);
    const before = (await redis.client.xrange(STREAM, "3-0", "3-0"))[0]![1];
    // This publisher follows a node that disagrees at height 3: the stream keeps the other's.
    const { input, results, events, lost } = handSink(redis.url);
    input.next(block(3, [999]));
    await until(() => results.length === 1);
    expect(events.map((e) => e.type)).toContain("stream_differs");
    await restartFrom(redis, undefined);
    input.next(block(4, [999]));
    await until(() => results.length === 2);
    // The stream held 1..3 (the other publisher's): all of it is named lost, 3 written again.
    expect(lost()).toMatchObject([{ top: undefined, from: 1n, to: 3n, rewriteFrom: 3n }]);
    const stream = await redis.client.xrange(STREAM, "-", "+");
    expect(stream.map(([id, fields]) => [id, fields[1]])).toEqual([
      ["3-0", serializeBlockSample(block(3))],
      ["4-0", serializeBlockSample(block(4, [999]))],
    ]);
    // Every field as the stream held it, its arrival time included: the same bytes.
    expect(stream[0]![1]).toEqual(before);
    expect(before[2]).toBe("received_at_ms");
  });

  it("keeping nothing (keepBlocks 0), a loss is still reported, once, and newer blocks go on", async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.close());
    const { write, lost } = handSink(redis.url, { keepBlocks: 0, retain: 5 });
    await write(1, 10);
    await restartFrom(redis, undefined);
    await write(11, 12);
    // An empty stream: what it lost is at most the newest --retain heights.
    expect(lost()).toEqual([
      {
        type: "stream_lost",
        stream: STREAM,
        top: undefined,
        from: 6n,
        to: 10n,
        rewriteFrom: undefined,
      },
    ]);
    expect(describeRedisSinkEvent(lost()[0]!)).toContain(
      "Redis lost every entry it held, heights 6..10 at most (the stream keeps --retain of them, whichever publisher wrote them) (it restarted from an older snapshot or without persistence, or the stream was deleted or emptied: DEL, FLUSHALL, XTRIM, or evicted by a maxmemory-policy other than noeviction); heights 6..10 stay missing: ",
    );
    expect(await streamHeights(redis)).toEqual([11, 12]);
  });

  it("gasdigest publish under a Redis restarted from an older snapshot: one stream_lost warning, no hole", async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.close());
    const chunks: string[] = [];
    const stdout = new PassThrough();
    stdout.on("data", (d) => chunks.push(String(d)));
    const handle = await startPublish(
      ["--source", "sim", "--interval-ms", "10", "--to", redis.url],
      { stdout, stderr: new PassThrough() },
    );
    cleanup.push(() => handle.stop(1_000));
    const top = async () =>
      Number(
        (await redis.client.xrevrange(STREAM, "+", "-", "COUNT", 1))[0]?.[0].split("-")[0] ?? 0,
      );
    await until(async () => (await top()) >= 20, 15_000, "20 blocks");
    await redis.stop();
    const snapshot = join(redis.dir, "snapshot");
    cpSync(join(redis.dir, "appendonlydir"), snapshot, { recursive: true });
    await redis.start();
    const old = await top();
    await until(async () => (await top()) >= old + 20, 15_000, "20 more blocks");
    // The publisher runs on: it finds the stream back at the snapshot's top when it reconnects.
    await restartFrom(redis, snapshot);
    const logs = () =>
      chunks
        .join("")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    await until(() => logs().some((l) => l.event === "stream_lost"), 15_000, "stream_lost");
    const lost = logs().filter((l) => l.event === "stream_lost");
    expect(lost).toHaveLength(1);
    const snapshotTop = Number(String(lost[0]!.top).split("-")[0]);
    expect(snapshotTop).toBeGreaterThanOrEqual(20);
    expect(lost[0]).toMatchObject({
      level: 40,
      top: `${snapshotTop}-0`,
      from: String(snapshotTop + 1),
      rewriteFrom: String(snapshotTop + 1),
    });
    expect(Number(lost[0]!.to)).toBeGreaterThanOrEqual(old + 20);
    expect(lost[0]!.msg).toBe(
      `stream ${STREAM} ends at entry ${snapshotTop}-0, below height ${lost[0]!.to} that Redis had acknowledged to this publisher: Redis lost heights ${snapshotTop + 1}..${lost[0]!.to} (it restarted from an older snapshot, or without persistence); this publisher kept them and writes them again before any newer block. Run Redis with AOF (appendonly yes, appendfsync everysec) so that a restart loses at most about 1 s of writes`,
    );
    const newest = BigInt(lost[0]!.to as string);
    await until(async () => BigInt(await top()) > newest + 10n, 15_000, "newer blocks");
    await handle.stop();
    const heights = await streamHeights(redis);
    expect(heights).toEqual(Array.from({ length: heights.length }, (_, i) => i + 1));
  });
});
