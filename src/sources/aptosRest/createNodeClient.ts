import { setTimeout as sleep } from "node:timers/promises";
import { type Answer, type Attempt, answerLimits, attemptRequest } from "./attemptRequest.js";
import { backoffDelay } from "./backoff.js";
import { createHedgeDelay } from "./createHedgeDelay.js";
import { createSlots } from "./createSlots.js";
import { type InvalidResponseError, SourceRequestError } from "./errors.js";
import { hedged } from "./hedged.js";
import type { ResolvedAptosRestOptions } from "./options.js";
import { type LedgerInfo, type Parsed, parseLedgerInfo, parseMinGasUnitPrice } from "./schemas.js";
import { type NodeBlock, type NodeTxn, parseBlock, parseTransactionsPage } from "./transactions.js";

/** A block fetch's outcome: the block, or where the node stands. */
export type BlockAnswer =
  | { kind: "block"; block: NodeBlock }
  /** 404: above the tip of the node that answered. */
  | { kind: "not_found" }
  /** 410: below the oldest height the node keeps. */
  | { kind: "pruned" };

/** The node's REST calls, each retried until it gets a usable answer (or the signal aborts). */
export interface NodeClient {
  /**
   * `GET /v1`; with `expectedChainId`, another chain id counts as a bad answer. The first
   * answer's chain id is the client's from then on: any answer whose `X-Aptos-Chain-Id`
   * header names another chain is refused and retried. With `skipTo` (read after a 410), an
   * oldest height above it is refused too ({@link parseLedgerInfo}).
   */
  ledgerInfo(signal: AbortSignal, expectedChainId?: number, skipTo?: bigint): Promise<LedgerInfo>;
  /** `GET /v1/blocks/by_height/{height}?with_transactions=true`. */
  block(height: bigint, signal: AbortSignal): Promise<BlockAnswer>;
  /** `GET /v1/transactions?start=&limit=` continuing `block` at `start`; `"pruned"` on 410. */
  transactions(
    start: bigint,
    limit: number,
    block: NodeBlock,
    signal: AbortSignal,
  ): Promise<NodeTxn[] | "pruned">;
  /**
   * The minimum gas unit price from the gas schedule as of `version` (falling back to the latest
   * state when the node cannot answer for that version); `undefined` when the node has no
   * `GasScheduleV2` at all. `onFailure` is called after each failed attempt (it is retried);
   * with `once`, a single attempt is made, not counted as a failing request, and its failure
   * rejects.
   */
  minGasUnitPrice(
    version: bigint,
    signal: AbortSignal,
    mode?: CallMode,
  ): Promise<bigint | undefined>;
}

const GAS_SCHEDULE = "/v1/accounts/0x1/resource/0x1::gas_schedule::GasScheduleV2";

/** How a request is made: retried until it answers (calling `onFailure` after each failure), or `once`. */
export interface CallMode {
  readonly onFailure?: () => void;
  /** One attempt, outside the outage count (a probe of a read given up); its failure rejects. */
  readonly once?: boolean;
}

/** Shortest time between two `rate_limited` events. */
export const RATE_LIMIT_TELL_MS = 30_000;

/** Priority of the ledger and gas schedule reads: before any block (priorities are heights). */
const URGENT = -1n;

/**
 * Create the REST client of the `aptosRest` source: every call validates the answer, retries
 * network errors, timeouts, unexpected statuses, redirects, oversized and bad bodies with capped
 * exponential backoff and jitter (as long as `Retry-After` asks, up to `maxRetryAfterMs`, and
 * never shorter than the backoff), and reports `retrying` / `unreachable` / `recovered` events.
 *
 * At most `concurrency` requests are in flight; a request waiting out its backoff gives its place
 * back, and places go to the lowest height first (ledger and gas schedule reads before any
 * block). A request without response headers after the hedge delay is sent a second time; the
 * first answer wins.
 *
 * @example
 * const client = createNodeClient(resolveAptosRestOptions("http://127.0.0.1:8080"));
 * const info = await client.ledgerInfo(AbortSignal.timeout(60_000));
 */
export function createNodeClient(options: ResolvedAptosRestOptions): NodeClient {
  const { baseUrl, onEvent, now } = options;
  const headers = { accept: "application/json", ...options.headers };
  // The chain of the first ledger info: from then on every answer naming another one in its
  // `X-Aptos-Chain-Id` header is refused (block answers have no chain id in their body).
  let attemptOptions = {
    ...options,
    headers,
    limits: answerLimits(options.maxResponseBytes),
    chainId: undefined as number | undefined,
  };
  const slots = createSlots(options.concurrency);
  const hedgeDelay = createHedgeDelay(options.hedgeAfterMs, options.timeoutMs);
  // The same for a body: the time from the headers to a usable answer.
  const bodyDelay = createHedgeDelay(options.hedgeAfterMs, options.timeoutMs);
  let failures = 0;
  let downSince = 0;
  let reported = false;
  // Requests whose latest attempt failed and that are still being retried: the node is back
  // when none is left, not when the ledger info answers while every block is refused (that
  // alternated "unusable" and "back" lines with each poll of the tip).
  let failing = 0;
  // When the last `rate_limited` was told: a node that rate-limits is told at once (its waits
  // are long, so `unreachable` would come minutes later), then at most once per 30 s.
  let rateLimitTold: number | undefined;

  function succeeded(url: string) {
    if (failing > 0) return;
    if (reported)
      onEvent({ type: "recovered", url, failures, downMs: Math.max(0, now() - downSince) });
    failures = 0;
    reported = false;
  }

  function failed(url: string, error: SourceRequestError | InvalidResponseError) {
    if (failures === 0) downSince = now();
    failures++;
    if (!reported && failures >= options.unreachableAfter) {
      reported = true;
      onEvent({ type: "unreachable", url, failures, error });
    }
  }

  function rateLimited(url: string, status: number, delayMs: number) {
    const t = now();
    if (rateLimitTold !== undefined && t - rateLimitTold < RATE_LIMIT_TELL_MS) return;
    rateLimitTold = t;
    onEvent({ type: "rate_limited", url, status, delayMs });
  }

  /** One attempt, hedged, holding one place for its duration. */
  async function attempt<T>(
    url: string,
    parse: (value: unknown, headerChain?: number) => Parsed<T>,
    accept: readonly number[],
    priority: bigint,
    signal: AbortSignal,
  ): Promise<Attempt<T>> {
    const release = await slots.acquire(priority, signal);
    try {
      const off = (ms: number) => (ms >= options.timeoutMs ? Number.POSITIVE_INFINITY : ms);
      const { result } = await hedged<Attempt<T>>(
        async (s, onHeaders) => {
          const started = performance.now();
          let headersAt: number | undefined;
          const r = await attemptRequest(attemptOptions, url, parse, accept, s, () => {
            headersAt = performance.now();
            hedgeDelay.record(headersAt - started);
            onHeaders();
          });
          if (r.ok && headersAt !== undefined) bodyDelay.record(performance.now() - headersAt);
          return r;
        },
        (r) => r.ok,
        off(hedgeDelay.delay()),
        signal,
        off(bodyDelay.delay()),
      );
      return result;
    } finally {
      release();
    }
  }

  async function call<T>(
    path: string,
    parse: (value: unknown, headerChain?: number) => Parsed<T>,
    accept: readonly number[],
    priority: bigint,
    signal: AbortSignal,
    mode: CallMode = {},
  ): Promise<Answer<T>> {
    const url = baseUrl + path;
    if (mode.once) {
      const r = await attempt(url, parse, accept, priority, signal);
      if (r.ok) return r.answer;
      throw r.error;
    }
    let failingNow = false;
    try {
      for (let n = 1; ; n++) {
        const r = await attempt(url, parse, accept, priority, signal);
        if (r.ok) {
          if (failingNow) failing--;
          failingNow = false;
          succeeded(url);
          return r.answer;
        }
        if (!failingNow) failing++;
        failingNow = true;
        failed(url, r.error);
        mode.onFailure?.();
        // Given up by what onFailure told (the gas schedule's wait): no retry is announced.
        if (signal.aborted) throw signal.reason;
        // Retry-After may ask for more than the backoff, never for less: "0" or a past date
        // from an overloaded node must not turn the retries into a flood.
        const backoff = backoffDelay(n, options);
        const delayMs =
          r.retryAfterMs !== undefined
            ? Math.max(backoff, Math.min(r.retryAfterMs, options.maxRetryAfterMs))
            : backoff;
        if (r.retryAfterMs !== undefined && r.error instanceof SourceRequestError)
          rateLimited(url, r.error.status ?? 429, delayMs);
        onEvent({ type: "retrying", url, attempt: n, delayMs, error: r.error });
        await sleep(delayMs, undefined, { signal });
      }
    } finally {
      // Given up (aborted with its window, or the source stopped): no longer failing.
      if (failingNow) failing--;
    }
  }

  return {
    async ledgerInfo(signal, expectedChainId, skipTo) {
      // Before the chain is known, the header is checked against the body's own chain_id: an
      // answer that names two chains would start the source on one and refuse every later
      // answer as the other's, blaming a network change that never happened.
      const parse = (v: unknown, headerChain?: number) =>
        parseLedgerInfo(v, expectedChainId, skipTo, now(), headerChain);
      const r = await call("/v1", parse, [], URGENT, signal);
      if (attemptOptions.chainId === undefined)
        attemptOptions = { ...attemptOptions, chainId: r.value!.chainId };
      return r.value!;
    },

    async block(height, signal) {
      const path = `/v1/blocks/by_height/${height}?with_transactions=true`;
      const parse = (v: unknown) => parseBlock(v, height, options.maxBlockTransactions);
      const r = await call(path, parse, [404, 410], height, signal);
      if (r.status === 200) return { kind: "block", block: r.value! };
      return r.status === 410 ? { kind: "pruned" } : { kind: "not_found" };
    },

    async transactions(start, limit, block, signal) {
      const path = `/v1/transactions?start=${start}&limit=${limit}`;
      const parse = (v: unknown) => parseTransactionsPage(v, start, block);
      const r = await call(path, parse, [410], block.height, signal);
      return r.status === 200 ? r.value! : "pruned";
    },

    async minGasUnitPrice(version, signal, mode) {
      const at = await call(
        `${GAS_SCHEDULE}?ledger_version=${version}`,
        parseMinGasUnitPrice,
        [400, 404, 410],
        URGENT,
        signal,
        mode,
      );
      if (at.status === 200) return at.value;
      const latest = await call(GAS_SCHEDULE, parseMinGasUnitPrice, [404], URGENT, signal, mode);
      return latest.status === 200 ? latest.value : undefined;
    },
  };
}
