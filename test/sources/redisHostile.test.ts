import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { newestStart } from "../../src/cli/newestStart.js";
import { U64_MAX } from "../../src/core/u64.js";
import { parseBlockSample } from "../../src/index.js";
import {
  describeRedisEvent,
  describeRedisSinkEvent,
  type RedisSinkEvent,
  redisStreamTop,
} from "../../src/redis.js";
import { connectRedis } from "../../src/sources/redis/connectRedis.js";
import { parseRedisUrl } from "../../src/sources/redis/parseRedisUrl.js";
import { readStreamTop, type StreamTopMemo } from "../../src/sources/redis/redisStreamTop.js";
import { encodeStreamEntry } from "../../src/sources/redis/streamEntry.js";
import { runCli } from "../helpers/cli.js";
import { redisSkipReason, type TestRedis, useSharedRedis } from "../helpers/redisServer.js";
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

describe.skipIf(skip)("Redis feed against a stream others write to", () => {
  let redis: TestRedis;
  useSharedRedis((r) => {
    redis = r;
  });

  it("a read that fails every time is an outage: backoff grows and unreachable is reported once", async () => {
    await publish(redis.url, blocks(1, 5));
    // A replica's user that may connect and look at the key, but not XREAD it.
    await redis.client.call("ACL", "SETUSER", "noread", "on", ">pw", "~*", "+@all", "-xread");
    cleanup.push(() => redis.client.call("ACL", "DELUSER", "noread"));
    const url = redis.url.replace("redis://", "redis://noread:pw@");
    const source = follow(url, { startHeight: 1n, maxBackoffMs: 100 });
    await until(() => source.events.filter((e) => e.type === "retrying").length >= 4);
    const attempts = source.events.flatMap((e) => (e.type === "retrying" ? [e.attempt] : []));
    expect(attempts.slice(0, 4)).toEqual([1, 2, 3, 4]);
    const unreachable = source.events.filter((e) => e.type === "unreachable");
    expect(unreachable).toHaveLength(1);
    expect(describeRedisEvent(unreachable[0]!)).toMatch(/NOPERM|no permissions/i);
    expect(source.got).toEqual([]);
  });

  it("a top entry read again is decoded once (memo by id and field lengths), a new one decoded anew", async () => {
    await redis.client.xadd(STREAM, "7-0", "block", `{"x":"${"a".repeat(1_000_000)}"`);
    const conn = await connectRedis(parseRedisUrl(redis.url), { timeoutMs: 2_000, name: "t" });
    cleanup.push(() => conn.close());
    const memo: StreamTopMemo = {};
    const first = await readStreamTop(conn, STREAM, memo);
    expect(first).toMatchObject({ id: "7-0", ok: false });
    // The same entry: the very result, not decoded again; the memo holds no field text.
    expect(await readStreamTop(conn, STREAM, memo)).toBe(first);
    expect(JSON.stringify(memo).length).toBeLessThan(2_000);
    await redis.client.xadd(
      STREAM,
      "8-0",
      ...encodeStreamEntry(parseBlockSample({ height: 8, epoch: 1, gas_unit_prices: [] })),
    );
    expect(await readStreamTop(conn, STREAM, memo)).toMatchObject({
      id: "8-0",
      ok: true,
      height: 8n,
    });
  });

  it("height 0 after others (a chain started again from genesis) is skipped in its place, no outage", async () => {
    const events: string[] = [];
    const results = await publish(
      redis.url,
      [5, 6, 0, 1].map((h) => block(h)),
      { onEvent: (e: { type: string }) => events.push(e.type) },
    );
    expect(results.map((r) => `${r.height}:${r.outcome}`)).toEqual([
      "5:published",
      "6:published",
      "0:skipped",
      "1:refused",
    ]);
    // Redis refuses the id 0-0: sent in the batch, it read as an outage (retrying, reconnect).
    expect(events).not.toContain("retrying");
    expect(events.filter((e) => e === "connected")).toHaveLength(1);
    expect(await streamHeights(redis)).toEqual([5, 6]);
  });

  it("rediss:// to a server without TLS: the timeout says the TLS handshake never completed", async () => {
    const source = follow(redis.url.replace("redis://", "rediss://"), {
      startHeight: 1n,
      timeoutMs: 300,
      maxBackoffMs: 50,
    });
    await until(() => source.events.some((e) => e.type === "unreachable"), 10_000);
    const unreachable = source.events.find((e) => e.type === "unreachable")!;
    expect(describeRedisEvent(unreachable)).toMatch(/no TLS handshake completed.*use redis:\/\//);
  });

  it("a replica that fell behind the stream's trimming says which heights it never saw", async () => {
    await publish(redis.url, blocks(1, 5));
    const source = follow(redis.url);
    await until(() => source.got.length === 5);
    // Heights 6..8 were written and trimmed away before this replica read them.
    await publish(redis.url, blocks(9, 10));
    await until(() => source.got.length === 7);
    expect(source.heights()).toEqual([1, 2, 3, 4, 5, 9, 10]);
    const gaps = source.events.filter((e) => e.type === "gap");
    expect(gaps).toEqual([{ type: "gap", stream: STREAM, from: 6n, to: 8n }]);
    expect(describeRedisEvent(gaps[0]!)).toBe(
      `no block for heights 6..8 in stream ${STREAM}: trimmed before they were read here (this reader fell behind by more than the stream keeps, or asked for older heights than it keeps: see --retain), never published, or skipped as invalid`,
    );
  });

  it("an entry of thousands of objects is skipped after one pass, like a bad NDJSON line", async () => {
    await publish(redis.url, blocks(1, 2));
    await redis.client.xadd(STREAM, "3-0", "block", `[${"{},".repeat(100_000)}{}]`);
    await publish(redis.url, blocks(4, 4));
    const source = follow(redis.url);
    await until(() => source.got.length === 3);
    const rejected = source.events.filter((e) => e.type === "rejected");
    expect(rejected.map((e) => [e.id, e.issues[0]!.message])).toEqual([
      [
        "3-0",
        "holds more than 16 objects or arrays; a block sample holds 3 objects or arrays and 12 fields, so it is not parsed",
      ],
    ]);
  });

  /**
   * With blocks 1..5 published and an entry `top` written by hand above them: a publisher given
   * blocks 6..`to` writes none, says which entry is in the way and how to repair it, and writes
   * them once the repair it names is done.
   */
  async function publishPastForeignTop(top: string, to: number) {
    const { input, results, events } = handSink(redis.url, { maxBackoffMs: 100 });
    for (const b of blocks(6, to)) input.next(b);
    await until(() => events.some((e) => e.type === "unreachable"));
    // Nothing was counted as published: the blocks are not in the stream.
    expect(results).toEqual([]);
    const unreachable = events.find((e) => e.type === "unreachable")!;
    expect(describeRedisEvent(unreachable as never)).toContain(
      `the newest entry ${top} of stream ${STREAM} is not a gasdigest block, and Redis refuses every XADD at or below its id (remove it (XDEL ${STREAM} ${top}) and set the stream's last id back`,
    );
    // The repair the message names.
    await redis.client.xdel(STREAM, top);
    await redis.client.call("XSETID", STREAM, "5-0");
    await until(() => results.length === to - 5);
    expect(results.map((r) => r.outcome)).toEqual(Array(to - 5).fill("published"));
    expect(await streamHeights(redis)).toEqual(Array.from({ length: to }, (_, i) => i + 1));
    return events;
  }

  it("a foreign entry on top of the stream: the publisher keeps its blocks and says how to repair, and writes them once repaired", async () => {
    await publish(redis.url, blocks(1, 5));
    const replica = follow(redis.url, { blockMs: 100 });
    await until(() => replica.got.length === 5);
    const foreign = await redis.client.xadd(STREAM, "*", "note", "written by hand");
    const events = await publishPastForeignTop(foreign!, 8);
    expect(events.some((e) => e.type === "recovered")).toBe(true);
    // The replica skipped the foreign entry, then read on after block 5 as if it had never been.
    await until(() => replica.got.length === 8);
    expect(replica.heights()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(replica.events.map((e) => e.type).filter((t) => t !== "connected")).toEqual([
      "warm_start",
      "rejected",
      "resumed",
    ]);
  });

  it("an entry at the largest id there is: the publisher names it and the repair, as for any foreign entry on top", async () => {
    // Redis answers such a stream's XADDs "exhausted the last possible ID", not its usual
    // refusal: the publisher gave only that, naming neither the entry nor the repair.
    await publish(redis.url, blocks(1, 5));
    const top = "18446744073709551615-18446744073709551615";
    await redis.client.xadd(STREAM, top, "note", "written by hand");
    await publishPastForeignTop(top, 6);
  });

  it("the Redis users of docs/operations.md are enough: a publisher writes and a replica reads", async () => {
    // The permissions exactly as the docs write them, so the two cannot drift apart.
    const docs = readFileSync(new URL("../../docs/operations.md", import.meta.url), "utf8");
    const granted = (user: string) =>
      new RegExp(`ACL SETUSER ${user} (.*)$`, "m")
        .exec(docs)![1]!
        .split(" ")
        .filter((t) => t.startsWith("+"));
    const users = { pub: granted("gasdigest-publisher"), rep: granted("gasdigest-replica") };
    expect(users.pub).toContain("+xadd");
    for (const [name, commands] of Object.entries(users)) {
      await redis.client.call("ACL", "SETUSER", name, "on", ">pw", "~gasdigest:*", ...commands);
      cleanup.push(() => redis.client.call("ACL", "DELUSER", name));
    }
    const as = (user: string) => redis.url.replace("redis://", `redis://${user}:pw@`);
    expect(await redisStreamTop(as("pub"))).toBeUndefined();
    const written = await publish(as("pub"), blocks(1, 30));
    expect(written.every((r) => r.outcome === "published")).toBe(true);
    const source = follow(as("rep"), { warmStartBlocks: 10 });
    await until(() => source.got.length === 10);
    // A second publisher's overlap: refused heights are checked (XRANGE), then written on.
    const overlap = await publish(as("pub"), blocks(29, 32));
    expect(overlap.map((r) => r.outcome)).toEqual([
      "already_published",
      "already_published",
      "published",
      "published",
    ]);
    await until(() => source.got.length === 12);
    expect(source.heights()).toEqual([21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32]);
    expect(source.events.filter((e) => e.type === "retrying")).toEqual([]);
  });

  it("a short look at the stream's top names its connection after the command that asks (CLIENT LIST)", async () => {
    // record's --blocks N and the library's redisStreamTop read the top on a connection once
    // named gasdigest-publisher: an operator looking for a running publisher found one.
    await publish(redis.url, blocks(1, 3));
    const monitor = await redis.client.monitor();
    cleanup.push(() => monitor.disconnect());
    const names: string[] = [];
    monitor.on("monitor", (_time: string, args: string[]) => {
      if (args[0]?.toLowerCase() === "client" && args[1]?.toLowerCase() === "setname")
        names.push(args[2]!);
    });
    expect(await newestStart(redis.url, STREAM, 2)).toBe(2n);
    expect((await redisStreamTop(redis.url, { stream: STREAM }))?.ok).toBe(true);
    await until(() => names.length === 2);
    expect(names).toEqual(["gasdigest-record", "gasdigest"]);
  });

  it("a password holding %, @, : and a space, percent-encoded, reaches Redis as it is", async () => {
    // The client is given the decoded fields, not the URL text it would parse again.
    const password = "p%w d:@x";
    await redis.client.call("ACL", "SETUSER", "odd", "on", `>${password}`, "~*", "+@all");
    cleanup.push(() => redis.client.call("ACL", "DELUSER", "odd"));
    const url = redis.url.replace("redis://", `redis://odd:${encodeURIComponent(password)}@`);
    const written = await publish(url, blocks(1, 3));
    expect(written.map((r) => r.outcome)).toEqual(["published", "published", "published"]);
    // The wrong one is refused by Redis, and no message holds it.
    const wrong = url.replace("p%25w", "p%25W");
    const refused = await redisStreamTop(wrong).then(
      () => undefined,
      (e: Error) => `${e.message} ${JSON.stringify(e)}`,
    );
    expect(refused).toMatch(/WRONGPASS|invalid username-password/);
    expect(refused).not.toContain("d:@x");
    expect(refused).not.toContain("d%3A%40x");
  });

  it("a warm start that finds no valid block says so, then feeds the first valid one", async () => {
    for (let h = 1; h <= 5; h++) await redis.client.xadd(STREAM, `${h}-0`, "block", "{nope");
    const source = follow(redis.url, { warmStartBlocks: 3 });
    await until(() => source.events.some((e) => e.type === "warm_start"));
    const start = source.events.find((e) => e.type === "warm_start")!;
    expect(start).toEqual({ type: "warm_start", stream: STREAM, blocks: 0, wanted: 3 });
    expect(describeRedisEvent(start)).toBe(
      `warm start: no valid block among the newest entries read from stream ${STREAM} (each one skipped is listed); serving nothing until a valid block comes`,
    );
    expect(source.events.filter((e) => e.type === "rejected").length).toBeGreaterThan(0);
    await publish(redis.url, [block(6)]);
    await until(() => source.got.length === 1);
    expect(source.heights()).toEqual([6]);
  });

  it("an entry at the largest height on top: publish says no block can follow it, naming the stream and the repair", async () => {
    const top = parseBlockSample({ height: U64_MAX.toString(), epoch: "1", gas_unit_prices: [] });
    await redis.client.xadd(STREAM, `${U64_MAX}-0`, ...encodeStreamEntry(top));
    const r = await runCli(["publish", "--source", "sim", "--to", redis.url]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `gasdigest publish: the newest entry ${U64_MAX}-0 of stream ${STREAM} is at height ${U64_MAX}, the largest there is: no block can follow it (if a publisher did not write it, remove it (XDEL ${STREAM} ${U64_MAX}-0) and set the stream's last id back to its newest block (XSETID ${STREAM} <that id>))\n`,
    );
  });

  it("a valid entry written ahead by something else: the heights below it are refused, not counted as published", async () => {
    await publish(redis.url, blocks(1, 5));
    // A block at height 9 written by hand: Redis now refuses 6..8 for good.
    await publish(redis.url, [block(9)]);
    const events: RedisSinkEvent[] = [];
    const results = await publish(redis.url, blocks(6, 10), {
      onEvent: (e: RedisSinkEvent) => events.push(e),
    });
    expect(results.map((r) => r.outcome)).toEqual([
      "refused",
      "refused",
      "refused",
      "already_published",
      "published",
    ]);
    const ahead = events.filter((e) => e.type === "stream_ahead");
    // The top when the batch was answered: block 10 went in after the hand-written 9.
    expect(ahead).toEqual([{ type: "stream_ahead", stream: STREAM, height: 6n, top: "10-0" }]);
    expect(describeRedisSinkEvent(ahead[0]!)).toBe(
      `stream ${STREAM} ends at entry 10-0, above height 6, which it does not hold: Redis refuses the block. A publisher behind the stream (an older file or history, a node lagging by more than the stream keeps) needs nothing done: the stream is fine; if something else wrote 10-0, delete that entry (XDEL) and set the stream's last id back (XSETID); delete the stream key only if you know the chain itself was reset (its heights started again lower), after stopping every publisher: on a healthy stream that throws away the blocks the replicas read`,
    );
  });

  it("a last id set past every entry (XADD MAXLEN 0, or XDEL before XSETID): the blocks wait, none is lost", async () => {
    await publish(redis.url, blocks(1, 3));
    // Something writes and trims at once: the stream is empty, its last id a time in ms.
    await redis.client.call("XADD", STREAM, "MAXLEN", "0", "*", "x", "y");
    const events: RedisSinkEvent[] = [];
    const done = publish(redis.url, blocks(4, 6), {
      initialBackoffMs: 20,
      maxBackoffMs: 50,
      onEvent: (e: RedisSinkEvent) => events.push(e),
    });
    await until(() => events.filter((e) => e.type === "retrying").length >= 2);
    const retrying = events.find((e) => e.type === "retrying") as { error: Error };
    expect(retrying.error.message).toMatch(
      /refuses height 4 of stream .*, whose newest entry is none \(the stream is empty\): the stream's last id was set past its entries/,
    );
    // The repair the message names; then every block goes in (they were all "refused" for good).
    await redis.client.call("XSETID", STREAM, "3-0");
    const results = await done;
    expect(results.map((r) => `${r.height}:${r.outcome}`)).toEqual([
      "4:published",
      "5:published",
      "6:published",
    ]);
    expect(await streamHeights(redis)).toEqual([4, 5, 6]);
  });
});
