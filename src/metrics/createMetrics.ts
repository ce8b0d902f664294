import { Counter, collectDefaultMetrics, Gauge, Registry } from "prom-client";
import { BaseError, InvalidConfigError } from "../core/errors.js";
import type { HandlerMetrics } from "../http/types.js";
import { createRequestMetrics } from "./createRequestMetrics.js";
import { type CreateMetricsOptions, resolveMetricsOptions } from "./options.js";
import { registerEngineMetrics } from "./registerEngineMetrics.js";
import { type FeedListener, type FeedProbe, registerFeedMetrics } from "./registerFeedMetrics.js";

/** What became of a block at a sink (a `RedisPublishResult`), or blocks it dropped. */
export type PublishOutcome = "published" | "already_published" | "refused" | "skipped" | "dropped";

/** The metrics of one gasdigest process, in a prom-client registry. */
export interface GasdigestMetrics extends HandlerMetrics {
  /** The registry holding every metric (yours, when given). */
  readonly registry: Registry;
  /**
   * Declare a source by kind (`aptos`, `redis`, `ndjson`, `sim`, ...) and get the listener of
   * its events: give it as the source's `onEvent` (aptosRest, redisStream), or call it from
   * yours; call it with `{ type: "rejected" }` for an invalid line or entry. With an engine, the
   * source's newest block and completion are read from the engine.
   * @throws {InvalidArgumentError} a source of that kind is declared already (its state series
   *   is one per kind: name two of a kind apart, `aptos-a` and `aptos-b`).
   */
  source(kind: string, probe?: FeedProbe): FeedListener;
  /**
   * Declare a sink by kind (`redis`) and get the listener of its events (redisStreamSink's
   * `onEvent`): its connection state, retries, and the blocks it `dropped`.
   * @throws {InvalidArgumentError} a sink of that kind is declared already.
   */
  sink(kind: string, probe?: FeedProbe): FeedListener;
  /** Count one result of a sink (what `redisStreamSink` emits for each block). */
  published(result: { readonly outcome: PublishOutcome; readonly height: bigint }): void;
  /**
   * Remove every metric this created from the registry, so the registry no longer reaches the
   * engine (an application that makes an engine and its metrics again, on a reload or per
   * tenant, frees the old ones) and `createMetrics` may be called on it again. Requests observed
   * afterwards are ignored; `source`, `sink` and `published` throw. prom-client's default
   * metrics stay collected for the life of the process (prom-client cannot stop them): make them
   * once, in a registry of your own, or pass `defaultMetrics: false`. Idempotent.
   */
  close(): void;
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
 * import { createServer, listen } from "gasdigest/node";
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
    try {
      own(() => collectDefaultMetrics({ register: registry }));
    } catch (cause) {
      throw new InvalidConfigError([
        {
          path: "defaultMetrics",
          message: `the registry already holds prom-client's default metrics; pass defaultMetrics: false (${(cause as Error).message})`,
        },
      ]);
    }
  }
  const requests = own(() => createRequestMetrics(registry, prefix, requestDurationBuckets));
  if (engine !== undefined) {
    const e = engine;
    own(() => registerEngineMetrics(registry, prefix, e, now));
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
    for (const outcome of ["published", "already_published", "refused", "skipped", "dropped"])
      blocks.inc({ outcome }, 0);
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
        listener(event);
        if (event.type === "dropped")
          blocks.inc({ outcome: "dropped" }, (event as { count?: number }).count ?? 0);
      };
    },
    published({ outcome, height }) {
      open("count a published block");
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
