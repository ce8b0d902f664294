import { describeValue } from "../core/describeValue.js";
import { InvalidConfigError, type ValidationIssue } from "../core/errors.js";
import { limitIssue } from "../core/maxTimerMs.js";
import { hasMethods, openOptions, unknownFieldIssues } from "../core/readOptions.js";
import type { HandlerLogger, HandlerMetrics } from "../http/types.js";

/** Options of `createMetricsServer`. Every field has a default. */
export interface MetricsServerOptions {
  /** Path of the scrape; every other path answers 404. @default "/metrics" */
  path?: string | undefined;
  /**
   * Connections open at once (Prometheus uses one per target). A connection past it takes the
   * place of the one without a request in progress for the longest (kept alive, or its request
   * head still arriving); it is refused only while every one has a request in progress. @default 16
   */
  maxConnections?: number | undefined;
  /** A request must arrive completely within this many ms, else 408. @default 10000 */
  requestTimeout?: number | undefined;
  /** Idle keep-alive connections are closed after this many ms. @default 5000 */
  keepAliveTimeout?: number | undefined;
  /** `shutdown()` destroys connections still open this many ms after it was called. @default 2000 */
  closeTimeout?: number | undefined;
  /**
   * A connection with an answer waiting to be sent, whose client has read nothing of it for this
   * many ms, is destroyed: 16 clients that stop reading would otherwise hold every connection,
   * and Prometheus would find the port full for as long as they liked. @default 10000
   */
  writeIdleTimeout?: number | undefined;
  /**
   * Where a failed scrape is reported (`logger.error({ err }, "collecting the metrics failed")`,
   * as the handler does); pino fits. @default none: the scrape answers 500 and nothing is logged
   */
  logger?: Pick<HandlerLogger, "error"> | undefined;
}

const PATH = /^(\/[A-Za-z0-9._~!$&'()*+,;=:@-]+)+$/;
const LIMITS = {
  maxConnections: [16, 1],
  requestTimeout: [10_000, 1],
  keepAliveTimeout: [5_000, 1],
  closeTimeout: [2_000, 0],
  writeIdleTimeout: [10_000, 1],
} as const;

/**
 * The options of `createMetricsServer`, checked and with their defaults.
 *
 * @throws {InvalidConfigError} listing every invalid option (and `metrics` if it is not metrics).
 */
export function parseMetricsServerOptions(
  metrics: HandlerMetrics,
  given: MetricsServerOptions | null,
) {
  const issues: ValidationIssue[] = [];
  if (!hasMethods(metrics, "scrape", "observeRequest"))
    issues.push({
      path: "metrics",
      message: `must be metrics with observeRequest and scrape methods, such as createMetrics() (got ${describeValue(metrics)})`,
    });
  const opened = openOptions(given);
  if (opened.issue) throw new InvalidConfigError([...issues, opened.issue]);
  const options = opened.value as MetricsServerOptions;
  const path = options.path ?? "/metrics";
  if (typeof path !== "string" || !PATH.test(path))
    issues.push({
      path: "path",
      message: `must be a path such as "/metrics" (got ${describeValue(path)})`,
    });
  const limits = {} as Record<keyof typeof LIMITS, number>;
  for (const [key, [fallback, min]] of Object.entries(LIMITS) as [
    keyof typeof LIMITS,
    readonly [number, number],
  ][]) {
    const v = options[key] ?? fallback;
    const issue = limitIssue(key, v, min);
    if (issue) issues.push(issue);
    else limits[key] = v as number;
  }
  const logger = options.logger;
  if (logger !== undefined && !hasMethods(logger, "error"))
    issues.push({
      path: "logger",
      message: `must be a logger with an error method, such as pino() (got ${describeValue(logger)})`,
    });
  issues.push(...unknownFieldIssues(options, ["path", "logger", ...Object.keys(LIMITS)]));
  if (issues.length > 0) throw new InvalidConfigError(issues);
  return { path, limits, logger };
}
