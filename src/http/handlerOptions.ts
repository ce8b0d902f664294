import { z } from "zod";
import { validateShape } from "../core/config.js";
import { InvalidConfigError, type ValidationIssue } from "../core/errors.js";
import { showValue } from "../core/showValue.js";
import { type ExplorerAssets, SWAGGER_UI_FILES } from "./explorer.js";
import type { HandlerLogger, ResolvedHandlerOptions } from "./types.js";

/** Options of `createHandler` (and of every adapter). */
export interface HandlerOptions {
  /**
   * Path prefix of the routes inside the mount point (`"/v1"`: `/v1/estimate_gas_price`).
   * `""` or `"/"` puts them at the root. The `/spec.json` and `/spec.yaml` aliases always stay
   * at the root of the mount point.
   * @default "/v1"
   */
  basePath?: string;
  /** Prefix of the chain-state headers (`X-Aptos-Chain-Id`, ...). May be empty. @default "X-Aptos-" */
  headerPrefix?: string;
  /**
   * BCS body of the estimate: the whole struct (26 bytes), or only the 8-byte `gas_estimate`
   * that existing nodes send.
   * @default "full"
   */
  bcsLayout?: "full" | "gas_estimate_only";
  /** `false` answers the estimate with 403 `api_disabled`. @default true */
  estimateEnabled?: boolean;
  /** `false` answers estimate requests that negotiate JSON with 403 `api_disabled`. @default true */
  jsonOutput?: boolean;
  /** `false` answers estimate requests that negotiate BCS with 403 `api_disabled`. @default true */
  bcsOutput?: boolean;
  /**
   * 503 `health_check_failed` when the newest block arrived longer ago than this (ms), unless
   * every source has completed. `false` never goes stale.
   * @default 30000
   */
  maxStalenessMs?: number | false;
  /** Longer request URLs (path + query) get 400 `web_framework_error`. @default 8192 */
  maxUrlLength?: number;
  /** `Access-Control-Allow-Origin` value (`"*"` or one origin such as `https://example.com`); `false` sends no CORS headers. @default "*" */
  corsOrigin?: string | false;
  /** Where errors (details of 500s) and per-request debug lines go; pino works. @default silent */
  logger?: HandlerLogger;
  /** Wall clock in ms, for staleness and health checks (tests inject one). @default Date.now */
  now?: () => number;
  /**
   * The Swagger UI files of the explorer page (`<basePath>/spec`), by name: `explorerAssets`
   * from `gasdigest/explorer-assets` (a module, so it works where there is no file system), or
   * your own. Without them the page answers 404 and names this option; the document stays at
   * `spec.json`. The node server and the Express, Fastify and Koa adapters read the installed
   * `swagger-ui-dist` when it is left out.
   * @default none (node server, Express, Fastify, Koa: the files of the installed swagger-ui-dist)
   */
  explorerAssets?: ExplorerAssets;
}

const noop = () => {};
/** A logger that drops everything. */
export const silentLogger: HandlerLogger = Object.freeze({
  error: noop,
  warn: noop,
  info: noop,
  debug: noop,
});

/** The defaults, applied to every option left out (or given as `undefined`). */
const DEFAULTS: ResolvedHandlerOptions = Object.freeze({
  basePath: "/v1",
  headerPrefix: "X-Aptos-",
  bcsLayout: "full",
  estimateEnabled: true,
  jsonOutput: true,
  bcsOutput: true,
  maxStalenessMs: 30_000,
  maxUrlLength: 8192,
  corsOrigin: "*",
  logger: silentLogger,
  now: Date.now,
  explorerAssets: undefined,
});

function refined<T>(check: (v: unknown) => string | undefined) {
  return z
    .unknown()
    .transform((v, ctx) => {
      const problem = check(v);
      if (problem === undefined) return v as T;
      ctx.addIssue({ code: "custom", message: problem });
      return z.NEVER;
    })
    .optional();
}

// A bad value is echoed in at most 80 characters, whatever its size.
const shown = showValue;
const PATH = /^(\/[A-Za-z0-9._~!$&'()*+,;=:@-]+)*$/;
const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]*$/;
const ORIGIN = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s/?#]+$/;

const FILE_NAMES: readonly string[] = SWAGGER_UI_FILES;

/** The problems of an `explorerAssets` value, in one message (undefined when it is fine). */
function checkExplorerAssets(v: unknown): string | undefined {
  if (typeof v !== "object" || v === null || Array.isArray(v))
    return `must be an object of the explorer's files by name, such as explorerAssets from "gasdigest/explorer-assets" (got ${shown(v)})`;
  const given = v as Record<string, unknown>;
  const problems: string[] = [];
  const missing = FILE_NAMES.filter((name) => given[name] === undefined);
  if (missing.length > 0) problems.push(`missing ${missing.join(", ")}`);
  const unknown = Object.keys(given).filter((name) => !FILE_NAMES.includes(name));
  if (unknown.length > 0) problems.push(`unknown ${unknown.join(", ")}`);
  for (const name of FILE_NAMES) {
    const file = given[name];
    if (file === undefined || file instanceof Uint8Array) continue;
    if (typeof file !== "string" && typeof file !== "function")
      problems.push(
        `${name} must be bytes (Uint8Array), text or a function returning either (got ${shown(file)})`,
      );
  }
  return problems.length === 0 ? undefined : problems.join("; ");
}

const flag = () =>
  refined<boolean>((v) =>
    typeof v === "boolean" ? undefined : `must be true or false (got ${shown(v)})`,
  );

const handlerOptionsShape = {
  basePath: refined<string>((v) => {
    if (typeof v !== "string") return `must be a string (got ${shown(v)})`;
    const p = v.endsWith("/") ? v.slice(0, -1) : v;
    if (!PATH.test(p))
      return `must be a path such as "/v1": starts with "/", segments of URL path characters, no "//", "?", "#" or "%" (got ${shown(v)})`;
    return undefined;
  }),
  headerPrefix: refined<string>((v) =>
    typeof v === "string" && TOKEN.test(v)
      ? undefined
      : `must hold only header-name characters (letters, digits, !#$%&'*+-.^_\`|~) (got ${shown(v)})`,
  ),
  bcsLayout: refined<"full" | "gas_estimate_only">((v) =>
    v === "full" || v === "gas_estimate_only"
      ? undefined
      : `must be "full" or "gas_estimate_only" (got ${shown(v)})`,
  ),
  estimateEnabled: flag(),
  jsonOutput: flag(),
  bcsOutput: flag(),
  maxStalenessMs: refined<number | false>((v) =>
    v === false || (typeof v === "number" && Number.isSafeInteger(v) && v >= 0)
      ? undefined
      : `must be a whole number of milliseconds >= 0, or false (got ${shown(v)})`,
  ),
  maxUrlLength: refined<number>((v) =>
    typeof v === "number" && Number.isSafeInteger(v) && v >= 1
      ? undefined
      : `must be a whole number >= 1 (got ${shown(v)})`,
  ),
  corsOrigin: refined<string | false>((v) =>
    v === false || v === "*" || (typeof v === "string" && ORIGIN.test(v))
      ? undefined
      : `must be "*", an origin such as "https://example.com", or false (got ${shown(v)})`,
  ),
  logger: refined<HandlerLogger>((v) => {
    const l = v as Record<string, unknown> | null;
    const missing = ["error", "warn", "info", "debug"].filter((k) => typeof l?.[k] !== "function");
    return missing.length === 0
      ? undefined
      : `must be a logger with error, warn, info and debug methods (missing ${missing.join(", ")})`;
  }),
  now: refined<() => number>((v) =>
    typeof v === "function" ? undefined : `must be a function returning ms (got ${shown(v)})`,
  ),
  explorerAssets: refined<ExplorerAssets>(checkExplorerAssets),
};

/** Names of every option `createHandler` accepts (adapters split their own options off with it). */
export const HANDLER_OPTION_KEYS = Object.freeze(
  Object.keys(handlerOptionsShape),
) as readonly (keyof HandlerOptions)[];

/**
 * Validate handler options without throwing: the resolved options, or every issue found.
 *
 * @example
 * const r = safeParseHandlerOptions({ basePath: "v1" });
 * if (!r.ok) console.log(r.issues); // [{ path: "basePath", message: 'must be a path such as "/v1": ...' }]
 */
export function safeParseHandlerOptions(
  input: unknown,
): { ok: true; value: ResolvedHandlerOptions } | { ok: false; issues: ValidationIssue[] } {
  if (input !== undefined && (typeof input !== "object" || input === null || Array.isArray(input)))
    return {
      ok: false,
      issues: [{ path: "", message: `options must be an object (got ${shown(input)})` }],
    };
  const r = validateShape(handlerOptionsShape, input ?? {}, () => []);
  if (!r.ok) return r;
  const v = { ...DEFAULTS } as Record<string, unknown>;
  for (const [key, value] of Object.entries(r.value)) if (value !== undefined) v[key] = value;
  const given = v.basePath as string;
  const basePath = given.endsWith("/") ? given.slice(0, -1) : given;
  return { ok: true, value: Object.freeze({ ...v, basePath }) as ResolvedHandlerOptions };
}

/**
 * Validate handler options, filling in defaults.
 *
 * @throws {InvalidConfigError} listing every issue (path + message).
 * @example
 * const options = parseHandlerOptions({ headerPrefix: "X-Chain-" });
 */
export function parseHandlerOptions(input?: HandlerOptions): ResolvedHandlerOptions {
  const r = safeParseHandlerOptions(input);
  if (!r.ok) throw new InvalidConfigError(r.issues);
  return r.value;
}
