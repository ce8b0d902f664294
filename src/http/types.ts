import type { Engine } from "../core/createEngine.js";
import type { OpenApiDocument } from "./createOpenApiDocument.js";
import type { ResolvedHandlerOptions } from "./handlerOptions.js";

/**
 * What the handler needs from an engine: the latest snapshot and whether every source has
 * completed (a finished file never goes stale). `close()`, when there is one, is what servers
 * call on shutdown (`closeEngine`); an object without it is served the same.
 */
export type HandlerEngine = Pick<Engine, "snapshot" | "sourcesCompleted"> &
  Partial<Pick<Engine, "close">>;

/**
 * A request as every host can describe it. `url` is the path and query relative to where the
 * handler is mounted (`/v1/estimate_gas_price?x=1`); header names are lower case (as node gives
 * them); a repeated header may be an array.
 */
export interface HandlerRequest {
  /** The request method as sent (`GET`, `HEAD`, ...). */
  readonly method: string;
  /** Path and query relative to the mount point, as sent (not decoded). */
  readonly url: string;
  /** Request headers, names in lower case; a repeated header may be an array. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
}

/**
 * What to send back. `headers` always carries `Content-Length` when there is a body (also on
 * HEAD, where `body` is `undefined`). The objects may be shared between requests (they are
 * encoded once per snapshot): treat them as read-only.
 */
export interface HandlerResponse {
  /** HTTP status code. */
  readonly status: number;
  /** Response headers to send as they are (`Content-Length` included when there is a body). */
  readonly headers: Readonly<Record<string, string>>;
  /** The body's bytes; `undefined` for HEAD and for answers without one (204, 304). */
  readonly body: Uint8Array | undefined;
}

/** Minimal logger, compatible with pino (`logger.error({ err }, "message")`). */
export interface HandlerLogger {
  /** A request or a scrape failed inside gasdigest (with `err`). */
  error(obj: object, msg?: string): void;
  /** A client or connection was refused or cut (the node server's limits and drain). */
  warn(obj: object, msg?: string): void;
  /** Informational lines (the handler and the adapters send none today; pino's shape). */
  info(obj: object, msg?: string): void;
  /** One line per request answered (method, url, status). */
  debug(obj: object, msg?: string): void;
  /** When present and it answers `false` for `"debug"`, per-request debug lines are skipped (pino has it). */
  isLevelEnabled?(level: string): boolean;
}

/** The 22 `error_code` values of the node interface's error object. */
export const ERROR_CODES = [
  "account_not_found",
  "resource_not_found",
  "module_not_found",
  "struct_field_not_found",
  "version_not_found",
  "transaction_not_found",
  "table_item_not_found",
  "block_not_found",
  "state_value_not_found",
  "version_pruned",
  "block_pruned",
  "invalid_input",
  "invalid_transaction_update",
  "sequence_number_too_old",
  "vm_error",
  "rejected_by_filter",
  "health_check_failed",
  "mempool_is_full",
  "internal_error",
  "web_framework_error",
  "bcs_not_supported",
  "api_disabled",
] as const;

/** One `error_code` of the error object. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** A framework-agnostic handler made by `createHandler`: call it with a request, send what it returns. */
export interface Handler {
  (request: HandlerRequest): HandlerResponse;
  /**
   * Whether `url` names one of the handler's routes (any method). An unknown path under
   * `basePath` is not one (the handler answers it 404): adapters that pass requests on decide
   * with {@link Handler.claims}.
   */
  owns(url: string): boolean;
  /**
   * Whether an adapter mounted in a host should answer `url` itself: one of its routes, or any
   * path under its `basePath` (so an unknown `/v1/...` gets the 404 error object, not the
   * host's). With `basePath` at the root, only its routes. The path is read as the handler
   * reads it: an absolute-form target by its path, percent-decoded (`http://h/v1/nope` and
   * `/v1%2Fnope` are under `/v1`).
   */
  claims(url: string): boolean;
  /**
   * An error object response (JSON, with CORS and, when known, chain-state headers), for hosts
   * that must answer outside the handler (for example a malformed request head).
   *
   * @throws {InvalidArgumentError} when `status` is not from 400 to 599, `errorCode` not one of
   * the {@link ErrorCode} values or `message` not a string.
   */
  errorResponse(status: number, errorCode: ErrorCode, message: string): HandlerResponse;
  /**
   * Answer a request like the handler itself, the metrics route included: its scrape reads every
   * metric asynchronously, so that one answer is a Promise (every other answer is returned as
   * is). Adapters call this; calling the handler directly answers the metrics route with 404.
   */
  respond(request: HandlerRequest): HandlerResponse | Promise<HandlerResponse>;
  /**
   * The OpenAPI 3.1 document of the routes, `servers` naming the base path (`/v1`). What is
   * served at `spec.json` / `spec.yaml` is the same document with `servers` relative to where
   * it is served (`../v1` at `/v1/spec.json`, `./v1` at `/spec.json`), so that it leads to the
   * routes under any mount prefix.
   */
  readonly document: Readonly<OpenApiDocument>;
  /** The validated options, defaults filled in. */
  readonly options: ResolvedHandlerOptions;
}

export type { ResolvedHandlerOptions };

/**
 * What the handler needs from a metrics implementation: a place to record each request, and the
 * scrape it serves at `metricsPath`. `createMetrics()` of `gasdigest/metrics` (node, through
 * prom-client) is one; the handler itself imports none, so it stays runtime-neutral.
 *
 * @example
 * const metrics: HandlerMetrics = {
 *   observeRequest(route, status, seconds) { counts[`${route} ${status}`] = (counts[`${route} ${status}`] ?? 0) + 1 },
 *   scrape: async () => ({ contentType: "text/plain; version=0.0.4", body: render(counts) }),
 * };
 * createHandler(engine, { metrics });
 */
export interface HandlerMetrics {
  /**
   * One request the handler answered: its route (the route's path as configured, such as
   * `/v1/estimate_gas_price`, or `unmatched`: a fixed, small set of values), the status sent,
   * and the seconds the handler took to answer it. Called on every request: keep it cheap. An
   * exception it throws is ignored.
   */
  observeRequest(route: string, status: number, seconds: number): void;
  /** The exposition served at the metrics route (Prometheus text), read at every scrape. */
  scrape(): Promise<MetricsScrape>;
  /**
   * Optional: called once by each handler given these metrics, with every route label it can
   * report (its routes and `unmatched`), so that counters can start at 0 before the first
   * request of a route. An exception it throws is ignored.
   */
  declareRoutes?(routes: readonly string[]): void;
}

/** One scrape of {@link HandlerMetrics}: the body and its `Content-Type`. */
export interface MetricsScrape {
  /** `Content-Type` of the body (Prometheus' text format, with its version). */
  readonly contentType: string;
  /** The metrics in Prometheus' text format. */
  readonly body: string;
}
