import * as z from "zod";
import { describeValue } from "../core/describeValue.js";
import { InvalidConfigError, type ValidationIssue } from "../core/errors.js";
import { validateShape } from "../core/validate.js";
import { type ExplorerAssets, SWAGGER_UI_FILES } from "./explorer.js";
import { safeLogger } from "./safeLogger.js";
import type { HandlerLogger, HandlerMetrics } from "./types.js";

const noop = () => {};
/** A logger that drops everything. */
export const silentLogger: HandlerLogger = Object.freeze({
  error: noop,
  warn: noop,
  info: noop,
  debug: noop,
});

/** A field that `check` accepts or explains (quoting the value); it takes and gives a `T`. */
function refined<T>(check: (v: unknown) => string | undefined): z.ZodType<T, T> {
  return z.unknown().transform((v, ctx) => {
    const problem = check(v);
    if (problem === undefined) return v as T;
    ctx.addIssue({ code: "custom", message: problem });
    return z.NEVER;
  }) as unknown as z.ZodType<T, T>;
}

// A bad value is echoed in at most 80 characters, whatever its size.
const PATH = /^(\/[A-Za-z0-9._~!$&'()*+,;=:@-]+)*$/;
const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]*$/;
/** Whether a path (valid for {@link PATH}) has a `.` or `..` segment, which clients resolve away. */
const hasDotSegment = (path: string) =>
  path.split("/").some((segment) => segment === "." || segment === "..");
/**
 * One serialized origin, as a browser sends it: scheme, `://`, an ASCII host (a name, `_` allowed
 * as browsers keep it, an IPv4 address or a bracketed IPv6 one; an international name in its
 * `xn--` form) and an optional port. Anything else (a comma list, a quote, DEL, a non-ASCII
 * letter, a path) is no origin a browser matches, and node cannot send some of it: every
 * answer would fail to be written.
 */
const ORIGIN =
  /^[A-Za-z][A-Za-z0-9+.-]*:\/\/(?:[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

const FILE_NAMES: readonly string[] = SWAGGER_UI_FILES;

/** The problems of an `explorerAssets` value, in one message (undefined when it is fine). */
function checkExplorerAssets(v: unknown): string | undefined {
  if (v === false) return undefined;
  if (typeof v !== "object" || v === null || Array.isArray(v))
    return `must be an object of the explorer's files by name, such as explorerAssets from "gasdigest/explorer-assets", or false for no explorer (got ${describeValue(v)})`;
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
        `${name} must be bytes (Uint8Array), text or a function returning either (got ${describeValue(file)})`,
      );
  }
  return problems.length === 0 ? undefined : problems.join("; ");
}

const flag = () =>
  refined<boolean>((v) =>
    typeof v === "boolean" ? undefined : `must be true or false (got ${describeValue(v)})`,
  );

/**
 * The options of `createHandler` (and of every adapter), declared once: {@link HandlerOptions}
 * (what you pass) and `ResolvedHandlerOptions` (what the handler runs with) are derived from it.
 */
const handlerOptionsShape = {
  /**
   * Path prefix of the routes inside the mount point (`"/v1"`: `/v1/estimate_gas_price`).
   * `""` or `"/"` puts them at the root. The `/spec.json` and `/spec.yaml` aliases always stay
   * at the root of the mount point. Resolved, it is `""` for the root, else starts with `/` and
   * has no trailing `/`.
   * @default "/v1"
   */
  basePath: refined<string>((v) => {
    if (typeof v !== "string") return `must be a string (got ${describeValue(v)})`;
    const p = v.endsWith("/") ? v.slice(0, -1) : v;
    if (!PATH.test(p))
      return `must be a path such as "/v1": starts with "/", segments of URL path characters, no "//", "?", "#" or "%" (got ${describeValue(v)})`;
    if (hasDotSegment(p))
      return `must have no "." or ".." segment: browsers and fetch resolve them away before they ask, so no client could reach the routes (got ${describeValue(v)})`;
    if (p === "/spec.json" || p === "/spec.yaml")
      return `must not be ${p}: that is where the API document stays at the root of the mount point, and it would replace the ledger route (got ${describeValue(v)})`;
    return undefined;
  }).default("/v1"),
  /** Prefix of the chain-state headers (`X-Aptos-Chain-Id`, ...). May be empty. @default "X-Aptos-" */
  headerPrefix: refined<string>((v) =>
    typeof v === "string" && TOKEN.test(v)
      ? undefined
      : `must hold only header-name characters (letters, digits, !#$%&'*+-.^_\`|~) (got ${describeValue(v)})`,
  ).default("X-Aptos-"),
  /**
   * BCS body of the estimate: the whole struct (26 bytes), or only the 8-byte `gas_estimate`
   * that existing nodes send.
   * @default "full"
   */
  bcsLayout: refined<"full" | "gas_estimate_only">((v) =>
    v === "full" || v === "gas_estimate_only"
      ? undefined
      : `must be "full" or "gas_estimate_only" (got ${describeValue(v)})`,
  ).default("full"),
  /** `false` answers the estimate with 403 `api_disabled`. @default true */
  estimateEnabled: flag().default(true),
  /** `false` answers estimate requests that negotiate JSON with 403 `api_disabled`. @default true */
  jsonOutput: flag().default(true),
  /** `false` answers estimate requests that negotiate BCS with 403 `api_disabled`. @default true */
  bcsOutput: flag().default(true),
  /**
   * 503 `health_check_failed` when the newest block arrived longer ago than this (ms), unless
   * every source has completed. `false` never goes stale.
   * @default 30000
   */
  maxStalenessMs: refined<number | false>((v) =>
    v === false || (typeof v === "number" && Number.isSafeInteger(v) && v >= 0)
      ? undefined
      : `must be a whole number of milliseconds >= 0, or false (got ${describeValue(v)})`,
  ).default(30_000),
  /** Longer request URLs (path + query) get 400 `web_framework_error`. @default 8192 */
  maxUrlLength: refined<number>((v) =>
    typeof v === "number" && Number.isSafeInteger(v) && v >= 1
      ? undefined
      : `must be a whole number >= 1 (got ${describeValue(v)})`,
  ).default(8192),
  /** `Access-Control-Allow-Origin` value (`"*"` or one origin such as `https://example.com`); `false` sends no CORS headers. @default "*" */
  corsOrigin: refined<string | false>((v) =>
    v === false || v === "*" || (typeof v === "string" && ORIGIN.test(v))
      ? undefined
      : `must be "*", one origin such as "https://example.com" (scheme://host[:port], no path; an ASCII host, an international name in its xn-- form), or false (got ${describeValue(v)})`,
  ).default("*"),
  /**
   * Where errors (details of 500s) and per-request debug lines go; pino works. A logger that
   * throws is ignored ({@link safeLogger}): the answer never depends on it. @default silent
   */
  logger: refined<HandlerLogger>((v) => {
    const l = v as Record<string, unknown> | null;
    const missing = ["error", "warn", "info", "debug"].filter((k) => typeof l?.[k] !== "function");
    return missing.length === 0
      ? undefined
      : `must be a logger with error, warn, info and debug methods (missing ${missing.join(", ")})`;
  })
    .transform((l) => (l === silentLogger ? l : safeLogger(l)))
    .default(() => silentLogger),
  /** Wall clock in ms, for staleness and health checks (tests inject one). @default Date.now */
  now: refined<() => number>((v) =>
    typeof v === "function"
      ? undefined
      : `must be a function returning ms (got ${describeValue(v)})`,
  ).default(() => Date.now),
  /**
   * The Swagger UI files of the explorer page (`<basePath>/spec`), by name: `explorerAssets`
   * from `gasdigest/explorer-assets` (a module, so it works where there is no file system), or
   * your own. Without them the page answers 404 and names this option; the document stays at
   * `spec.json`. The node server and the Express, Fastify and Koa adapters read the package's own
   * copy of Swagger UI when it is left out; `false` turns the explorer off there too.
   * @default none (node server, Express, Fastify, Koa: the package's copy of Swagger UI)
   */
  explorerAssets: refined<ExplorerAssets | false>(checkExplorerAssets).optional(),
  /**
   * Record every request (route, status, time to answer) and serve the scrape at `metricsPath`:
   * `createMetrics()` of `gasdigest/metrics` (node, through prom-client), or any
   * {@link HandlerMetrics}. Adapters answer the scrape through `handler.respond()`.
   * @default none (no metrics)
   */
  metrics: refined<HandlerMetrics>((v) => {
    const m = v as Record<string, unknown> | null;
    const missing = ["observeRequest", "scrape"].filter((k) => typeof m?.[k] !== "function");
    return missing.length === 0
      ? undefined
      : `must be metrics with observeRequest and scrape methods, such as createMetrics() from "gasdigest/metrics" (missing ${missing.join(", ")})`;
  }).optional(),
  /**
   * Path of the metrics route, at the root of the mount point whatever `basePath` (as
   * `/spec.json`); `false` records requests without serving the scrape (serve it elsewhere, for
   * example on a port of its own). Only with `metrics`.
   * @default "/metrics"
   */
  metricsPath: refined<string | false>((v) => {
    if (!(v === false || (typeof v === "string" && v !== "/" && PATH.test(v))))
      return `must be a path such as "/metrics" (starts with "/", segments of URL path characters), or false (got ${describeValue(v)})`;
    // The handler removes dot segments before it looks a path up: such a route is never reached.
    if (typeof v === "string" && hasDotSegment(v))
      return `must have no "." or ".." segment: browsers and fetch resolve them away before they ask, so no client could reach the scrape (got ${describeValue(v)})`;
    return undefined;
  }).default("/metrics"),
};

/** Options of `createHandler` (and of every adapter). Every field has a default. */
export type HandlerOptions = z.input<z.ZodObject<typeof handlerOptionsShape>>;

/** {@link HandlerOptions} after validation, every default filled in, `basePath` normalised. */
export type ResolvedHandlerOptions = Readonly<
  Omit<z.output<z.ZodObject<typeof handlerOptionsShape>>, "explorerAssets"> & {
    /** The explorer's files; none (`false` or left out) turns the explorer off. */
    explorerAssets?: ExplorerAssets | undefined;
  }
>;

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
  const r = validateShape(handlerOptionsShape, input, (_fields, given) =>
    (given as HandlerOptions).metricsPath !== undefined &&
    (given as HandlerOptions).metrics === undefined
      ? [{ path: "metricsPath", message: "only applies with the metrics option" }]
      : [],
  );
  if (!r.ok) return r;
  const given = r.value.basePath;
  const basePath = given.endsWith("/") ? given.slice(0, -1) : given;
  const { metrics } = r.value;
  // `false` is the explorer off: as if no files were given (the node hosts' default is not).
  const explorerAssets = r.value.explorerAssets === false ? undefined : r.value.explorerAssets;
  return { ok: true, value: Object.freeze({ ...r.value, basePath, explorerAssets, metrics }) };
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
