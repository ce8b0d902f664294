// A replica hands new blocks over a few ms of work at a time (src/sources/createTurnPacer.ts), so
// a server it feeds keeps answering while it catches up; a warm start comes whole.
import { describe, expect, it } from "vitest";
import { redisStream } from "../../src/redis.js";
import { redisSkipReason, type TestRedis, useSharedRedis } from "../helpers/redisServer.js";
import { busy, watchTurns } from "../helpers/turns.js";
import { until } from "../helpers/until.js";
import { blocks, cleanup, publish } from "./redisHelpers.js";

describe.skipIf(redisSkipReason())("Redis Stream source: turns of the event loop", () => {
  let redis: TestRedis;
  useSharedRedis((r) => {
    redis = r;
  });

  it("a warm start is handed over in one turn, a page of 300 new blocks a few ms of work at a time", async () => {
    await publish(redis.url, blocks(1, 600));
    let turns = watchTurns();
    let got = 0;
    // Each block takes the subscriber 1 ms.
    const sub = redisStream(redis.url, {
      warmStartBlocks: 600,
      batchSize: 1000,
      blockMs: 500,
    }).subscribe(() => {
      busy(1);
      turns.block();
      got++;
    });
    cleanup.push(() => sub.unsubscribe());
    await until(() => got === 600, 30_000, "the warm start");
    // All at once: a server fed by the replica never answers from the oldest few blocks of a
    // warm start with its windows part empty (the pages are read and decoded a few ms at a time).
    expect(turns.stop().most).toBe(600);
    turns = watchTurns();
    await publish(redis.url, blocks(601, 900));
    await until(() => got === 900, 30_000, "the new blocks");
    const tail = turns.stop();
    // These used to come a page at a time: up to 300 blocks (300 ms) in one turn.
    expect(tail.most).toBeLessThanOrEqual(60);
    expect(tail.turns).toBeGreaterThanOrEqual(5);
  }, 60_000);
});
