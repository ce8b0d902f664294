import type { z } from "zod";
import type { ValidationIssue } from "../../core/errors.js";
import { fnOption } from "../../core/optionSchemas.js";
import { wholeRange } from "../../core/rangeOptions.js";
import {
  type RedisConnectionOptions,
  type ResolvedRedisOptions,
  redisConnectionShape,
  resolveRedisOptions,
} from "../../sources/redis/connectionOptions.js";
import type { RedisConnectionEvent } from "../../sources/redis/createOutageTracker.js";

/** Something the Redis sink did that an operator wants in the log. */
export type RedisSinkEvent =
  | RedisConnectionEvent
  /** More than `maxPending` blocks waited (Redis away, or slower than the source): the oldest `count` (heights `from`..`to`) were dropped. */
  | { type: "dropped"; count: number; from: bigint; to: bigint }
  /**
   * Redis refused the `XADD` of `height`, and the stream does not hold that height: its newest
   * entry (`top`) is above it (this publisher is behind the stream: an old history replayed
   * into a live stream, a node lagging by more than the stream keeps; or something else wrote
   * an entry ahead; or the chain was reset). The block is reported `refused`. Reported once
   * until a block is published again; docs/operations.md says what to do (usually nothing).
   */
  | { type: "stream_ahead"; stream: string; height: bigint; top: string }
  /**
   * The stream already held `height` (the block counts `already_published`), but written with a
   * different block: the publishers follow nodes that disagree (another chain, a fork, a
   * misconfigured failover). Reported once until a height is found written alike again.
   */
  | {
      type: "stream_differs";
      stream: string;
      height: bigint;
      id: string;
      /** What the stream holds there is not a gasdigest block at all (something else wrote it). */
      notABlock?: boolean;
    }
  /**
   * After a reconnection, the stream's top (`top`, `undefined` when the stream is empty) is
   * below `to`, the newest height Redis had acknowledged to this sink: Redis lost acknowledged
   * entries, heights `from`..`to` (it restarted from an older snapshot, or without
   * persistence; for an empty stream, `from` is the first height this sink wrote, at most
   * `retain` below `to`). The entries the sink kept (`keepBlocks`) from `rewriteFrom` to `to`
   * are written again before any newer block (`rewriteFrom` is `undefined` when it kept none
   * of them); the heights below stay missing. Reported once per loss.
   */
  | {
      type: "stream_lost";
      stream: string;
      top: string | undefined;
      from: bigint;
      to: bigint;
      rewriteFrom: bigint | undefined;
    }
  /**
   * After `stream_lost`, Redis refused to take the kept heights `from`..`to` back: the stream's
   * last id is at or above `to`, which no restart leaves, so its entries were removed by a command
   * that keeps the last id (`XTRIM ... MAXLEN 0`, `XDEL` of the newest) or the last id was set
   * ahead. They stay missing; newer blocks are written on after them. Reported once per loss.
   */
  | { type: "repair_refused"; stream: string; from: bigint; to: bigint }
  /** A value that is not a valid block sample was given to the sink and skipped. */
  | { type: "rejected"; issues: readonly ValidationIssue[] };

/** What the sink did with one block. */
export type RedisPublishOutcome =
  /** `XADD` added the entry `<height>-0`. */
  | "published"
  /**
   * Redis refused the `XADD` and the stream holds `<height>-0`: another publisher (or an
   * earlier try of this one whose answer was lost) wrote that height first.
   */
  | "already_published"
  /**
   * Redis refused the `XADD` and the stream does not hold `<height>-0`: its top is above that
   * height (a `stream_ahead` event says which), so the block can never be written there.
   */
  | "refused"
  /** Height 0 has no valid entry id (Redis refuses `0-0`): it is never written. */
  | "skipped";

/** One result of the sink, in the order of the blocks. */
export interface RedisPublishResult {
  /** The block's height. */
  readonly height: bigint;
  /** The stream entry's id, `<height>-0`. */
  readonly id: string;
  /** What became of the block. */
  readonly outcome: RedisPublishOutcome;
}

const ignore = () => {};

/**
 * The options of `redisStreamSink()`, declared once: {@link RedisStreamSinkOptions} (what you
 * pass) and {@link ResolvedRedisStreamSinkOptions} (what the sink runs with) are derived from it.
 */
const shape = {
  ...redisConnectionShape,
  /** The stream keeps at least this many entries, trimmed approximately (`MAXLEN ~`). @default 10000 */
  retain: wholeRange("entries", 1).default(10_000),
  /** Blocks held while Redis is unreachable; beyond it the oldest are dropped (`dropped`). @default 100000 */
  maxPending: wholeRange("blocks", 1).default(100_000),
  /**
   * Transactions held by the blocks waiting while Redis is unreachable (parsed, about 70 bytes
   * each); beyond it the oldest are dropped (`dropped`), the newest kept whatever it holds.
   * 100,000 blocks of 250 transactions are 25 million. @default 10000000
   */
  maxPendingTransactions: wholeRange("transactions", 1).default(10_000_000),
  /**
   * The newest entries written kept in memory (the NDJSON lines already sent, about 3 KiB per
   * block of 250 transactions), at most `retain`: when Redis comes back without them
   * (`stream_lost`), they are written again before any newer block. `0` keeps none. @default 10000
   */
  keepBlocks: wholeRange("blocks", 0).default(10_000),
  /**
   * The most bytes of entries `keepBlocks` keeps: past it the oldest are forgotten (the newest
   * is kept whatever its size, so `0` keeps one; `keepBlocks: 0` keeps none). Blocks of 250 transactions are about 3 KiB, so 10,000 of them
   * fit many times over; blocks of 100,000 would hold 14 GB. @default 268435456 (256 MiB)
   */
  keepBytes: wholeRange("bytes", 0).default(256 * 1024 * 1024),
  /** Most `XADD`s sent in one round trip (a pipeline) when blocks are waiting. @default 100 */
  batchSize: wholeRange("entries", 1, 10_000).default(100),
  /** Receives {@link RedisSinkEvent}s (log them); exceptions it throws are ignored. @default ignore */
  onEvent: fnOption<(event: RedisSinkEvent) => void>("receiving events", ignore),
};

/**
 * Options of `redisStreamSink()`. Every field has a default. (The connection settings are
 * declared apart, so that each field keeps its doc comment in editors.)
 */
export type RedisStreamSinkOptions = RedisConnectionOptions &
  z.input<z.ZodObject<Omit<typeof shape, keyof RedisConnectionOptions>>>;

/** {@link RedisStreamSinkOptions} validated, defaults filled in, plus the parsed URL. */
export type ResolvedRedisStreamSinkOptions = ResolvedRedisOptions<typeof shape>;

/**
 * Validate the URL and options of `redisStreamSink()` and fill in the defaults.
 *
 * @throws {InvalidConfigError} listing every problem (path + message).
 * @example
 * resolveRedisStreamSinkOptions("redis://127.0.0.1:6379", { retain: 50_000 }).retain; // 50000
 */
export function resolveRedisStreamSinkOptions(
  url: string,
  options: RedisStreamSinkOptions = {},
): ResolvedRedisStreamSinkOptions {
  return resolveRedisOptions(url, shape, options);
}
