import type { Engine } from "../core/createEngine.js";
import type { OpenApiDocument } from "./createOpenApiDocument.js";
import type { ExplorerAssets } from "./explorer.js";

/**
 * What the handler needs from an engine: the latest snapshot, whether every source has
 * completed (a finished file never goes stale), and `close()` (used by servers on shutdown).
 */
export type HandlerEngine = Pick<Engine, "snapshot" | "sourcesCompleted" | "close">;

/**
 * A request as every host can describe it. `url` is the path and query relative to where the
 * handler is mounted (`/v1/estimate_gas_price?x=1`); header names are lower case (as node gives
 * them); a repeated header may be an array.
 */
export interface HandlerRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
}

/**
 * What to send back. `headers` always carries `Content-Length` when there is a body (also on
 * HEAD, where `body` is `undefined`). The objects may be shared between requests (they are
 * encoded once per snapshot): treat them as read-only.
 */
export interface HandlerResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array | undefined;
}

/** Minimal logger, compatible with pino (`logger.error({ err }, "message")`). */
export interface HandlerLogger {
  error(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
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
   * Whether `url` names one of the handler's routes (any method). Adapters that can pass a
   * request on (Express `next()`, Koa) use it; the handler itself answers 404 otherwise.
   */
  owns(url: string): boolean;
  /**
   * Whether an adapter mounted in a host should answer `url` itself: one of its routes, or any
   * path under its `basePath` (so an unknown `/v1/...` gets the 404 error object, not the
   * host's). With `basePath` at the root, only its routes.
   */
  claims(url: string): boolean;
  /**
   * An error object response (JSON, with CORS and, when known, chain-state headers), for hosts
   * that must answer outside the handler (for example a malformed request head).
   */
  errorResponse(status: number, errorCode: ErrorCode, message: string): HandlerResponse;
  /** The OpenAPI 3.1 document served at `spec.json` / `spec.yaml`. */
  readonly document: Readonly<OpenApiDocument>;
  /** The validated options, defaults filled in. */
  readonly options: ResolvedHandlerOptions;
}

/** Options after validation, every default filled in. */
export interface ResolvedHandlerOptions {
  /** Normalized: `""` for the root, else starts with `/` and has no trailing `/`. */
  readonly basePath: string;
  readonly headerPrefix: string;
  readonly bcsLayout: "full" | "gas_estimate_only";
  readonly estimateEnabled: boolean;
  readonly jsonOutput: boolean;
  readonly bcsOutput: boolean;
  readonly maxStalenessMs: number | false;
  readonly maxUrlLength: number;
  readonly corsOrigin: string | false;
  readonly logger: HandlerLogger;
  readonly now: () => number;
  /** `undefined` when none were given: the explorer page answers 404. */
  readonly explorerAssets: ExplorerAssets | undefined;
}
