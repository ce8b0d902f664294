import { setTimeout as sleep } from "node:timers/promises";
import { createOutageTracker } from "../sources/redis/createOutageTracker.js";
import {
  parseRedisUrl,
  RedisFeedError,
  type RedisStreamTop,
  redisStreamTop,
} from "../sources/redisStream.js";
import type { logRedisEvent } from "./logRedisEvent.js";

/**
 * Read the stream's newest entry, retrying with backoff while Redis cannot be reached.
 *
 * @throws {RedisFeedError} when `stopped()` says to give up; any other error at once.
 * @example
 * const top = await waitForStreamTop("redis://127.0.0.1:6379", "gasdigest:blocks", onEvent, () => false);
 */
export async function waitForStreamTop(
  url: string,
  stream: string,
  onEvent: ReturnType<typeof logRedisEvent>,
  stopped: () => boolean,
): Promise<RedisStreamTop | undefined> {
  const outage = createOutageTracker({
    url: parseRedisUrl(url).display,
    unreachableAfter: 3,
    initialBackoffMs: 100,
    maxBackoffMs: 5_000,
    random: Math.random,
    now: Date.now,
    onEvent,
  });
  for (;;) {
    try {
      const top = await redisStreamTop(url, { stream });
      outage.succeeded();
      return top;
    } catch (e) {
      if (!(e instanceof RedisFeedError) || stopped()) throw e;
      await sleep(outage.failed(e));
    }
  }
}
