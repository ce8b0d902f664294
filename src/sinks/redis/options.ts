import { z } from "zod";
import { validateShape } from "../../core/config.js";
import { InvalidConfigError, type ValidationIssue } from "../../core/errors.js";
import type { RedisConnectionEvent } from "../../sources/redis/createOutageTracker.js";
import {
  crossCheckBackoff,
  type RedisConnectionOptions,
  type ResolvedRedisConnectionOptions,
  redisConnectionShape,
  safeCallback,
} from "../../sources/redis/options.js";
import { parseRedisUrl } from "../../sources/redis/parseRedisUrl.js";

/** Something the Redis sink did that an operator wants in the log. */
export type RedisSinkEvent =
  | RedisConnectionEvent
  /** Redis stayed away while `maxPending` blocks waited: the oldest `count` (heights `from`..`to`) were dropped. */
  | { type: "dropped"; count: number; from: bigint; to: bigint }
  /** A value that is not a valid block sample was given to the sink and skipped. */
  | { type: "rejected"; issues: readonly ValidationIssue[] };

/** What the sink did with one block. */
export type RedisPublishOutcome =
  /** `XADD` added the entry `<height>-0`. */
  | "published"
  /**
   * Redis refused the `XADD` because the stream's top id is at or above `<height>-0`: another
   * publisher (or an earlier try of this one whose answer was lost) wrote that height first.
   */
  | "already_published"
  /** Height 0 has no valid entry id (Redis refuses `0-0`): it is never written. */
  | "skipped";

/** One result of the sink, in the order of the blocks. */
export interface RedisPublishResult {
  readonly height: bigint;
  readonly id: string;
  readonly outcome: RedisPublishOutcome;
}

/** Options of `redisStreamSink()`. Every field has a default. */
export interface RedisStreamSinkOptions extends RedisConnectionOptions {
  /** The stream keeps at least this many entries, trimmed approximately (`MAXLEN ~`). @default 10000 */
  retain?: number;
  /** Blocks held while Redis is unreachable; beyond it the oldest are dropped (`dropped`). @default 100000 */
  maxPending?: number;
  /** Most `XADD`s sent in one round trip (a pipeline) when blocks are waiting. @default 100 */
  batchSize?: number;
  /** Receives {@link RedisSinkEvent}s (log them); exceptions it throws are ignored. @default ignore */
  onEvent?: (event: RedisSinkEvent) => void;
}

/** {@link RedisStreamSinkOptions} validated, defaults filled in. */
export interface ResolvedRedisStreamSinkOptions extends ResolvedRedisConnectionOptions {
  readonly retain: number;
  readonly maxPending: number;
  readonly batchSize: number;
  readonly onEvent: (event: RedisSinkEvent) => void;
}

const whole = (what: string) => z.int({ error: `must be a whole number of ${what}` });

const shape = {
  ...redisConnectionShape,
  retain: whole("entries").min(1, "must be at least 1").default(10_000),
  maxPending: whole("blocks").min(1, "must be at least 1").default(100_000),
  batchSize: whole("entries").min(1, "must be at least 1").max(10_000).default(100),
  onEvent: z
    .custom<(event: RedisSinkEvent) => void>(
      (v) => typeof v === "function",
      "must be a function receiving events",
    )
    .optional(),
};

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
  const target = parseRedisUrl(url);
  const r = validateShape(shape, options, crossCheckBackoff);
  if (!r.ok) throw new InvalidConfigError(r.issues);
  const v = r.value;
  return Object.freeze({
    target,
    stream: v.stream,
    timeoutMs: v.timeoutMs,
    initialBackoffMs: v.initialBackoffMs,
    maxBackoffMs: v.maxBackoffMs,
    unreachableAfter: v.unreachableAfter,
    random: v.random ?? Math.random,
    now: v.now ?? Date.now,
    retain: v.retain,
    maxPending: v.maxPending,
    batchSize: v.batchSize,
    onEvent: safeCallback(v.onEvent),
  });
}
