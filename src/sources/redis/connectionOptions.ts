import * as z from "zod";
import { backoffIssues } from "../../core/backoffOptions.js";
import { guarded } from "../../core/guarded.js";
import { fnOption } from "../../core/optionSchemas.js";
import { msRange, wholeRange } from "../../core/rangeOptions.js";
import { validateWithArgument } from "../../core/validate.js";
import { parseRedisUrl, type RedisTarget } from "./parseRedisUrl.js";
import { DEFAULT_STREAM } from "./streamEntry.js";

/** How long a Redis connection, and each answer on it, is waited for by default, in ms. */
export const DEFAULT_REDIS_TIMEOUT_MS = 5_000;

/**
 * The connection settings shared by the Redis source and sink, declared once: both option sets
 * spread it into their own shape, and {@link RedisConnectionOptions} and
 * {@link ResolvedRedisConnectionOptions} are derived from it.
 */
export const redisConnectionShape = {
  /** The stream key. @default "gasdigest:blocks" */
  stream: z
    .string({ error: "must be a string" })
    .min(1, "must not be empty")
    .default(DEFAULT_STREAM),
  /** Longest wait for a connection and for each answer, in ms. @default 5000 */
  timeoutMs: msRange(1, 600_000).default(DEFAULT_REDIS_TIMEOUT_MS),
  /**
   * Delay before the first reconnection, in ms (doubles each time, with jitter); at most
   * `maxBackoffMs`. @default 100, or `maxBackoffMs` when that is smaller
   */
  initialBackoffMs: msRange(1, 600_000).default(100),
  /** Longest delay between two reconnections, in ms. @default 5000 */
  maxBackoffMs: msRange(1, 3_600_000).default(5_000),
  /** Failures in a row after which `unreachable` is reported. @default 3 */
  unreachableAfter: wholeRange("attempts", 1).default(3),
  /** Random numbers in [0, 1) for the backoff jitter (tests inject one). @default Math.random */
  random: fnOption<() => number>("returning a number in [0, 1)", Math.random),
  /** Wall clock in ms, for outage durations. @default Date.now */
  now: fnOption<() => number>("returning ms", Date.now),
};

/** Connection settings shared by the Redis source and sink. Every field has a default. */
export type RedisConnectionOptions = z.input<z.ZodObject<typeof redisConnectionShape>>;

/** Connection settings validated, defaults filled in, plus the parsed URL. */
export type ResolvedRedisConnectionOptions = ResolvedRedisOptions<typeof redisConnectionShape>;

/** A Redis option set validated (its `shape`'s output), plus the parsed URL. */
export type ResolvedRedisOptions<S extends z.ZodRawShape> = Readonly<
  z.output<z.ZodObject<S>> & { target: RedisTarget }
>;

/** The shape of a Redis option set: the connection settings, its own, and an event callback. */
type RedisShape = typeof redisConnectionShape & { onEvent: z.ZodType<(event: never) => void> };

/**
 * Validate the URL and options of a Redis source or sink against its `shape` (which spreads
 * {@link redisConnectionShape}), fill in the defaults and wrap `onEvent` so that a throwing
 * logger never stops the feed.
 *
 * @throws {InvalidConfigError} listing every problem (path + message).
 * @example
 * resolveRedisOptions("redis://127.0.0.1:6379", { ...redisConnectionShape, onEvent }, {}).stream; // "gasdigest:blocks"
 */
export function resolveRedisOptions<S extends RedisShape>(
  url: string,
  shape: S,
  options: unknown,
): ResolvedRedisOptions<S> {
  const { argument: target, value } = validateWithArgument(
    () => parseRedisUrl(url),
    shape,
    options,
    backoffIssues,
  );
  const { onEvent } = value as { onEvent: (event: unknown) => void };
  const { initialBackoffMs, maxBackoffMs } = value as {
    initialBackoffMs: number;
    maxBackoffMs: number;
  };
  return Object.freeze({
    ...value,
    // A default first delay follows a smaller cap down (see backoffIssues).
    initialBackoffMs: Math.min(initialBackoffMs, maxBackoffMs),
    target,
    // A failing logger must not stop the feed.
    onEvent: guarded<unknown>(onEvent),
  }) as ResolvedRedisOptions<S>;
}
