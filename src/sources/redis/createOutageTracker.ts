import { backoffDelay } from "../aptosRest/backoff.js";
import type { ResolvedRedisConnectionOptions } from "./connectionOptions.js";
import type { RedisFeedError } from "./errors.js";

/** Connection events shared by the Redis source and sink. */
export type RedisConnectionEvent =
  /** A connection is up and the stream key holds a stream (or nothing yet). */
  | { type: "connected"; url: string; stream: string }
  /** A call failed; a new connection is tried after `delayMs`. */
  | { type: "retrying"; url: string; attempt: number; delayMs: number; error: RedisFeedError }
  /** `failures` attempts in a row failed (reported once per outage). */
  | { type: "unreachable"; url: string; failures: number; error: RedisFeedError }
  /** First success after `unreachable`; `downMs` since the first failure of the outage. */
  | { type: "recovered"; url: string; failures: number; downMs: number };

/** Settings of {@link createOutageTracker}: the resolved connection settings it reads. */
export type OutageTrackerOptions = Pick<
  ResolvedRedisConnectionOptions,
  "unreachableAfter" | "initialBackoffMs" | "maxBackoffMs" | "random" | "now"
> & {
  readonly url: string;
  readonly onEvent: (event: RedisConnectionEvent) => void;
};

/** Counts failures in a row and turns them into backoff delays and events. */
export interface OutageTracker {
  /** Record a failure; reports `retrying` (and `unreachable` once) and returns the delay. */
  failed(error: RedisFeedError): number;
  /** Record a success: `recovered` when `unreachable` was reported. */
  succeeded(): void;
  /** Failures in a row so far (0 when the last attempt succeeded). */
  readonly failures: number;
}

/**
 * Failure bookkeeping of a Redis connection: capped exponential backoff with equal jitter, one
 * `unreachable` per outage after `unreachableAfter` failures, `recovered` with the outage length.
 *
 * @example
 * const outage = createOutageTracker({ url, unreachableAfter: 3, initialBackoffMs: 100, maxBackoffMs: 5000, random: Math.random, now: Date.now, onEvent });
 * await sleep(outage.failed(error));
 */
export function createOutageTracker(options: OutageTrackerOptions): OutageTracker {
  let failures = 0;
  let downSince = 0;
  let reported = false;
  return {
    failed(error) {
      if (failures === 0) downSince = options.now();
      failures++;
      const delayMs = backoffDelay(failures, options);
      options.onEvent({ type: "retrying", url: options.url, attempt: failures, delayMs, error });
      if (!reported && failures >= options.unreachableAfter) {
        reported = true;
        options.onEvent({ type: "unreachable", url: options.url, failures, error });
      }
      return delayMs;
    },
    succeeded() {
      if (reported)
        options.onEvent({
          type: "recovered",
          url: options.url,
          failures,
          downMs: Math.max(0, options.now() - downSince),
        });
      failures = 0;
      reported = false;
    },
    get failures() {
      return failures;
    },
  };
}
