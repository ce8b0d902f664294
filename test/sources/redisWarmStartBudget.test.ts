// A warm start holds its blocks, parsed, until it feeds them in one turn: how many transactions
// they may hold together is bounded (`warmStartTransactions`), so a stream of large blocks
// cannot take a replica down at start. Thirty valid blocks of 12 million prices each did, with
// the heap, on every restart.
import { describe, expect, it } from "vitest";
import { parseBlockSample } from "../../src/index.js";
import { describeRedisEvent } from "../../src/redis.js";
import { redisSkipReason, type TestRedis, useSharedRedis } from "../helpers/redisServer.js";
import { until } from "../helpers/until.js";
import { block, follow, publish, STREAM } from "./redisHelpers.js";

const skip = redisSkipReason();
const hundred = (height: number) =>
  block(
    height,
    Array.from({ length: 100 }, () => 100 + height),
  );

describe.skipIf(skip)("Redis warm start: a budget of transactions", () => {
  let redis: TestRedis;
  useSharedRedis((r) => {
    redis = r;
  });

  it("takes the newest blocks that fit, says so, and reads on from the top", async () => {
    await publish(
      redis.url,
      Array.from({ length: 10 }, (_, i) => hundred(i + 1)),
    );
    const source = follow(redis.url, { warmStartBlocks: 10, warmStartTransactions: 450 });
    await until(() => source.events.some((e) => e.type === "warm_start"));
    const start = source.events.find((e) => e.type === "warm_start")!;
    expect(start).toEqual({
      type: "warm_start",
      stream: STREAM,
      blocks: 4,
      wanted: 10,
      from: 7n,
      to: 10n,
      transactions: 400,
    });
    expect(describeRedisEvent(start)).toBe(
      `warm start: only 4 of the 10 blocks wanted (heights 7..10) from stream ${STREAM}: they hold 400 transactions, and the next older block would have taken the warm start past warmStartTransactions; until the windows fill the estimate may differ from replicas that read more`,
    );
    expect(source.heights()).toEqual([7, 8, 9, 10]);
    await publish(redis.url, [hundred(11)]);
    await until(() => source.got.length === 5);
    expect(source.heights()).toEqual([7, 8, 9, 10, 11]);
  });

  it("counts the blocks of another chain it holds too (handed on, the engine refuses them)", async () => {
    // Nine blocks of chain 5 under the newest, of chain 4: they were held outside the budget,
    // 9,000 transactions against 150, and read on up to 10 entries per block wanted.
    const other = (height: number) =>
      parseBlockSample({
        height: String(height),
        epoch: "1",
        chain_id: 5,
        gas_unit_prices: Array.from({ length: 1_000 }, () => "100"),
      });
    await publish(redis.url, [...Array.from({ length: 9 }, (_, i) => other(i + 1)), hundred(10)]);
    const source = follow(redis.url, { warmStartBlocks: 10, warmStartTransactions: 150 });
    await until(() => source.events.some((e) => e.type === "warm_start"));
    expect(source.events.find((e) => e.type === "warm_start")).toMatchObject({
      blocks: 1,
      from: 10n,
      transactions: 100,
    });
    expect(source.heights()).toEqual([10]);
  });

  it("always takes the newest block, whatever it holds", async () => {
    await publish(redis.url, [hundred(1), hundred(2)]);
    const source = follow(redis.url, { warmStartBlocks: 5, warmStartTransactions: 10 });
    await until(() => source.events.some((e) => e.type === "warm_start"));
    expect(source.events.find((e) => e.type === "warm_start")).toMatchObject({
      blocks: 1,
      from: 2n,
      to: 2n,
      transactions: 100,
    });
    expect(source.heights()).toEqual([2]);
  });

  it("reads at most 10 entries per block wanted: entries that are not blocks on top do not make it read the whole stream", async () => {
    await publish(redis.url, [hundred(1)]);
    for (let i = 0; i < 30; i++) await redis.client.xadd(STREAM, "*", "note", "written by hand");
    const source = follow(redis.url, { warmStartBlocks: 2 });
    await until(() => source.events.some((e) => e.type === "warm_start"));
    // 2 blocks wanted: the newest 20 entries read, each reported, and no block among them.
    expect(source.events.filter((e) => e.type === "rejected")).toHaveLength(20);
    expect(source.events.find((e) => e.type === "warm_start")).toEqual({
      type: "warm_start",
      stream: STREAM,
      blocks: 0,
      wanted: 2,
    });
    expect(source.heights()).toEqual([]);
  });
});
