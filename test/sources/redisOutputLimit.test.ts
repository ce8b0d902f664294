// Redis closes a client whose pending answer passes its `client-output-buffer-limit` (for
// normal clients: 0, no limit, by default; some operators set one). A page asked again at the
// same size after each reconnection was closed the same way every time: a replica that never
// warm-started, or, behind by more than a page of such bytes (paused, slower than the chain),
// never caught up, answering 503 with only "the connection closed" in its log.
import { describe, expect, it } from "vitest";
import { redisSkipReason, startRedis } from "../helpers/redisServer.js";
import { until } from "../helpers/until.js";
import { block, cleanup, follow, handSink, publish } from "./redisHelpers.js";

const skip = redisSkipReason();

describe.skipIf(skip)("a replica of a Redis with an output buffer limit", () => {
  it("warm-starts and catches up in smaller pages instead of asking for the same page forever", async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.close());
    // Blocks of 100 prices: about 750 bytes an entry; a page of 90 entries passes 64 KiB.
    const prices = Array.from({ length: 100 }, (_, i) => 100 + i);
    const blocksOf = (from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, i) => block(from + i, prices));
    await publish(redis.url, blocksOf(1, 1000));
    await redis.client.config("SET", "client-output-buffer-limit", "normal 64kb 32kb 10");

    // More pages than it takes a cut page to double back (which, closed again, would start the
    // warm start over every time).
    const source = follow(redis.url, { warmStartBlocks: 1000, maxBackoffMs: 50 });
    await until(() => source.got.length === 1000, 8_000, "the warm start under the limit");
    expect(source.events.find((e) => e.type === "warm_start")).toMatchObject({ blocks: 1000 });

    // 1,000 blocks at once: the replica is behind by about 750 KiB of entries.
    await publish(redis.url, blocksOf(1001, 2000));
    await until(() => source.got.length === 2000, 8_000, "the catch-up under the limit");
    expect(source.heights()).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
    const closed = source.events.filter((e) => e.type === "retrying" && e.error.kind === "closed");
    expect(closed.length).toBeGreaterThan(0);
  });

  it("a publisher checks the heights Redis refused in smaller pipelines, instead of being closed for ever", async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.close());
    // Blocks of 500 prices: about 3.5 KiB an entry.
    const prices = Array.from({ length: 500 }, (_, i) => 100 + i);
    const first = handSink(redis.url);
    for (let h = 1; h <= 200; h++) first.input.next(block(h, prices));
    await until(() => first.results.length === 200, 15_000, "the first publisher");
    await redis.client.config("SET", "client-output-buffer-limit", "normal 64kb 32kb 10");
    // The other publisher, behind: every height of its batches of 100 is refused, and their
    // entries read back (about 350 KiB in one pipeline) to check the stream holds them.
    const second = handSink(redis.url, { maxBackoffMs: 50 });
    for (let h = 1; h <= 201; h++) second.input.next(block(h, prices));
    await until(() => second.results.length === 201, 10_000, "the second publisher");
    expect(second.results.filter((r) => r.outcome === "already_published")).toHaveLength(200);
    expect(second.results.at(-1)).toMatchObject({ height: 201n, outcome: "published" });
    expect(second.events.some((e) => e.type === "retrying" && e.error.kind === "closed")).toBe(
      true,
    );
  });
});
