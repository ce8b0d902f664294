import { setTimeout as sleep } from "node:timers/promises";
import { DEFAULT_REDIS_TIMEOUT_MS } from "../sources/redis/connectionOptions.js";
import { createOutageTracker } from "../sources/redis/createOutageTracker.js";
import { fetchStreamTop } from "../sources/redis/redisStreamTop.js";
import { parseRedisUrl, RedisFeedError, type RedisStreamTop } from "../sources/redisStream.js";
import type { logRedisEvent } from "./logRedisEvent.js";

/** What {@link waitForStreamTop} returns when `signal` aborted before Redis answered. */
export const STOPPED = Symbol("stopped");

/**
 * Read the stream's newest entry, retrying with backoff while Redis cannot be reached, until
 * `signal` aborts (then {@link STOPPED}: a publisher stopped while it waits for Redis).
 *
 * @throws any error that is not a {@link RedisFeedError}, at once.
 * @example
 * const top = await waitForStreamTop("redis://127.0.0.1:6379", "gasdigest:blocks", onEvent, signal);
 */
export async function waitForStreamTop(
  url: string,
  stream: string,
  onEvent: ReturnType<typeof logRedisEvent>,
  signal: AbortSignal,
): Promise<RedisStreamTop | undefined | typeof STOPPED> {
  const target = parseRedisUrl(url);
  const outage = createOutageTracker({
    url: target.display,
    unreachableAfter: 3,
    initialBackoffMs: 100,
    maxBackoffMs: 5_000,
    random: Math.random,
    now: Date.now,
    onEvent,
  });
  for (;;) {
    if (signal.aborted) return STOPPED;
    try {
      // The signal closes a connection waiting on a Redis that answers nothing: a stop does
      // not wait out the timeout.
      const top = await fetchStreamTop(
        target,
        stream,
        DEFAULT_REDIS_TIMEOUT_MS,
        signal,
        "gasdigest-publisher",
      );
      outage.succeeded();
      return top;
    } catch (e) {
      if (!(e instanceof RedisFeedError)) throw e;
      if (signal.aborted) return STOPPED;
      try {
        await sleep(outage.failed(e), undefined, { signal });
      } catch {
        return STOPPED;
      }
    }
  }
}
