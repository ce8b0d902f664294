import { Observable, type OperatorFunction } from "rxjs";
import { noteArrival } from "../core/blockArrival.js";
import { type BlockSample, safeParseBlockSample } from "../core/blockSample.js";
import { loadIoredis } from "../sources/redis/connectRedis.js";
import { createPendingQueue } from "./redis/createPendingQueue.js";
import {
  type RedisPublishResult,
  type RedisStreamSinkOptions,
  resolveRedisStreamSinkOptions,
} from "./redis/options.js";
import { publishBlocks } from "./redis/publishBlocks.js";

export { describeRedisSinkEvent } from "./redis/describeRedisSinkEvent.js";
export type {
  RedisPublishOutcome,
  RedisPublishResult,
  RedisSinkEvent,
  RedisStreamSinkOptions,
  ResolvedRedisStreamSinkOptions,
} from "./redis/options.js";
export { resolveRedisStreamSinkOptions } from "./redis/options.js";

/**
 * An rxjs operator that writes every block to a Redis Stream and emits what became of each, in
 * order: `published`, `already_published` when Redis refused the `XADD` and the stream holds
 * `<height>-0` (another publisher was first: two publishers on the same chain give
 * active-active failover with no lock), or `refused` when it refused it and the stream went
 * past that height without it (with a `stream_ahead` event). The stream keeps at least `retain`
 * entries (`MAXLEN ~`).
 *
 * Blocks wait in order while Redis is unreachable (at most `maxPending` blocks and
 * `maxPendingTransactions` transactions, the oldest dropped beyond, with a `dropped` event) and are written, up to `batchSize` per round trip, when it is
 * back; the connection is retried forever with capped exponential backoff (`retrying`,
 * `unreachable`, `recovered`). When Redis comes back without entries it had acknowledged
 * (restarted from an older snapshot, or without persistence), a `stream_lost` event says which
 * heights, and the newest ones the sink kept (`keepBlocks`, 10,000, at most `keepBytes`) are written again before
 * any newer block, so the stream has no hole. When the input completes, the operator completes once every
 * waiting block is written; an input error is passed on after that. Unsubscribing closes the
 * connection at once. A value that is not a valid block is skipped with a `rejected` event.
 *
 * The `ioredis` package (an optional peer dependency) starts loading when `redisStreamSink()` is
 * called; a missing package fails the subscription with a message saying how to install it.
 *
 * @throws {InvalidConfigError} at call time when the URL or an option is invalid.
 * @example
 * import { aptosRest } from "gasdigest/node";
 * import { redisStreamSink } from "gasdigest/redis";
 * aptosRest("https://fullnode.example/v1")
 *   .pipe(redisStreamSink("redis://127.0.0.1:6379", { retain: 20_000 }))
 *   .subscribe((r) => console.log(r.height, r.outcome));
 */
export function redisStreamSink(
  url: string,
  options: RedisStreamSinkOptions = {},
): OperatorFunction<BlockSample, RedisPublishResult> {
  const resolved = resolveRedisStreamSinkOptions(url, options);
  const { onEvent } = resolved;
  loadIoredis().catch(() => undefined);
  return (source$) =>
    new Observable<RedisPublishResult>((subscriber) => {
      const abort = new AbortController();
      const queue = createPendingQueue(resolved.maxPending, resolved.maxPendingTransactions);
      let inputError: { error: unknown } | undefined;
      const input = source$.subscribe({
        next(value) {
          const parsed = safeParseBlockSample(value);
          if (!parsed.ok) {
            onEvent({ type: "rejected", issues: parsed.issues });
            return;
          }
          // When the block got here, written into its entry: replicas count staleness from it
          // (a block that came from another stream keeps its first arrival).
          noteArrival(parsed.block, Date.now());
          const dropped = queue.push(parsed.block);
          if (dropped) onEvent({ type: "dropped", ...dropped });
        },
        error(error) {
          inputError = { error };
          queue.end();
        },
        complete() {
          queue.end();
        },
      });
      publishBlocks(resolved, queue, (r) => subscriber.next(r), abort.signal).then(
        () => {
          if (abort.signal.aborted) return;
          if (inputError) subscriber.error(inputError.error);
          else subscriber.complete();
        },
        (error) => {
          if (!abort.signal.aborted) subscriber.error(error);
        },
      );
      return () => {
        abort.abort();
        input.unsubscribe();
      };
    });
}
