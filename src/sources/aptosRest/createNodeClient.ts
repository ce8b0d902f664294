import { setTimeout as sleep } from "node:timers/promises";
import { backoffDelay, parseRetryAfter } from "./backoff.js";
import { InvalidResponseError, SourceRequestError } from "./errors.js";
import type { ResolvedAptosRestOptions } from "./options.js";
import { requestSignal } from "./requestSignal.js";
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
  /** `GET /v1`; with `expectedChainId`, another chain id counts as a bad answer. */
  ledgerInfo(signal: AbortSignal, expectedChainId?: number): Promise<LedgerInfo>;
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
   * `GasScheduleV2` at all.
   */
  minGasUnitPrice(version: bigint, signal: AbortSignal): Promise<bigint | undefined>;
}

type Answer<T> = { status: 200; value: T } | { status: number; value?: undefined };

type Attempt<T> =
  | { ok: true; answer: Answer<T> }
  | { ok: false; error: SourceRequestError | InvalidResponseError; retryAfterMs?: number };

const GAS_SCHEDULE = "/v1/accounts/0x1/resource/0x1::gas_schedule::GasScheduleV2";

/**
 * Create the REST client of the `aptosRest` source: every call validates the answer, retries
 * network errors, timeouts, unexpected statuses and bad bodies with capped exponential backoff
 * and jitter (or `Retry-After`), and reports `retrying` / `unreachable` / `recovered` events.
 *
 * @example
 * const client = createNodeClient(resolveAptosRestOptions("http://127.0.0.1:8080"));
 * const info = await client.ledgerInfo(AbortSignal.timeout(60_000));
 */
export function createNodeClient(options: ResolvedAptosRestOptions): NodeClient {
  const { baseUrl, onEvent, now } = options;
  const requestHeaders = { accept: "application/json", ...options.headers };
  let failures = 0;
  let downSince = 0;
  let reported = false;

  function succeeded(url: string) {
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

  async function attempt<T>(
    url: string,
    parse: (value: unknown) => Parsed<T>,
    accept: readonly number[],
    signal: AbortSignal,
  ): Promise<Attempt<T>> {
    const request = requestSignal(signal, options.timeoutMs);
    try {
      const res = await options.fetch(url, { headers: requestHeaders, signal: request.signal });
      if (res.status === 200) {
        const text = await res.text();
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch (e) {
          const issue = { path: "", message: `not valid JSON (${(e as Error).message})` };
          return { ok: false, error: new InvalidResponseError(url, [issue]) };
        }
        const parsed = parse(json);
        if (!parsed.ok) return { ok: false, error: new InvalidResponseError(url, parsed.issues) };
        return { ok: true, answer: { status: 200, value: parsed.value } };
      }
      await res.arrayBuffer().catch(() => undefined);
      if (accept.includes(res.status)) return { ok: true, answer: { status: res.status } };
      const retryAfterMs =
        res.status === 429 || res.status === 503
          ? parseRetryAfter(res.headers.get("retry-after"), now())
          : undefined;
      const error = new SourceRequestError(url, "http", {
        status: res.status,
        details: res.statusText || undefined,
      });
      return { ok: false, error, retryAfterMs };
    } catch (cause) {
      if (signal.aborted) throw cause;
      if (request.timedOut())
        return {
          ok: false,
          error: new SourceRequestError(url, "timeout", {
            details: `${options.timeoutMs} ms`,
            cause,
          }),
        };
      const reason = (cause as { cause?: { message?: string } }).cause?.message;
      const details = reason ?? (cause as Error).message;
      return { ok: false, error: new SourceRequestError(url, "network", { details, cause }) };
    } finally {
      request.dispose();
    }
  }

  async function call<T>(
    path: string,
    parse: (value: unknown) => Parsed<T>,
    accept: readonly number[],
    signal: AbortSignal,
  ): Promise<Answer<T>> {
    const url = baseUrl + path;
    for (let n = 1; ; n++) {
      const r = await attempt(url, parse, accept, signal);
      if (r.ok) {
        succeeded(url);
        return r.answer;
      }
      failed(url, r.error);
      const delayMs =
        r.retryAfterMs !== undefined
          ? Math.min(r.retryAfterMs, options.maxRetryAfterMs)
          : backoffDelay(n, options);
      onEvent({ type: "retrying", url, attempt: n, delayMs, error: r.error });
      await sleep(delayMs, undefined, { signal });
    }
  }

  return {
    async ledgerInfo(signal, expectedChainId) {
      const r = await call("/v1", (v) => parseLedgerInfo(v, expectedChainId), [], signal);
      return r.value!;
    },

    async block(height, signal) {
      const path = `/v1/blocks/by_height/${height}?with_transactions=true`;
      const r = await call(path, (v) => parseBlock(v, height), [404, 410], signal);
      if (r.status === 200) return { kind: "block", block: r.value! };
      return r.status === 410 ? { kind: "pruned" } : { kind: "not_found" };
    },

    async transactions(start, limit, block, signal) {
      const path = `/v1/transactions?start=${start}&limit=${limit}`;
      const r = await call(path, (v) => parseTransactionsPage(v, start, block), [410], signal);
      return r.status === 200 ? r.value! : "pruned";
    },

    async minGasUnitPrice(version, signal) {
      const at = await call(
        `${GAS_SCHEDULE}?ledger_version=${version}`,
        parseMinGasUnitPrice,
        [400, 404, 410],
        signal,
      );
      if (at.status === 200) return at.value;
      const latest = await call(GAS_SCHEDULE, parseMinGasUnitPrice, [404], signal);
      return latest.status === 200 ? latest.value : undefined;
    },
  };
}
