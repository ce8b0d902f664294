import { z } from "zod";
import type { U64Input } from "../../core/blockSample.js";
import { validateShape } from "../../core/config.js";
import { InvalidConfigError, type ValidationIssue } from "../../core/errors.js";
import { u64Schema } from "../../core/u64Schema.js";
import type { RedisConnectionEvent } from "./createOutageTracker.js";
import { parseRedisUrl, type RedisTarget } from "./parseRedisUrl.js";
import { DEFAULT_STREAM } from "./streamEntry.js";

/** Something the Redis source did that an operator wants in the log. */
export type RedisStreamEvent =
  | RedisConnectionEvent
  /** The warm start fed `blocks` blocks (heights `from`..`to`) read newest first from the stream. */
  | { type: "warm_start"; stream: string; blocks: number; from: bigint; to: bigint }
  /** At start the stream key was absent or empty: the source waits for the first entry. */
  | { type: "stream_empty"; url: string; stream: string }
  /** After a reconnection, reading goes on after the last entry seen (height `after`). */
  | { type: "resumed"; stream: string; afterId: string }
  /** An entry that is not a valid block was skipped; `issues` name the field (`id`, `block.<path>`). */
  | { type: "rejected"; id: string; issues: readonly ValidationIssue[] };

/** Connection settings shared by the Redis source and sink. Every field has a default. */
export interface RedisConnectionOptions {
  /** The stream key. @default "gasdigest:blocks" */
  stream?: string;
  /** Longest wait for a connection and for each answer, in ms. @default 5000 */
  timeoutMs?: number;
  /** Delay before the first reconnection, in ms (doubles each time, with jitter). @default 100 */
  initialBackoffMs?: number;
  /** Longest delay between two reconnections, in ms. @default 5000 */
  maxBackoffMs?: number;
  /** Failures in a row after which `unreachable` is reported. @default 3 */
  unreachableAfter?: number;
  /** Random numbers in [0, 1) for the backoff jitter (tests inject one). @default Math.random */
  random?: () => number;
  /** Wall clock in ms, for outage durations. @default Date.now */
  now?: () => number;
}

/** Options of `redisStream()`. Every field has a default. */
export interface RedisStreamOptions extends RedisConnectionOptions {
  /**
   * Entries read at start, newest first, and fed oldest first, so the estimate is right at once:
   * the largest window of the strategy, plus one with `skipLatestBlock`. @default 121
   */
  warmStartBlocks?: number;
  /** Read every entry from this height on instead of the warm start (e.g. to resume a recording). @default undefined */
  startHeight?: U64Input;
  /** How long one `XREAD BLOCK` waits for new entries, in ms. @default 5000 */
  blockMs?: number;
  /** Most entries per `XREAD` or `XREVRANGE` call. @default 500 */
  batchSize?: number;
  /** Receives {@link RedisStreamEvent}s (log them); exceptions it throws are ignored. @default ignore */
  onEvent?: (event: RedisStreamEvent) => void;
}

/** Connection settings validated, defaults filled in. */
export interface ResolvedRedisConnectionOptions {
  readonly target: RedisTarget;
  readonly stream: string;
  readonly timeoutMs: number;
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
  readonly unreachableAfter: number;
  readonly random: () => number;
  readonly now: () => number;
}

/** {@link RedisStreamOptions} validated, defaults filled in. */
export interface ResolvedRedisStreamOptions extends ResolvedRedisConnectionOptions {
  readonly warmStartBlocks: number;
  readonly startHeight: bigint | undefined;
  readonly blockMs: number;
  readonly batchSize: number;
  readonly onEvent: (event: RedisStreamEvent) => void;
}

const ms = (max: number, min = 0) =>
  z
    .number({ error: "must be a number of milliseconds" })
    .min(min, min === 0 ? "must not be negative" : `must be at least ${min}`)
    .max(max, `must be at most ${max}`);
const whole = (what: string) => z.int({ error: `must be a whole number of ${what}` });
const fn = <T>(what: string) =>
  z.custom<T>((v) => typeof v === "function", `must be a function ${what}`).optional();

/** zod shape of {@link RedisConnectionOptions}, shared with the sink's options. */
export const redisConnectionShape = {
  stream: z
    .string({ error: "must be a string" })
    .min(1, "must not be empty")
    .default(DEFAULT_STREAM),
  timeoutMs: ms(600_000, 1).default(5_000),
  initialBackoffMs: ms(600_000, 1).default(100),
  maxBackoffMs: ms(3_600_000, 1).default(5_000),
  unreachableAfter: whole("attempts").min(1, "must be at least 1").default(3),
  random: fn<() => number>("returning a number in [0, 1)"),
  now: fn<() => number>("returning ms"),
};

const shape = {
  ...redisConnectionShape,
  warmStartBlocks: whole("blocks").min(0, "must not be negative").default(121),
  startHeight: u64Schema.optional(),
  blockMs: ms(600_000, 1).default(5_000),
  batchSize: whole("entries").min(1, "must be at least 1").max(100_000).default(500),
  onEvent: fn<(event: RedisStreamEvent) => void>("receiving events"),
};

/** The backoff rule shared by every Redis option set: the first delay may not exceed the cap. */
export function crossCheckBackoff(f: { initialBackoffMs?: unknown; maxBackoffMs?: unknown }) {
  const initial = f.initialBackoffMs as number | undefined;
  const max = f.maxBackoffMs as number | undefined;
  const issues: ValidationIssue[] = [];
  if (initial !== undefined && max !== undefined && initial > max)
    issues.push({
      path: "initialBackoffMs",
      message: `must not be above maxBackoffMs (${max}), got ${initial}`,
    });
  return issues;
}

/** Wrap an event callback so that a throwing logger never stops a source or sink. */
export function safeCallback<E>(callback: ((event: E) => void) | undefined): (event: E) => void {
  return (event) => {
    try {
      callback?.(event);
    } catch {
      // A failing logger must not stop the feed.
    }
  };
}

/**
 * Validate the URL and options of `redisStream()` and fill in the defaults.
 *
 * @throws {InvalidConfigError} listing every problem (path + message).
 * @example
 * resolveRedisStreamOptions("redis://127.0.0.1:6379", { warmStartBlocks: 500 }).stream; // "gasdigest:blocks"
 */
export function resolveRedisStreamOptions(
  url: string,
  options: RedisStreamOptions = {},
): ResolvedRedisStreamOptions {
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
    warmStartBlocks: v.warmStartBlocks,
    startHeight: v.startHeight,
    blockMs: v.blockMs,
    batchSize: v.batchSize,
    onEvent: safeCallback(v.onEvent),
  });
}
