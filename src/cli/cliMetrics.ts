import type { AddressInfo } from "node:net";
import { listen } from "../adapters/node/listen.js";
import { BaseError } from "../core/errors.js";
import type { HandlerLogger } from "../http/types.js";
import type { GasdigestMetrics, MetricsEngine, MetricsServer } from "../metrics.js";
import { UsageError } from "./io.js";
import { intFlag } from "./sourceSpec.js";

/** The metrics flags of `serve` (all three) and `publish` (the port and host). */
export const METRICS_FLAGS = {
  metrics: { type: "boolean" },
  "metrics-port": { type: "string" },
  "metrics-host": { type: "string" },
} as const;

export const SERVE_METRICS_USAGE = `Metrics (Prometheus text, through the prom-client package; docs/operations.md):
  --metrics              serve GET /metrics on the main port
  --metrics-port N       serve it on this port instead (0 picks a free one); the main port
                         then answers 404 for /metrics (implies --metrics)
  --metrics-host HOST    interface of --metrics-port (default 127.0.0.1)`;

export const PUBLISH_METRICS_USAGE = `  --metrics-port N      serve Prometheus metrics at GET /metrics on this port (needs the
                        prom-client package; 0 picks a free one)
  --metrics-host HOST   interface of --metrics-port (default 127.0.0.1)`;

/** The metrics of a command, and their own port when asked for. */
export interface CliMetrics {
  readonly metrics: GasdigestMetrics;
  /** Whether the scrape is served on its own port (the main handler then serves none). */
  readonly ownPort: boolean;
  /** Start the metrics port, if any; resolves with the scrape URL it serves. */
  listen(): Promise<string | undefined>;
  /** Stop the metrics port, if any. */
  close(): Promise<void>;
}

/** The parsed metrics flags: undefined when metrics are off. */
export interface MetricsFlags {
  metrics?: boolean;
  "metrics-port"?: string;
  "metrics-host"?: string;
}

/**
 * Read the metrics flags and, when they turn metrics on, load `gasdigest/metrics` (so
 * prom-client, an optional peer dependency, is loaded only then). Resolves with the function
 * that makes the command's metrics, or `undefined` when metrics are off.
 *
 * @throws {UsageError} for `--metrics-host` without `--metrics-port` or empty, or a bad port.
 * @throws {BaseError} when prom-client is not installed, saying how to install it.
 * @example
 * const makeMetrics = await cliMetrics(values); // early: a missing package fails before anything starts
 * const cli = makeMetrics?.({ engine, maxStalenessMs });
 */
export async function cliMetrics(flags: MetricsFlags): Promise<
  | ((options: {
      engine?: MetricsEngine;
      maxStalenessMs?: number | false;
      /** Where the metrics port reports a failed scrape. */
      logger?: Pick<HandlerLogger, "error">;
      /** The metrics port's `closeTimeout` (`serve --close-timeout-ms`); its own default without. */
      closeTimeout?: number;
    }) => CliMetrics)
  | undefined
> {
  const port = intFlag("metrics-port", flags["metrics-port"], 0, 65535);
  const host = flags["metrics-host"] ?? "127.0.0.1";
  if (flags["metrics-host"] !== undefined && port === undefined)
    throw new UsageError("--metrics-host only applies with --metrics-port");
  // Named as the flag, as --host is (the metrics server's own check would name its option).
  if (host === "") throw new UsageError('--metrics-host must be a non-empty string (got "")');
  if (!flags.metrics && port === undefined) return undefined;
  const { createMetrics, createMetricsServer } = await loadMetricsModule();
  return (options) => {
    const { logger, closeTimeout, ...metricsOptions } = options;
    const metrics = createMetrics(metricsOptions);
    let server: MetricsServer | undefined;
    return {
      metrics,
      ownPort: port !== undefined,
      async listen() {
        if (port === undefined) return undefined;
        server = createMetricsServer(metrics, {
          ...(logger ? { logger } : {}),
          ...(closeTimeout === undefined ? {} : { closeTimeout }),
        });
        let address: AddressInfo;
        try {
          address = await listen(server, { host, port });
        } catch (e) {
          throw new BaseError(
            `cannot listen on ${host}:${port} (--metrics-port): ${(e as Error).message}`,
          );
        }
        const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
        return `http://${shown}:${address.port}/metrics`;
      },
      close: () => server?.shutdown() ?? Promise.resolve(),
    };
  };
}

/** `gasdigest/metrics`, or a clear error when its peer dependency prom-client is missing. */
async function loadMetricsModule(): Promise<typeof import("../metrics.js")> {
  try {
    return await import("../metrics.js");
  } catch (cause) {
    if (
      (cause as { code?: string }).code === "ERR_MODULE_NOT_FOUND" &&
      String((cause as Error).message).includes("prom-client")
    )
      throw new BaseError("metrics need the prom-client package, which is not installed", {
        details: "install it next to gasdigest: npm install prom-client",
        cause,
      });
    throw cause;
  }
}
