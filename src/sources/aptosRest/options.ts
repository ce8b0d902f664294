import * as z from "zod";
import { backoffIssues, optionGiven } from "../../core/backoffOptions.js";
import { MAX_BLOCK_TRANSACTIONS } from "../../core/blockSample.js";
import type { ValidationIssue } from "../../core/errors.js";
import { guarded } from "../../core/guarded.js";
import { fnOption, u64Option } from "../../core/optionSchemas.js";
import { msRange, wholeRange } from "../../core/rangeOptions.js";
import { validateWithArgument } from "../../core/validate.js";
import { refuseBadPort } from "./badPorts.js";
import type { InvalidResponseError, SourceRequestError } from "./errors.js";
import { parseNodeUrl } from "./nodeUrl.js";
import { headersOption } from "./requestHeaders.js";
import { DEFAULT_MAX_BLOCK_TRANSACTIONS } from "./transactions.js";

/** Something the source did that an operator wants in the log. */
export type AptosRestEvent =
  /**
   * Ledger info read; blocks will come from height `from`. Told again, with a lower `from`, when
   * the first height is refused before any block was read and the node's tip is now below it
   * (the first tip was bogus): the backfill is planned anew from the new tip.
   */
  | {
      type: "started";
      url: string;
      chainId: number;
      tip: bigint;
      oldest: bigint;
      from: bigint;
    }
  /** A request failed and will be repeated after `delayMs`. */
  | {
      type: "retrying";
      url: string;
      attempt: number;
      delayMs: number;
      error: SourceRequestError | InvalidResponseError;
    }
  /** `failures` requests in a row got no usable answer (reported once per outage). */
  | {
      type: "unreachable";
      url: string;
      failures: number;
      error: SourceRequestError | InvalidResponseError;
    }
  /**
   * The node answered `status` (429, or 503) with a `Retry-After`: the request waits `delayMs`
   * before it is sent again. Told at the first such answer, then at most once per 30 s.
   */
  | { type: "rate_limited"; url: string; status: number; delayMs: number }
  /** First usable answer after `unreachable`; `downMs` since the first failure of the outage. */
  | { type: "recovered"; url: string; failures: number; downMs: number }
  /** Heights `from`..`to - 1` were pruned by the node (410) and are skipped. */
  | { type: "pruned_skip"; from: bigint; to: bigint }
  /**
   * The node's tip went below `height`, the last block emitted (a node restored from an older
   * snapshot, a load balancer now on a lagging node, a chain reset without a new chain id): the
   * source waits for the node to pass `height` again and then goes on (`caught_up`). Reported
   * once per such stretch, when it has lasted `unreachableAfter` looks at the tip in a row (a
   * load balancer over nodes a block apart makes short ones all the time).
   */
  | { type: "tip_behind"; height: bigint; tip: bigint }
  /**
   * The next block to emit, `height`, has been answered `status` (404: not there; 410: pruned,
   * with no older height to skip to) for `forMs` while the ledger info says the node is at
   * `tip`: the source keeps asking, and nothing moves on until it gets the block. Reported when
   * it has lasted 30 s, then at most once per 30 s while it lasts.
   */
  | { type: "block_unavailable"; height: bigint; status: 404 | 410; forMs: number; tip: bigint }
  /** The source reached the tip after the backfill, an outage or a skip. */
  | { type: "caught_up"; height: bigint; blocks: number }
  /** The minimum gas unit price read from the gas schedule (at the first block and each epoch change). */
  | {
      type: "min_gas_unit_price";
      epoch: bigint;
      height: bigint;
      value: bigint | undefined;
      previous: bigint | undefined;
    }
  /**
   * The gas schedule read of epoch `epoch`, for its first block `height`, was given up after
   * `failures` failed attempts: it had failed `unreachableAfter` times and `timeoutMs` went by,
   * or `2 × timeoutMs` went by. Its blocks are handed on with the previous minimum, `using`
   * (`undefined`: the configured one); one attempt at a time asks again, at most once per
   * `maxBackoffMs`, outside the outage count, and a `min_gas_unit_price` event follows when one
   * answers.
   */
  | {
      type: "min_gas_unit_price_pending";
      epoch: bigint;
      height: bigint;
      failures: number;
      using: bigint | undefined;
    };

/**
 * Default of `maxResponseBytes`: 64 MiB. The largest block a node returns is about 40 MB of JSON:
 * at most 10,000 transactions inline (the default page size) at ~4 KB each for the smallest
 * real user transaction rendered with its events and write set; the chain's own limits (6 MB of
 * transactions in and ~5 MiB of output per block, rendered as hex and JSON) come to the same.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** Requests in flight at once by default. */
export const DEFAULT_CONCURRENCY = 4;
/**
 * Largest `maxResponseBytes` accepted: V8's longest string, 0x1fffffe8 (536,870,888) characters,
 * 24 below 512 MiB. A body is read as one string to parse it, and its bytes decode into at most
 * as many characters, so any body under the cap can be read.
 */
export const MAX_RESPONSE_BYTES_LIMIT = 0x1fffffe8;

const ignore = () => {};

/**
 * The options of `aptosRest()`, declared once: {@link AptosRestOptions} (what you pass) and
 * {@link ResolvedAptosRestOptions} (what the source runs with) are derived from it.
 */
const shape = {
  /** Blocks to read back from the tip at start (`gasdigest serve` passes aggressiveBlockHistory + 1). @default 121 */
  backfillBlocks: wholeRange("blocks", 0).default(121),
  /** Start at this height instead of backfilling (e.g. to resume a recording). @default undefined */
  startHeight: u64Option.optional(),
  /** Wait between two looks at the tip once caught up, in ms. @default 500 */
  pollIntervalMs: msRange(0, 3_600_000).default(500),
  /**
   * Requests in flight at once (a request waiting out its backoff does not count; a hedge rides
   * on its request's place). Blocks are still emitted in height order. @default 4
   */
  concurrency: wholeRange("requests", 1, 64).default(DEFAULT_CONCURRENCY),
  /**
   * Most heights fetched ahead of the next block to emit: finished blocks wait in order while a
   * slower one (stalled, retried) is still coming, and the other requests keep going. @default 128
   */
  lookaheadBlocks: wholeRange("blocks", 1, 4096).default(128),
  /**
   * Most transactions one block may span (`last_version - first_version + 1`); a block answer
   * spanning more is invalid, like any answer that does not fit, and retried. Aptos blocks hold
   * at most about 10,000. Also sets how much the lookahead holds: fetched blocks wait for their
   * turn until they hold `concurrency + 4` times this many transactions in all, then only the
   * next block to emit is fetched. At most `MAX_BLOCK_TRANSACTIONS` (10^6), what one block sample
   * holds: a block of more user transactions could not be handed on, and ended the source.
   * @default 100000
   */
  maxBlockTransactions: wholeRange(
    "transactions",
    1,
    MAX_BLOCK_TRANSACTIONS,
    " (the most user transactions a block sample holds)",
  ).default(DEFAULT_MAX_BLOCK_TRANSACTIONS),
  /** Per-request timeout (headers and body), in ms. @default 10000 */
  timeoutMs: msRange(1, 600_000).default(10_000),
  /**
   * A request with no response headers after this long (or 4x the median of recent answers, if
   * longer), or whose body has not come this long after its headers (the same rule, on recent
   * bodies), is hedged: the same request is sent once more and the first answer wins. Set it to
   * `timeoutMs` or more to never hedge. @default 500
   */
  hedgeAfterMs: msRange(1, 600_000).default(500),
  /**
   * Largest response body read, in bytes, counted after decompression (a gzip bomb counts at its
   * inflated size). A longer body is cut off and the request retried like any fault. The default
   * is about 1.5x the largest block a node can return (see docs/sources.md). @default 67108864
   */
  maxResponseBytes: wholeRange(
    "bytes",
    1024,
    MAX_RESPONSE_BYTES_LIMIT,
    " (V8's longest string: an answer is read as one)",
  ).default(DEFAULT_MAX_RESPONSE_BYTES),
  /** Follow HTTP redirects; otherwise a 3xx answer is a fault naming its `Location`. @default false */
  followRedirects: z.boolean({ error: "must be true or false" }).default(false),
  /**
   * Delay before the first retry of a failed request, in ms (doubles each time, with jitter);
   * at most `maxBackoffMs`. @default 200, or `maxBackoffMs` when that is smaller
   */
  initialBackoffMs: msRange(1, 600_000).default(200),
  /** Longest delay between two retries, in ms. @default 10000 */
  maxBackoffMs: msRange(1, 3_600_000).default(10_000),
  /** Longest `Retry-After` wait honoured, in ms (longer requests are cut to this). @default 10000 */
  // Below serve's default --max-staleness-ms (30 s) with room for the retry: blocks are handed
  // on in order, so one block's wait holds every block behind it, and a single 429 asking for
  // an hour answered 503 for 30 s at the 60 s this was.
  maxRetryAfterMs: msRange(0, 86_400_000).default(10_000),
  /** Failed requests in a row after which `unreachable` is reported. @default 3 */
  unreachableAfter: wholeRange("requests", 1).default(3),
  /**
   * Extra request headers, e.g. `{ authorization: "Bearer <api key>" }`: names are RFC 9110
   * tokens (sent lowercase), values hold no line break nor other control character but tab
   * (checked here: fetch would refuse every request). @default {}
   */
  headers: headersOption,
  /** Receives {@link AptosRestEvent}s (log them); exceptions it throws are ignored. @default ignore */
  onEvent: fnOption<(event: AptosRestEvent) => void>("receiving events", ignore),
  /** Random numbers in [0, 1) for the backoff jitter (tests inject one). @default Math.random */
  random: fnOption<() => number>("returning a number in [0, 1)", Math.random),
  /** Wall clock in ms, for `Retry-After` dates and outage durations. @default Date.now */
  now: fnOption<() => number>("returning ms", Date.now),
  /** The fetch implementation. @default globalThis.fetch */
  fetch: fnOption<typeof fetch>("like fetch", (input, init) => fetch(input, init)),
};

/** Options of `aptosRest()`. Every field has a default. */
export type AptosRestOptions = z.input<z.ZodObject<typeof shape>>;

/** {@link AptosRestOptions} validated, defaults filled in, plus the normalised base URL. */
export type ResolvedAptosRestOptions = Readonly<
  z.output<z.ZodObject<typeof shape>> & {
    /** Base URL without a trailing `/` or `/v1`. */
    baseUrl: string;
  }
>;

function crossCheck(
  f: Partial<Record<keyof typeof shape, unknown>>,
  input: unknown,
): ValidationIssue[] {
  const issues = backoffIssues(f, input);
  const concurrency = f.concurrency as number | undefined;
  const lookahead = f.lookaheadBlocks as number | undefined;
  if (
    concurrency !== undefined &&
    lookahead !== undefined &&
    lookahead < concurrency &&
    optionGiven(input, "lookaheadBlocks")
  )
    issues.push({
      path: "lookaheadBlocks",
      message: `must not be below concurrency (${concurrency}), got ${lookahead}`,
    });
  return issues;
}

export { normaliseNodeUrl } from "./nodeUrl.js";

/**
 * Validate the URL and options of `aptosRest()` and fill in the defaults. A user name and
 * password in the URL become an `Authorization: Basic` header (unless `headers` has an
 * `authorization` of its own); `baseUrl` never holds them. A URL on one of the Fetch standard's
 * "bad ports" (6666, ...) is refused unless a `fetch` of the caller's is given: node's would
 * refuse every request.
 *
 * @throws {InvalidConfigError} listing every problem (path + message).
 * @example
 * resolveAptosRestOptions("http://127.0.0.1:8080/v1", { concurrency: 8 }).baseUrl; // "http://127.0.0.1:8080"
 */
export function resolveAptosRestOptions(
  url: string,
  options: AptosRestOptions = {},
): ResolvedAptosRestOptions {
  const { argument, value } = validateWithArgument(
    () => {
      const node = parseNodeUrl(url);
      // Node's fetch never connects to such a port; a fetch of the caller's may.
      if (!optionGiven(options, "fetch"))
        refuseBadPort(node.baseUrl, ", or pass a fetch of your own that can reach it");
      return node;
    },
    shape,
    options,
    crossCheck,
  );
  const { baseUrl, authorization } = argument;
  const onEvent = value.onEvent;
  // The URL's credentials, unless the headers carry an authorization of their own.
  const headers =
    authorization === undefined || Object.hasOwn(value.headers, "authorization")
      ? value.headers
      : Object.freeze({ ...value.headers, authorization });
  const { initialBackoffMs, maxBackoffMs, concurrency, lookaheadBlocks } = value;
  return Object.freeze({
    ...value,
    // Defaults that would break the cross-checks follow the options chosen (checked above).
    initialBackoffMs: Math.min(initialBackoffMs, maxBackoffMs),
    lookaheadBlocks: Math.max(lookaheadBlocks, concurrency),
    startHeight: value.startHeight,
    headers,
    baseUrl,
    // A failing logger must not stop the source.
    onEvent: guarded<AptosRestEvent>(onEvent),
  });
}
