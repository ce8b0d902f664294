import type { Registry } from "prom-client";
import type { Engine } from "../core/createEngine.js";
import { describeValue } from "../core/describeValue.js";
import { InvalidConfigError } from "../core/errors.js";
import { hasMethods, openOptions, unknownFieldIssues } from "../core/readOptions.js";
import { REQUEST_DURATION_BUCKETS } from "./createRequestMetrics.js";

/** What the metrics read of an engine, at scrape time only. */
export type MetricsEngine = Pick<
  Engine,
  "snapshot" | "counters" | "strategyName" | "sourcesCompleted"
>;

/** Options of `createMetrics`. Every field has a default. */
export interface CreateMetricsOptions {
  /**
   * The engine whose blocks, estimate and promises are reported (read at scrape time). Leave it
   * out where there is none (a publisher): the feeds, publish outcomes, requests and process
   * metrics remain.
   * @default none
   */
  engine?: MetricsEngine | undefined;
  /**
   * The prom-client registry to register in: your application's, to serve gasdigest's metrics
   * with your own (prom-client is a peer dependency, so it is the same package).
   * @default a new Registry
   */
  registry?: Registry | undefined;
  /** Prefix of every gasdigest metric's name. @default "gasdigest_" */
  prefix?: string | undefined;
  /**
   * Also register prom-client's default process metrics (`collectDefaultMetrics`), collected once
   * per process and shared by every registry that takes them.
   * @default true
   */
  defaultMetrics?: boolean | undefined;
  /**
   * A source is `stale` when its newest block arrived longer ago than this (ms); `false`
   * never. Give it the handler's `maxStalenessMs`.
   * @default 30000
   */
  maxStalenessMs?: number | false | undefined;
  /**
   * Upper bounds (seconds, increasing) of the request duration histogram's buckets.
   * @default [0.00001, 0.000025, ..., 0.1, 0.25]
   */
  requestDurationBuckets?: readonly number[] | undefined;
  /** Wall clock in ms (tests inject one). @default Date.now */
  now?: (() => number) | undefined;
}

/** {@link CreateMetricsOptions} validated, defaults filled in. */
export interface ResolvedMetricsOptions {
  readonly engine: MetricsEngine | undefined;
  readonly registry: Registry | undefined;
  readonly prefix: string;
  readonly defaultMetrics: boolean;
  readonly maxStalenessMs: number | false;
  readonly requestDurationBuckets: readonly number[];
  readonly now: () => number;
}

const NAME_PREFIX = /^([a-zA-Z_:][a-zA-Z0-9_:]*)?$/;
const KEYS = [
  "engine",
  "registry",
  "prefix",
  "defaultMetrics",
  "maxStalenessMs",
  "requestDurationBuckets",
  "now",
];

/**
 * Validate `createMetrics` options, filling in defaults.
 *
 * @throws {InvalidConfigError} listing every issue (path + message).
 * @example
 * resolveMetricsOptions({ prefix: "chain_" }).prefix; // "chain_"
 */
export function resolveMetricsOptions(
  options: CreateMetricsOptions | null | undefined,
): ResolvedMetricsOptions {
  const opened = openOptions(options);
  if (opened.issue) throw new InvalidConfigError([opened.issue]);
  const input = opened.value as CreateMetricsOptions;
  const issues = unknownFieldIssues(input, KEYS);
  const bad = (path: string, message: string, value: unknown) =>
    issues.push({ path, message: `${message} (got ${describeValue(value)})` });
  const { engine, registry, prefix = "gasdigest_", defaultMetrics = true, now = Date.now } = input;
  const { maxStalenessMs = 30_000, requestDurationBuckets = REQUEST_DURATION_BUCKETS } = input;
  if (engine !== undefined && !hasMethods(engine, "snapshot", "counters"))
    bad("engine", "must be an engine made by createEngine()", engine);
  if (registry !== undefined && !hasMethods(registry, "metrics"))
    bad("registry", "must be a prom-client Registry", registry);
  if (typeof prefix !== "string" || !NAME_PREFIX.test(prefix))
    bad(
      "prefix",
      "must be empty or start a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)",
      prefix,
    );
  if (typeof defaultMetrics !== "boolean")
    bad("defaultMetrics", "must be true or false", defaultMetrics);
  if (
    maxStalenessMs !== false &&
    !(
      typeof maxStalenessMs === "number" &&
      Number.isSafeInteger(maxStalenessMs) &&
      maxStalenessMs >= 0
    )
  )
    bad("maxStalenessMs", "must be a whole number of milliseconds >= 0, or false", maxStalenessMs);
  const buckets = requestDurationBuckets as unknown;
  if (
    !Array.isArray(buckets) ||
    buckets.length === 0 ||
    buckets.some(
      (b, i) =>
        typeof b !== "number" || !(b > 0) || !Number.isFinite(b) || (i > 0 && b <= buckets[i - 1]),
    )
  )
    bad(
      "requestDurationBuckets",
      "must be a non-empty list of increasing positive numbers of seconds",
      buckets,
    );
  if (typeof now !== "function") bad("now", "must be a function returning ms", now);
  if (issues.length > 0) throw new InvalidConfigError(issues);
  return Object.freeze({
    engine,
    registry,
    prefix,
    defaultMetrics,
    maxStalenessMs,
    requestDurationBuckets: Object.freeze([...requestDurationBuckets]),
    now,
  });
}
