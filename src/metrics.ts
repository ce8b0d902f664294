// gasdigest/metrics: Prometheus metrics through prom-client (docs/operations.md#metrics). Node
// only; needs the optional peer dependency `prom-client`, which this module imports: load it
// only where metrics are turned on (`gasdigest serve --metrics` imports it then). The handler
// and the adapters take any `HandlerMetrics` (a type exported by the root), so they never load it.

export type { HandlerMetrics, MetricsScrape } from "./http/types.js";
export {
  createMetrics,
  type GasdigestMetrics,
  type PublishOutcome,
} from "./metrics/createMetrics.js";
export {
  createMetricsServer,
  type MetricsServer,
} from "./metrics/createMetricsServer.js";
export { REQUEST_DURATION_BUCKETS } from "./metrics/createRequestMetrics.js";
export type { MetricsServerOptions } from "./metrics/metricsServerOptions.js";
export type { CreateMetricsOptions, MetricsEngine } from "./metrics/options.js";
export {
  FEED_STATES,
  type FeedListener,
  type FeedProbe,
  type FeedState,
} from "./metrics/registerFeedMetrics.js";
