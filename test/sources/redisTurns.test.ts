// A replica hands its blocks over a few ms of work at a time (src/sources/createTurnPacer.ts), so
// a server it feeds keeps answering through a warm start of thousands of blocks.
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

  it("a warm start of 600 blocks and a page of 300 new ones let the event loop take turns", async () => {
    await publish(redis.url, blocks(1, 600));
    let turns = watchTurns();
    let got = 0;
    // Each block takes the subscriber 1 ms: the warm start used to hand all 600 over in one turn.
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
    const warm = turns.stop();
    expect(warm.most).toBeLessThanOrEqual(60);
    turns = watchTurns();
    await publish(redis.url, blocks(601, 900));
    await until(() => got === 900, 30_000, "the new blocks");
    const tail = turns.stop();
    expect(tail.most).toBeLessThanOrEqual(60);
    expect(tail.turns).toBeGreaterThanOrEqual(5);
  }, 60_000);
});
