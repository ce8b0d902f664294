import type { Registry } from "prom-client";

/** The default upper bounds (seconds) of the request duration histogram: 10 µs to 0.25 s. */
export const REQUEST_DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
  0.25,
]);

/** Routes recorded apart at most; requests of any further route are recorded as `other`. */
const MAX_ROUTES = 64;
/** The route label of requests past {@link MAX_ROUTES} (it holds the last slot). */
const OTHER = "other";
/** Statuses are counted in an array indexed by status (100..599); others are counted as 0. */
const STATUS_SLOTS = 600;
/**
 * Statuses whose series every known route reports from the start, at 0 until they happen, so
 * that `rate()` and `increase()` see the first one (an error-ratio alert sees the first 5xx).
 */
const ZERO_STATUSES: readonly number[] = [200, 500, 503];

/** The running totals of one route. */
interface RouteTotals {
  /** Requests by status (index = status). */
  readonly statuses: Float64Array;
  /** Requests by bucket, not cumulative; the last slot is above the largest bound (+Inf). */
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

/** One sample of a metric, as prom-client's registry reads it from `get()`. */
interface Sample {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

/** What the HTTP request metrics record on the request path. */
export interface RequestMetrics {
  /** One answered request (the handler's `observeRequest`): a few array writes, no allocation. */
  observe(route: string, status: number, seconds: number): void;
  /** Routes a handler can report (the handler's `declareRoutes`): their series start at 0. */
  declare(routes: readonly string[]): void;
}

/**
 * `gasdigest_http_requests_total{route,status}` and the histogram
 * `gasdigest_http_request_duration_seconds{route}`, registered in `registry`.
 *
 * Requests are counted in plain arrays (about 20 ns a request) and turned into samples only at
 * scrape time: prom-client's own `inc`/`observe` hash their labels on every call (about 1 µs
 * each here), which would cost the estimate route several percent of its throughput. The two
 * metrics are objects that prom-client reads like its own (`get()`: name, help, type, samples),
 * so `registry.metrics()`, `getMetricsAsJSON()` and `Registry.merge` see them as usual.
 *
 * @example
 * const requests = createRequestMetrics(registry, "gasdigest_", REQUEST_DURATION_BUCKETS);
 * requests.observe("/v1/estimate_gas_price", 200, 0.00002);
 */
export function createRequestMetrics(
  registry: Registry,
  prefix: string,
  bounds: readonly number[],
): RequestMetrics {
  const routes = new Map<string, RouteTotals>();
  const upper = Float64Array.from(bounds);

  function totals(route: string): RouteTotals {
    let t = routes.get(route);
    if (t === undefined) {
      // The last slot is kept for `other`, so it always finds one.
      if (route !== OTHER && routes.size >= MAX_ROUTES - 1) return totals(OTHER);
      t = {
        statuses: new Float64Array(STATUS_SLOTS),
        buckets: new Float64Array(upper.length + 1),
        sum: 0,
        count: 0,
      };
      routes.set(route, t);
    }
    return t;
  }

  function observe(route: string, status: number, seconds: number) {
    const t = routes.get(route) ?? totals(route);
    t.statuses[status >= 100 && status < STATUS_SLOTS ? status : 0]!++;
    // NaN, negative or infinite: counted, not timed (an infinite one made the sum +Inf for good,
    // and every `rate()` of it NaN).
    if (!(seconds >= 0 && seconds < Number.POSITIVE_INFINITY)) return;
    let i = 0;
    while (i < upper.length && seconds > upper[i]!) i++;
    t.buckets[i]!++;
    t.sum += seconds;
    t.count++;
  }

  const requestsName = `${prefix}http_requests_total`;
  const durationName = `${prefix}http_request_duration_seconds`;

  function requestSamples(): Sample[] {
    const out: Sample[] = [];
    for (const [route, t] of routes)
      for (let status = 0; status < STATUS_SLOTS; status++) {
        const n = t.statuses[status]!;
        if (n > 0 || ZERO_STATUSES.includes(status))
          out.push({ value: n, labels: { route, status: String(status) } });
      }
    return out;
  }

  function durationSamples(): Sample[] {
    const out: Sample[] = [];
    const bucket = `${durationName}_bucket`;
    for (const [route, t] of routes) {
      if (t.count === 0) continue; // a declared route not requested yet: its counter says so
      let cumulative = 0;
      for (let i = 0; i < upper.length; i++) {
        cumulative += t.buckets[i]!;
        out.push({ value: cumulative, labels: { le: upper[i]!, route }, metricName: bucket });
      }
      out.push({ value: t.count, labels: { le: "+Inf", route }, metricName: bucket });
      out.push({ value: t.sum, labels: { route }, metricName: `${durationName}_sum` });
      out.push({ value: t.count, labels: { route }, metricName: `${durationName}_count` });
    }
    return out;
  }

  registerComputed(registry, {
    name: requestsName,
    help: "HTTP requests answered by the handler, by route (the route's configured path, or unmatched) and status.",
    type: "counter",
    samples: requestSamples,
    reset: () => routes.clear(),
  });
  registerComputed(registry, {
    name: durationName,
    help: "Seconds the handler took to answer a request (routing, negotiation, encoding; for the metrics route, the scrape), by route. Excludes the network and the host framework.",
    type: "histogram",
    samples: durationSamples,
    reset: () => routes.clear(),
  });
  function declare(declared: readonly string[]) {
    if (!Array.isArray(declared)) return;
    for (const route of declared) if (typeof route === "string") totals(route);
  }

  return { observe, declare };
}

/** A metric whose samples are computed at scrape time. */
interface Computed {
  name: string;
  help: string;
  type: "counter" | "histogram";
  samples: () => Sample[];
  reset: () => void;
}

/**
 * Register a metric object that prom-client's registry reads through `get()`, the way it reads
 * its own metrics (`registry.metrics()` formats what `get()` returns; `resetMetrics()` calls
 * `reset()`). prom-client types `registerMetric` with its four classes, hence the cast.
 */
function registerComputed(registry: Registry, c: Computed) {
  const metric = {
    name: c.name,
    help: c.help,
    type: c.type,
    aggregator: "sum" as const,
    collect: undefined,
    async get() {
      return {
        name: metric.name,
        help: c.help,
        type: c.type,
        values: c.samples(),
        aggregator: "sum" as const,
      };
    },
    reset: c.reset,
  };
  registry.registerMetric(metric as unknown as Parameters<Registry["registerMetric"]>[0]);
}
