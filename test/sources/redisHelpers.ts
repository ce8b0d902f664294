import { from, lastValueFrom, Subject, toArray } from "rxjs";
import { afterEach } from "vitest";
import { type BlockSample, parseBlockSample } from "../../src/index.js";
import {
  type RedisPublishResult,
  type RedisSinkEvent,
  type RedisStreamEvent,
  type RedisStreamSinkOptions,
  redisStream,
  redisStreamSink,
} from "../../src/redis.js";
import type { TestRedis } from "../helpers/redisServer.js";
import { until } from "../helpers/until.js";

export const STREAM = "gasdigest:blocks";

export function block(height: number, prices: number[] = [100 + (height % 7) * 10]): BlockSample {
  return parseBlockSample({
    height: String(height),
    epoch: "1",
    chain_id: 4,
    gas_unit_prices: prices.map(String),
  });
}
export const blocks = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => block(from + i));

/** Run after the current test, last registered first. */
export const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** Subscribe a source and collect what it emits and reports. */
export function follow(url: string, options: Parameters<typeof redisStream>[1] = {}) {
  const got: BlockSample[] = [];
  const events: RedisStreamEvent[] = [];
  const sub = redisStream(url, {
    initialBackoffMs: 20,
    maxBackoffMs: 200,
    blockMs: 500,
    ...options,
    onEvent: (e) => events.push(e),
  }).subscribe((b) => got.push(b));
  cleanup.push(() => sub.unsubscribe());
  return { got, events, heights: () => got.map((b) => Number(b.height)), sub };
}

export async function publish(url: string, input: BlockSample[], options = {}) {
  return lastValueFrom(
    from(input).pipe(redisStreamSink(url, { initialBackoffMs: 20, ...options }), toArray()),
  );
}

export async function streamHeights(redis: TestRedis, key = STREAM) {
  const entries = await redis.client.xrange(key, "-", "+");
  return entries.map(([id]) => Number(id.split("-")[0]));
}

/**
 * A sink fed by hand (`input.next(block)`), with what it emits and reports; `write(from, to)`
 * feeds those heights and waits until the last one is written.
 */
export function handSink(url: string, options: RedisStreamSinkOptions = {}) {
  const input = new Subject<BlockSample>();
  const results: RedisPublishResult[] = [];
  const events: RedisSinkEvent[] = [];
  const sub = input
    .pipe(
      redisStreamSink(url, {
        initialBackoffMs: 20,
        maxBackoffMs: 200,
        ...options,
        onEvent: (e) => events.push(e),
      }),
    )
    .subscribe((r) => results.push(r));
  cleanup.push(() => sub.unsubscribe());
  const write = async (from: number, to: number) => {
    for (const b of blocks(from, to)) input.next(b);
    await until(() => results.at(-1)?.height === BigInt(to), 15_000, `height ${to} written`);
  };
  const lost = () => events.filter((e) => e.type === "stream_lost");
  return { input, write, results, events, lost, sub };
}
