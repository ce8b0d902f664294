import {
  Counter,
  collectDefaultMetrics,
  Gauge,
  type Metric,
  type MetricObject,
  Registry,
} from "prom-client";
import { describeValue } from "../core/describeValue.js";
import { BaseError, InvalidArgumentError, InvalidConfigError } from "../core/errors.js";
import { U64_MAX } from "../core/u64.js";
import type { HandlerMetrics } from "../http/types.js";
import { createRequestMetrics } from "./createRequestMetrics.js";
import { type CreateMetricsOptions, resolveMetricsOptions } from "./options.js";
import { registerEngineMetrics } from "./registerEngineMetrics.js";
import { type FeedListener, type FeedProbe, registerFeedMetrics } from "./registerFeedMetrics.js";

/** What became of a block at a sink (a `RedisPublishResult`), or blocks it dropped. */
export type PublishOutcome = "published" | "already_published" | "refused" | "skipped" | "dropped";

const PUBLISH_OUTCOMES: readonly PublishOutcome[] = [
  "published",
  "already_published",
  "refused",
  "skipped",
  "dropped",
];

/** The metrics of one gasdigest process, in a prom-client registry. */
export interface GasdigestMetrics extends HandlerMetrics {
  /** The registry holding every metric (yours, when given). */
  readonly registry: Registry;
  /**
   * Declare a source by kind (`aptos`, `redis`, `ndjson`, `sim`, ...) and get the listener of
   * its events: give it as the source's `onEvent` (aptosRest, redisStream), or call it from
   * yours; call it with `{ type: "rejected" }` for an invalid line or entry. With an engine, the
   * source's newest block and completion are read from the engine.
   * @throws {InvalidArgumentError} `kind` is not a non-empty string, or a source of that kind is
   *   declared already (its state series is one per kind: name two of a kind apart, `aptos-a`
   *   and `aptos-b`).
   */
  source(kind: string, probe?: FeedProbe): FeedListener;
  /**
   * Declare a sink by kind (`redis`) and get the listener of its events (redisStreamSink's
   * `onEvent`): its connection state, retries, and the blocks it `dropped`.
   * @throws {InvalidArgumentError} `kind` is not a non-empty string, or a sink of that kind is
   *   declared already. Its listener throws it for a `dropped` event whose `count` is not a
   *   whole number >= 0 (nothing is counted).
   */
  sink(kind: string, probe?: FeedProbe): FeedListener;
  /**
   * Count one result of a sink (what `redisStreamSink` emits for each block).
   * @throws {InvalidArgumentError} `outcome` is not one of the {@link PublishOutcome}s, or
   *   `height` is not a u64 bigint.
   */
  published(result: { readonly outcome: PublishOutcome; readonly height: bigint }): void;
  /**
   * Remove every metric this created from the registry, so the registry no longer reaches the
   * engine (an application that makes an engine and its metrics again, on a reload or per
   * tenant, frees the old ones) and `createMetrics` may be called on it again. Requests observed
   * afterwards are ignored; `source`, `sink` and `published` throw. prom-client's default
   * metrics are taken out of the registry too; they are collected once per process and shared
   * by every `createMetrics`, so they stay collected. Idempotent.
   */
  close(): void;
}

/**
 * prom-client's default process metrics, collected once per process (and registry content type)
 * into a registry of their own, and registered in every registry that takes them. Each
 * `collectDefaultMetrics` call starts a GC observer and an event loop delay monitor that nothing
 * can stop: one per `createMetrics`, a process that made and closed 1,000 (tests, reloads, an
 * engine per tenant) kept 1,000 of each, and an allocating workload took 2.6 times as long.
 * One set per content type: an OpenMetrics registry renames its counters for good when it is
 * scraped (`process_cpu_user_seconds_total` becomes `process_cpu_user_seconds`), which a text
 * format registry sharing them would then serve.
 */
const processMetrics = new Map<string, readonly { name: string; metric: Metric }[]>();
function processMetricsFor(registry: Registry): readonly { name: string; metric: Metric }[] {
  let set = processMetrics.get(registry.contentType);
  if (set === undefined) {
    const own = new Registry(); // never scraped: only holds them
    collectDefaultMetrics({ register: own });
    // Their names now: a scrape of an OpenMetrics registry may change them later.
    set = own.getMetricsAsArray().map((m) => ({ name: m.name, metric: m as unknown as Metric }));
    processMetrics.set(registry.contentType, set);
  }
  return set;
}

/**
 * The Prometheus metrics of gasdigest, through prom-client (an optional peer dependency, node
 * only): the engine's blocks, newest height and age, estimate per tier and promises (read at
 * scrape time), the sources' and sinks' states, publish outcomes, HTTP requests by route and
 * status with a latency histogram, and prom-client's default process metrics. Give it to an
 * adapter as its `metrics` option; the scrape is served at `/metrics` (docs/operations.md lists
 * every metric).
 *
 * @throws {InvalidConfigError} listing every invalid option.
 * @example
 * import { aptosRest, createServer, listen } from "gasdigest/node";
 * import { createMetrics } from "gasdigest/metrics";
 * const metrics = createMetrics({ engine });
 * engine.connect(aptosRest(url, { onEvent: metrics.source("aptos") }));
 * await listen(createServer(engine, { metrics }), { port: 8080 }); // GET /metrics
 */
export function createMetrics(options: CreateMetricsOptions = {}): GasdigestMetrics {
  const o = resolveMetricsOptions(options);
  const registry = o.registry ?? new Registry();
  // No closure below reads `o` (it holds the engine, which close() lets go of).
  const { prefix, now, requestDurationBuckets, maxStalenessMs } = o;
  let engine = o.engine;
  // The metrics this call registered (by name): what close() removes, and nothing else.
  const owned = new Set<string>();
  const names = () => new Set(registry.getMetricsAsArray().map((m) => m.name));
  const own = <T>(register: () => T): T => {
    const before = names();
    try {
      return register();
    } finally {
      for (const name of names()) if (!before.has(name)) owned.add(name);
    }
  };
  let closed = false;
  const open = (what: string) => {
    if (closed) throw new BaseError(`cannot ${what}: the metrics are closed`);
  };
  // prom-client's own refusal names one metric, not what to change.
  if (registry.getSingleMetric(`${prefix}http_requests_total`) !== undefined)
    throw new InvalidConfigError([
      {
        path: "registry",
        message: `the registry already holds gasdigest's metrics under prefix "${prefix}" (createMetrics was called twice on it); share that one createMetrics between handlers, or give this one another prefix or registry`,
      },
    ]);
  if (o.defaultMetrics) {
    const shared = processMetricsFor(registry);
    // Refused before any is registered: a partial set would stay behind in the registry.
    const held = shared.find(
      ({ name, metric }) =>
        registry.getSingleMetric(name) !== undefined ||
        registry.getSingleMetric((metric as unknown as MetricObject).name) !== undefined,
    );
    if (held !== undefined)
      throw new InvalidConfigError([
        {
          path: "defaultMetrics",
          message: `the registry already holds prom-client's default metrics (${held.name}); pass defaultMetrics: false`,
        },
      ]);
    for (const { metric } of shared) {
      registry.registerMetric(metric);
      owned.add((metric as unknown as MetricObject).name); // its key in the registry
    }
  }
  let requests: ReturnType<typeof createRequestMetrics>;
  try {
    requests = own(() => createRequestMetrics(registry, prefix, requestDurationBuckets));
    if (engine !== undefined) {
      const e = engine;
      own(() => registerEngineMetrics(registry, prefix, e, now));
    }
  } catch (cause) {
    // A name of the registry's own (prom-client refuses it): take back what was registered,
    // which, left there, would hold the engine and make every later createMetrics refuse.
    for (const name of owned) registry.removeSingleMetric(name);
    throw new InvalidConfigError([
      {
        path: "registry",
        message: `the registry holds a metric of one of gasdigest's names (${(cause as Error).message}); give this one another prefix or registry`,
      },
    ]);
  }

  const feedOptions = { now, maxStalenessMs };
  let trackSource: ReturnType<typeof registerFeedMetrics> | undefined;
  let trackSink: ReturnType<typeof registerFeedMetrics> | undefined;
  let publish: { blocks: Counter<"outcome">; height: Gauge } | undefined;
  let lastPublishedMs: number | undefined;

  function publishMetrics() {
    if (publish) return publish;
    return own(makePublishMetrics);
  }
  function makePublishMetrics() {
    const blocks = new Counter({
      name: `${prefix}publish_blocks_total`,
      help: "Blocks handed to the sink, by outcome: published, already_published (Redis held the height: another publisher was first), refused (Redis refused it and does not hold it: the stream went past that height), skipped (height 0), dropped (waited too long for Redis).",
      labelNames: ["outcome"],
      registers: [registry],
    });
    for (const outcome of PUBLISH_OUTCOMES) blocks.inc({ outcome }, 0);
    const height = new Gauge({
      name: `${prefix}publish_height`,
      help: "Height of the newest block the sink wrote or found already written.",
      registers: [registry],
    });
    height.remove(); // no sample before the first block (prom-client starts it at 0)
    publish = { blocks, height };
    return publish;
  }

  return {
    registry,
    observeRequest(route, status, seconds) {
      if (!closed) requests.observe(route, status, seconds);
    },
    declareRoutes: requests.declare,
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    source(kind, probe) {
      open("declare a source");
      trackSource ??= own(() => registerFeedMetrics(registry, prefix, "source", feedOptions));
      return trackSource(
        kind,
        probe ??
          (engine && {
            newestBlockMs: () => engine?.snapshot()?.receivedAtMs,
            completed: () => engine?.sourcesCompleted === true,
          }),
      );
    },
    sink(kind, probe) {
      open("declare a sink");
      trackSink ??= own(() => registerFeedMetrics(registry, prefix, "sink", feedOptions));
      const listener = trackSink(kind, probe ?? { newestBlockMs: () => lastPublishedMs });
      const { blocks } = publishMetrics();
      return (event) => {
        const count = event.type === "dropped" ? (event as { count?: unknown }).count : undefined;
        // Checked before anything is counted: a count of NaN made the counter NaN for good (every
        // later `increase()` NaN, its alert silent), and prom-client's own refusals name no field.
        if (count !== undefined && !(Number.isSafeInteger(count) && (count as number) >= 0))
          throw new InvalidArgumentError([
            {
              path: "count",
              message: `must be a whole number of blocks >= 0 (got ${describeValue(count)})`,
            },
          ]);
        listener(event);
        if (count !== undefined) blocks.inc({ outcome: "dropped" }, count as number);
      };
    },
    published({ outcome, height }) {
      open("count a published block");
      // An outcome of no label value would start a series of its own.
      if (!PUBLISH_OUTCOMES.includes(outcome))
        throw new InvalidArgumentError([
          {
            path: "outcome",
            message: `must be one of ${PUBLISH_OUTCOMES.join(", ")} (got ${describeValue(outcome)})`,
          },
        ]);
      // A height that is not one (undefined, a string) was exported as `NaN`, a negative one as is.
      if (typeof height !== "bigint" || height < 0n || height > U64_MAX)
        throw new InvalidArgumentError([
          {
            path: "height",
            message: `must be a block height, a bigint from 0 to ${U64_MAX} (got ${describeValue(height)})`,
          },
        ]);
      const p = publishMetrics();
      p.blocks.inc({ outcome });
      // Progress is a block in the stream: not one skipped, dropped or refused.
      if (outcome !== "published" && outcome !== "already_published") return;
      lastPublishedMs = now();
      p.height.set(Number(height));
    },
    close() {
      if (closed) return;
      closed = true;
      for (const name of owned) registry.removeSingleMetric(name);
      owned.clear();
      engine = undefined;
    },
  };
}
