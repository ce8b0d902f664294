import { describeValue } from "../core/describeValue.js";
import type { Snapshot } from "../core/types.js";
import { chainStateHeaders } from "./chainStateHeaders.js";
import { encodeEstimateBcs, encodeEstimateJson } from "./encodeEstimate.js";
import { REFUSALS, staleMessage } from "./errorMessages.js";
import { type EstimateFormat, negotiateFormat } from "./negotiateFormat.js";
import { errorPair, pick, type ResponsePair, type Route, responsePair } from "./responses.js";
import type { ErrorCode, HandlerEngine, HandlerResponse, ResolvedHandlerOptions } from "./types.js";

/** Responses of one snapshot, encoded on first use and shared by every request that reads it. */
interface Encoded {
  /** Common headers plus the seven chain-state headers. */
  readonly headers: Readonly<Record<string, string>>;
  json?: ResponsePair;
  bcs?: ResponsePair;
  ledger?: ResponsePair;
  healthy?: ResponsePair;
  failure?: ResponsePair;
  stale?: ResponsePair;
}

/** A whole number of seconds: digits, leading zeros allowed (as the node parses a u32). */
const DURATION = /^0*[0-9]{1,10}$/;

/**
 * The negotiated format is cached by `Accept` value (at most 256 values) only for values up to
 * this many characters; longer ones are negotiated on every request and never kept, so the cache
 * holds at most 256 KiB. Real `Accept` values are a few hundred characters; workerd passes ones
 * of about 256 KiB, and 256 of those kept pinned about 64 MiB of a 128 MB isolate.
 */
const MAX_CACHED_ACCEPT = 1024;

/** The routes that read the engine's snapshot, and the error builder that adds its headers. */
export interface ChainRoutes {
  readonly estimate: Route;
  readonly ledger: Route;
  readonly healthy: Route;
  /** An error object response with the chain-state headers when the ledger is known. */
  error(status: number, code: ErrorCode, message: string, head?: boolean): HandlerResponse;
}

/**
 * The estimate, ledger info and health routes. Every body and header object of a snapshot is
 * built on first use and reused until the next snapshot (one slot: the engine only ever returns its newest snapshot).
 *
 * @example
 * const { estimate } = createChainRoutes(engine, parseHandlerOptions(), { "X-Content-Type-Options": "nosniff" });
 */
export function createChainRoutes(
  engine: HandlerEngine,
  o: ResolvedHandlerOptions,
  common: Readonly<Record<string, string>>,
): ChainRoutes {
  const { logger, now } = o;
  const estimateExtra = {
    "Cache-Control": "no-store",
    Vary: common.Vary ? "Origin, Accept" : "Accept",
  };
  const noBlock = errorPair(503, "internal_error", "no block has been ingested yet", common);
  // Sent only when maxStalenessMs is a number (see isStale).
  const stale = o.maxStalenessMs === false ? "" : staleMessage(o.maxStalenessMs);

  // engine.snapshot() only ever returns the newest snapshot: one slot is the whole cache.
  let lastSnapshot: Snapshot | undefined;
  let lastEncoded: Encoded | undefined;
  function encoded(s: Snapshot): Encoded {
    if (s !== lastSnapshot || !lastEncoded) {
      lastEncoded = {
        headers: Object.freeze({ ...common, ...chainStateHeaders(s.ledger, o.headerPrefix) }),
      };
      lastSnapshot = s;
    }
    return lastEncoded;
  }

  function error(
    status: number,
    code: ErrorCode,
    message: string,
    head = false,
    extra?: Readonly<Record<string, string>>,
  ): HandlerResponse {
    const s = engine.snapshot();
    const headers = s ? encoded(s).headers : common;
    return pick(errorPair(status, code, message, extra ? { ...headers, ...extra } : headers), head);
  }
  // A refused format depends on the request's Accept, like the estimate itself.
  const byAccept = { Vary: estimateExtra.Vary };

  function isStale(s: Snapshot): boolean {
    return (
      o.maxStalenessMs !== false &&
      now() - s.receivedAtMs > o.maxStalenessMs &&
      !engine.sourcesCompleted
    );
  }

  /** The 503 or 500 a snapshot answers instead of an estimate, if any. */
  function unavailable(s: Snapshot, e: Encoded): ResponsePair | undefined {
    if (isStale(s)) {
      if (!e.stale) e.stale = errorPair(503, "health_check_failed", stale, e.headers);
      return e.stale;
    }
    if (s.estimate === undefined) {
      if (!e.failure) {
        logger.error(
          { err: s.failure, height: String(s.ledger.blockHeight), sequence: s.sequence },
          "the strategy failed: the estimate answers 500",
        );
        e.failure = errorPair(
          500,
          "internal_error",
          "internal error: the estimate is unavailable",
          e.headers,
        );
      }
      return e.failure;
    }
    return undefined;
  }

  const negotiated = new Map<string, EstimateFormat>();
  function formatOf(accept: string | readonly string[] | undefined): EstimateFormat {
    if (typeof accept !== "string" || accept.length > MAX_CACHED_ACCEPT)
      return negotiateFormat(accept);
    let f = negotiated.get(accept);
    if (f === undefined) {
      f = negotiateFormat(accept);
      if (negotiated.size >= 256) negotiated.clear();
      negotiated.set(accept, f);
    }
    return f;
  }

  const estimate: Route = (request, head) => {
    if (!o.estimateEnabled || (!o.jsonOutput && !o.bcsOutput))
      return error(
        403,
        "api_disabled",
        o.estimateEnabled ? REFUSALS.noFormat : REFUSALS.disabled,
        head,
      );
    const format = formatOf(request.headers.accept);
    if (format === "json" && !o.jsonOutput)
      return error(403, "api_disabled", REFUSALS.jsonOff, head, byAccept);
    if (format === "bcs" && !o.bcsOutput)
      return error(403, "api_disabled", REFUSALS.bcsOff, head, byAccept);
    const s = engine.snapshot();
    if (!s) return pick(noBlock, head);
    const e = encoded(s);
    const bad = unavailable(s, e);
    if (bad) return pick(bad, head);
    if (format === "json") {
      if (!e.json) {
        const body = encodeEstimateJson(s.estimate!);
        e.json = responsePair(200, { ...e.headers, ...estimateExtra }, "application/json", body);
      }
      return pick(e.json, head);
    }
    if (!e.bcs) {
      const body = encodeEstimateBcs(s.estimate!, o.bcsLayout);
      e.bcs = responsePair(200, { ...e.headers, ...estimateExtra }, "application/x-bcs", body);
    }
    return pick(e.bcs, head);
  };

  const ledger: Route = (_request, head) => {
    const s = engine.snapshot();
    if (!s) return pick(noBlock, head);
    const e = encoded(s);
    if (!e.ledger) {
      const l = s.ledger;
      const body = `{"chain_id":${l.chainId},"epoch":"${l.epoch}","ledger_version":"${l.ledgerVersion}","oldest_ledger_version":"${l.oldestLedgerVersion}","ledger_timestamp":"${l.timestampUsec}","node_role":"full_node","oldest_block_height":"${l.oldestBlockHeight}","block_height":"${l.blockHeight}"}`;
      e.ledger = responsePair(
        200,
        { ...e.headers, "Cache-Control": "no-store" },
        "application/json",
        body,
      );
    }
    return pick(e.ledger, head);
  };

  const healthy: Route = (_request, head, query) => {
    let durationSecs: number | undefined;
    const raw = queryParam(query, "duration_secs");
    if (raw !== undefined) {
      if (!DURATION.test(raw) || Number(raw) > 4294967295) {
        // Quoted as every echo is (a quote, a control or a bidirectional override in it is
        // escaped; a long one cut): health-check bodies end up in monitoring logs.
        return error(
          400,
          "web_framework_error",
          `invalid query parameter duration_secs: must be a whole number of seconds from 0 to 4294967295 (got ${describeValue(raw)})`,
          head,
        );
      }
      durationSecs = Number(raw);
    }
    const s = engine.snapshot();
    if (!s) return pick(noBlock, head);
    const e = encoded(s);
    const bad = unavailable(s, e);
    if (bad)
      return pick(
        bad.get.status === 500
          ? errorPair(
              503,
              "health_check_failed",
              "the estimator failed on the newest block",
              e.headers,
            )
          : bad,
        head,
      );
    if (
      durationSecs !== undefined &&
      BigInt(Math.floor(now())) * 1000n - s.ledger.timestampUsec > BigInt(durationSecs) * 1_000_000n
    )
      return error(
        503,
        "health_check_failed",
        `the newest block's timestamp is more than ${durationSecs} s behind the wall clock`,
        head,
      );
    if (!e.healthy) {
      const headers = { ...e.headers, "Cache-Control": "no-store" };
      e.healthy = responsePair(200, headers, "application/json", '{"message":"gasdigest:ok"}');
    }
    return pick(e.healthy, head);
  };

  return { estimate, ledger, healthy, error };
}

/** First value of `name` in a query string (`+` is a space), raw when it cannot be decoded. */
function queryParam(query: string, name: string): string | undefined {
  if (query === "") return undefined;
  for (const part of query.split("&")) {
    const eq = part.indexOf("=");
    // Keys are percent-decoded like values (`duration%5Fsecs` is `duration_secs`).
    if (decodeQueryPart(eq === -1 ? part : part.slice(0, eq)) !== name) continue;
    return decodeQueryPart(eq === -1 ? "" : part.slice(eq + 1));
  }
  return undefined;
}

/** A query key or value as form-decoded (`+` is a space); kept as sent when not valid percent-encoding. */
function decodeQueryPart(raw: string): string {
  const spaced = raw.replace(/\+/g, " ");
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}
