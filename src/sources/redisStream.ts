import type { Observable } from "rxjs";
import type { BlockSample } from "../core/blockSample.js";
import { loopObservable } from "./loopObservable.js";
import { loadIoredis } from "./redis/connectRedis.js";
import { followStream } from "./redis/followStream.js";
import { type RedisStreamOptions, resolveRedisStreamOptions } from "./redis/options.js";

export type { RedisConnectionEvent } from "./redis/createOutageTracker.js";
export { describeRedisEvent } from "./redis/describeRedisEvent.js";
export type { RedisFailureKind } from "./redis/errors.js";
export { RedisFeedError } from "./redis/errors.js";
export type {
  RedisConnectionOptions,
  RedisStreamEvent,
  RedisStreamOptions,
  ResolvedRedisStreamOptions,
} from "./redis/options.js";
export { resolveRedisStreamOptions } from "./redis/options.js";
export type { RedisTarget } from "./redis/parseRedisUrl.js";
export { parseRedisUrl } from "./redis/parseRedisUrl.js";
export { redisEventFields } from "./redis/redisEventFields.js";
export type { RedisStreamTop } from "./redis/redisStreamTop.js";
export { redisStreamTop } from "./redis/redisStreamTop.js";
export type { DecodedStreamEntry } from "./redis/streamEntry.js";
export {
  DEFAULT_STREAM,
  decodeStreamEntry,
  encodeStreamEntry,
  entryId,
} from "./redis/streamEntry.js";

/**
 * A source that follows a Redis Stream of blocks written by `gasdigest publish` (or
 * `redisStreamSink`): entry id `<height>-0`, field `block` holding the block's NDJSON line,
 * field `received_at_ms` when the publisher got it (the blocks' arrival, for staleness).
 *
 * - **Warm start:** at subscription it reads the newest `warmStartBlocks` entries
 *   (`XREVRANGE ... COUNT`) and emits them oldest first, so an engine serves the right estimate
 *   at once, without asking a node. With `startHeight` it reads every entry from that height on
 *   instead.
 * - Then it follows the stream with `XREAD BLOCK`, in id (so height) order.
 * - When Redis goes away it reconnects with capped exponential backoff and jitter (events
 *   `retrying`, `unreachable`, `recovered`) and goes on after the last entry seen: no block is
 *   lost (while the stream still holds it) and none comes twice.
 * - An entry that is not a valid block is skipped with a `rejected` event naming the entry id
 *   and the field; it never stops the source.
 *
 * The `ioredis` package (an optional peer dependency) starts loading when `redisStream()` is
 * called (a missing package fails the subscription with a message saying how to install it);
 * each subscription has its own connection (cold). Unsubscribing closes it at once.
 *
 * @throws {InvalidConfigError} at call time when the URL or an option is invalid.
 * @example
 * import { aip34, createEngine } from "gasdigest";
 * import { describeRedisEvent, redisStream } from "gasdigest/redis";
 * const engine = createEngine({ strategy: aip34() });
 * engine.connect(redisStream("redis://127.0.0.1:6379", {
 *   warmStartBlocks: engine.config.aggressiveBlockHistory + 1,
 *   onEvent: (e) => console.log(describeRedisEvent(e)),
 * }));
 */
export function redisStream(
  url: string,
  options: RedisStreamOptions = {},
): Observable<BlockSample> {
  const resolved = resolveRedisStreamOptions(url, options);
  // Start loading the client now, so a server subscribing after it listens connects sooner.
  loadIoredis().catch(() => undefined);
  return loopObservable<BlockSample>((subscriber, signal) =>
    followStream(resolved, (block) => subscriber.next(block), signal),
  );
}
