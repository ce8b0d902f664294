import { z } from "zod";
import type { U64Input } from "../../core/blockSample.js";
import { validateShape } from "../../core/config.js";
import { InvalidConfigError, type ValidationIssue } from "../../core/errors.js";
import { u64Schema } from "../../core/u64Schema.js";
import type { InvalidResponseError, SourceRequestError } from "./errors.js";

/** Something the source did that an operator wants in the log. */
export type AptosRestEvent =
  /** Ledger info read; blocks will come from height `from`. */
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
  /** First usable answer after `unreachable`; `downMs` since the first failure of the outage. */
  | { type: "recovered"; url: string; failures: number; downMs: number }
  /** Heights `from`..`to - 1` were pruned by the node (410) and are skipped. */
  | { type: "pruned_skip"; from: bigint; to: bigint }
  /** The source reached the tip after the backfill, an outage or a skip. */
  | { type: "caught_up"; height: bigint; blocks: number }
  /** The minimum gas unit price read from the gas schedule (at the first block and each epoch change). */
  | {
      type: "min_gas_unit_price";
      epoch: bigint;
      height: bigint;
      value: bigint | undefined;
      previous: bigint | undefined;
    };

/** Options of `aptosRest()`. Every field has a default. */
export interface AptosRestOptions {
  /** Blocks to read back from the tip at start (the lead passes aggressiveBlockHistory + 1). @default 121 */
  backfillBlocks?: number;
  /** Start at this height instead of backfilling (e.g. to resume a recording). @default undefined */
  startHeight?: U64Input;
  /** Wait between two looks at the tip once caught up, in ms. @default 500 */
  pollIntervalMs?: number;
  /**
   * Requests in flight at once (a request waiting out its backoff does not count; a hedge rides
   * on its request's place). Blocks are still emitted in height order. @default 4
   */
  concurrency?: number;
  /**
   * Most heights fetched ahead of the next block to emit: finished blocks wait in order while a
   * slower one (stalled, retried) is still coming, and the other requests keep going. @default 128
   */
  lookaheadBlocks?: number;
  /** Per-request timeout (headers and body), in ms. @default 10000 */
  timeoutMs?: number;
  /**
   * A request with no response headers after this long (or 4x the median of recent answers, if
   * longer) is hedged: the same request is sent once more and the first answer wins. Set it to
   * `timeoutMs` or more to never hedge. @default 500
   */
  hedgeAfterMs?: number;
  /**
   * Largest response body read, in bytes, counted after decompression (a gzip bomb counts at its
   * inflated size). A longer body is cut off and the request retried like any fault. The default
   * is about 1.5x the largest block a node can return (see docs/sources.md). @default 67108864
   */
  maxResponseBytes?: number;
  /** Follow HTTP redirects; otherwise a 3xx answer is a fault naming its `Location`. @default false */
  followRedirects?: boolean;
  /** Delay before the first retry of a failed request, in ms (doubles each time, with jitter). @default 200 */
  initialBackoffMs?: number;
  /** Longest delay between two retries, in ms. @default 10000 */
  maxBackoffMs?: number;
  /** Longest `Retry-After` wait honoured, in ms (longer requests are cut to this). @default 60000 */
  maxRetryAfterMs?: number;
  /** Failed requests in a row after which `unreachable` is reported. @default 3 */
  unreachableAfter?: number;
  /** Extra request headers, e.g. `{ authorization: "Bearer <api key>" }`. @default {} */
  headers?: Record<string, string>;
  /** Receives {@link AptosRestEvent}s (log them); exceptions it throws are ignored. @default ignore */
  onEvent?: (event: AptosRestEvent) => void;
  /** Random numbers in [0, 1) for the backoff jitter (tests inject one). @default Math.random */
  random?: () => number;
  /** Wall clock in ms, for `Retry-After` dates and outage durations. @default Date.now */
  now?: () => number;
  /** The fetch implementation. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** {@link AptosRestOptions} validated, defaults filled in, plus the normalised base URL. */
export interface ResolvedAptosRestOptions {
  /** Base URL without a trailing `/` or `/v1`. */
  readonly baseUrl: string;
  readonly backfillBlocks: number;
  readonly startHeight: bigint | undefined;
  readonly pollIntervalMs: number;
  readonly concurrency: number;
  readonly lookaheadBlocks: number;
  readonly timeoutMs: number;
  readonly hedgeAfterMs: number;
  readonly maxResponseBytes: number;
  readonly followRedirects: boolean;
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
  readonly maxRetryAfterMs: number;
  readonly unreachableAfter: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly onEvent: (event: AptosRestEvent) => void;
  readonly random: () => number;
  readonly now: () => number;
  readonly fetch: typeof fetch;
}

/**
 * Default of `maxResponseBytes`: 64 MiB. The largest block a node returns is about 40 MB of JSON:
 * at most 10,000 transactions inline (the default page size) at ~4 KB each for the smallest
 * real user transaction rendered with its events and write set; the chain's own limits (6 MB of
 * transactions in and ~5 MiB of output per block, rendered as hex and JSON) come to the same.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** Largest `maxResponseBytes` accepted: 512 MiB (a body is held as one string to parse it). */
export const MAX_RESPONSE_BYTES_LIMIT = 512 * 1024 * 1024;

const ms = (max: number, min = 0) =>
  z
    .number({ error: "must be a number of milliseconds" })
    .min(min, min === 0 ? "must not be negative" : `must be at least ${min}`)
    .max(max, `must be at most ${max}`);
const whole = (what: string) => z.int({ error: `must be a whole number of ${what}` });
const fn = <T>(what: string) =>
  z.custom<T>((v) => typeof v === "function", `must be a function ${what}`).optional();

const shape = {
  backfillBlocks: whole("blocks").min(0, "must not be negative").default(121),
  startHeight: u64Schema.optional(),
  pollIntervalMs: ms(3_600_000).default(500),
  concurrency: whole("requests").min(1, "must be at least 1").max(64).default(4),
  lookaheadBlocks: whole("blocks").min(1, "must be at least 1").max(4096).default(128),
  timeoutMs: ms(600_000, 1).default(10_000),
  hedgeAfterMs: ms(600_000, 1).default(500),
  maxResponseBytes: whole("bytes")
    .min(1024, "must be at least 1024")
    .max(MAX_RESPONSE_BYTES_LIMIT, `must be at most ${MAX_RESPONSE_BYTES_LIMIT} (512 MiB)`)
    .default(DEFAULT_MAX_RESPONSE_BYTES),
  followRedirects: z.boolean({ error: "must be true or false" }).default(false),
  initialBackoffMs: ms(600_000, 1).default(200),
  maxBackoffMs: ms(3_600_000, 1).default(10_000),
  maxRetryAfterMs: ms(86_400_000).default(60_000),
  unreachableAfter: whole("requests").min(1, "must be at least 1").default(3),
  headers: z.record(z.string(), z.string({ error: "must be a string" })).default({}),
  onEvent: fn<(event: AptosRestEvent) => void>("receiving events"),
  random: fn<() => number>("returning a number in [0, 1)"),
  now: fn<() => number>("returning ms"),
  fetch: fn<typeof fetch>("like fetch"),
};

function crossCheck(f: Partial<Record<keyof typeof shape, unknown>>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const initial = f.initialBackoffMs as number | undefined;
  const max = f.maxBackoffMs as number | undefined;
  if (initial !== undefined && max !== undefined && initial > max)
    issues.push({
      path: "initialBackoffMs",
      message: `must not be above maxBackoffMs (${max}), got ${initial}`,
    });
  const concurrency = f.concurrency as number | undefined;
  const lookahead = f.lookaheadBlocks as number | undefined;
  if (concurrency !== undefined && lookahead !== undefined && lookahead < concurrency)
    issues.push({
      path: "lookaheadBlocks",
      message: `must not be below concurrency (${concurrency}), got ${lookahead}`,
    });
  return issues;
}

/**
 * The base URL of a node: `http(s)://host[:port][/prefix]`, with a trailing `/` or `/v1`
 * removed (both `https://node/v1` and `https://node` work).
 *
 * @throws {InvalidConfigError} (path `url`) when it is not an http(s) URL.
 */
export function normaliseNodeUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidConfigError([
      {
        path: "url",
        message: `must be an http(s) URL such as http://127.0.0.1:8080 (got "${url}")`,
      },
    ]);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new InvalidConfigError([
      { path: "url", message: `must use http or https (got "${parsed.protocol.slice(0, -1)}")` },
    ]);
  if (parsed.search || parsed.hash)
    throw new InvalidConfigError([{ path: "url", message: "must not carry a query or fragment" }]);
  const path = parsed.pathname.replace(/\/+$/, "").replace(/\/v1$/, "");
  return `${parsed.origin}${path}`;
}

/**
 * Validate the URL and options of `aptosRest()` and fill in the defaults.
 *
 * @throws {InvalidConfigError} listing every problem (path + message).
 * @example
 * resolveAptosRestOptions("http://127.0.0.1:8080/v1", { concurrency: 8 }).baseUrl; // "http://127.0.0.1:8080"
 */
export function resolveAptosRestOptions(
  url: string,
  options: AptosRestOptions = {},
): ResolvedAptosRestOptions {
  const baseUrl = normaliseNodeUrl(url);
  const r = validateShape(shape, options, crossCheck);
  if (!r.ok) throw new InvalidConfigError(r.issues);
  const v = r.value;
  const onEvent = v.onEvent;
  return Object.freeze({
    baseUrl,
    backfillBlocks: v.backfillBlocks,
    startHeight: v.startHeight,
    pollIntervalMs: v.pollIntervalMs,
    concurrency: v.concurrency,
    lookaheadBlocks: v.lookaheadBlocks,
    timeoutMs: v.timeoutMs,
    hedgeAfterMs: v.hedgeAfterMs,
    maxResponseBytes: v.maxResponseBytes,
    followRedirects: v.followRedirects,
    initialBackoffMs: v.initialBackoffMs,
    maxBackoffMs: v.maxBackoffMs,
    maxRetryAfterMs: v.maxRetryAfterMs,
    unreachableAfter: v.unreachableAfter,
    headers: Object.freeze({ ...v.headers }),
    onEvent: (event: AptosRestEvent) => {
      try {
        onEvent?.(event);
      } catch {
        // A failing logger must not stop the source.
      }
    },
    random: v.random ?? Math.random,
    now: v.now ?? Date.now,
    fetch: v.fetch ?? ((input: string | URL | Request, init?: RequestInit) => fetch(input, init)),
  });
}
