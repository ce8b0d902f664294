import type { z } from "zod";
import type { ValidationIssue } from "../../core/errors.js";
import { fnOption, u64Option } from "../../core/optionSchemas.js";
import { msRange, wholeRange } from "../../core/rangeOptions.js";
import {
  type RedisConnectionOptions,
  type ResolvedRedisOptions,
  redisConnectionShape,
  resolveRedisOptions,
} from "./connectionOptions.js";
import type { RedisConnectionEvent } from "./createOutageTracker.js";

export type {
  RedisConnectionOptions,
  ResolvedRedisConnectionOptions,
} from "./connectionOptions.js";

/** Something the Redis source did that an operator wants in the log. */
export type RedisStreamEvent =
  | RedisConnectionEvent
  /** The warm start fed `blocks` blocks (heights `from`..`to`) read newest first from the stream. */
  /**
   * The blocks fed at start, `from`..`to`; `blocks` below `wanted` (`warmStartBlocks`): the
   * stream held no more (a young stream, or one Redis lost), so the windows start short and the
   * estimate may differ from older replicas' until they fill.
   */
  | {
      type: "warm_start";
      stream: string;
      blocks: number;
      wanted: number;
      /**
       * Present when `warmStartTransactions` cut the warm start short: the transactions the
       * blocks fed hold, the next older block would have taken them past that budget.
       */
      transactions?: number;
      /** First and last height fed; absent when no entry read was a valid block (`blocks` 0). */
      from?: bigint;
      to?: bigint;
    }
  /** At start the stream key was absent or empty: the source waits for the first entry. */
  | { type: "stream_empty"; url: string; stream: string }
  /**
   * The stream's newest entry (`to`) is below the last entry read (`from`): the key was deleted
   * and written again from lower heights (a chain reset, see docs/operations.md). The source
   * warm-starts from the new entries; the engine follows them after `resyncAfterBlocks`.
   */
  | { type: "stream_rewound"; stream: string; from: string; to: string }
  /** After a reconnection, reading goes on after the last entry seen (height `after`). */
  | { type: "resumed"; stream: string; afterId: string }
  /**
   * No valid block for heights `from`..`to` between the last block read and the next one:
   * trimmed by the publisher's `MAXLEN` before this source read them (it fell behind by more
   * than the stream's retention), never written, or written as entries that were rejected.
   */
  | { type: "gap"; stream: string; from: bigint; to: bigint }
  /** An entry that is not a valid block was skipped; `issues` name the field (`id`, `block.<path>`). */
  | { type: "rejected"; id: string; issues: readonly ValidationIssue[] };

const ignore = () => {};

/**
 * The options of `redisStream()`, declared once: {@link RedisStreamOptions} (what you pass) and
 * {@link ResolvedRedisStreamOptions} (what the source runs with) are derived from it.
 */
const shape = {
  ...redisConnectionShape,
  /**
   * Entries read at start, newest first, and fed oldest first, so the estimate is right at once:
   * the largest window of the strategy, plus one with `skipLatestBlock`. @default 121
   */
  warmStartBlocks: wholeRange("blocks", 0).default(121),
  /**
   * Most transactions the warm start's blocks may hold together (they are all held, parsed, at
   * about 70 bytes a transaction, before the first is fed): the newest block always, then older
   * ones while they fit. 10,001 blocks of 250 transactions are 2.5 million. @default 5000000
   */
  warmStartTransactions: wholeRange("transactions", 1).default(5_000_000),
  /** Read every entry from this height on instead of the warm start (e.g. to resume a recording). @default undefined */
  startHeight: u64Option.optional(),
  /** How long one `XREAD BLOCK` waits for new entries, in ms. @default 5000 */
  blockMs: msRange(1, 600_000).default(5_000),
  /** Most entries per `XREAD` or `XREVRANGE` call. @default 500 */
  batchSize: wholeRange("entries", 1, 100_000).default(500),
  /** Receives {@link RedisStreamEvent}s (log them); exceptions it throws are ignored. @default ignore */
  onEvent: fnOption<(event: RedisStreamEvent) => void>("receiving events", ignore),
};

/**
 * Options of `redisStream()`. Every field has a default. (The connection settings are declared
 * apart, so that each field keeps its doc comment in editors.)
 */
export type RedisStreamOptions = RedisConnectionOptions &
  z.input<z.ZodObject<Omit<typeof shape, keyof RedisConnectionOptions>>>;

/** {@link RedisStreamOptions} validated, defaults filled in, plus the parsed URL. */
export type ResolvedRedisStreamOptions = ResolvedRedisOptions<typeof shape>;

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
  return resolveRedisOptions(url, shape, options);
}
