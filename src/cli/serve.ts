import { parseArgs } from "node:util";
import { pino } from "pino";
import type { Observable } from "rxjs";
import {
  createServer,
  type GasdigestServer,
  listen,
  type NodeServerOptions,
} from "../adapters/node/index.js";
import type { BlockSample } from "../core/blockSample.js";
import { createEngine, type Engine } from "../core/createEngine.js";
import { BaseError } from "../core/errors.js";
import { loadIoredis } from "../sources/redis/connectRedis.js";
import { parseRedisUrl } from "../sources/redisStream.js";
import { APTOS_FLAGS, APTOS_FLAGS_USAGE, parseAptosFlags } from "./aptosFlags.js";
import { cliMetrics, METRICS_FLAGS, SERVE_METRICS_USAGE } from "./cliMetrics.js";
import { createLogLimiter, serverLogger } from "./createLogLimiter.js";
import { estimateFlags } from "./estimateFlags.js";
import { flagError, SOURCE_FLAG_NAMES } from "./flagErrors.js";
import { type CliIo, UsageError } from "./io.js";
import { loadStrategy } from "./loadStrategy.js";
import { logEngineEvents } from "./logEngineEvents.js";
import { type ServeSourceFlags, serveSource } from "./serveSource.js";
import {
  checkReadableFile,
  intFlag,
  parseSourceSpec,
  type SourceSpec,
  showSource,
  speedFlag,
} from "./sourceSpec.js";
import { untilStopped } from "./untilStopped.js";
import { watchStaleness } from "./watchStaleness.js";

export const SERVE_USAGE = `Usage: gasdigest serve [options]

Serves GET /v1/estimate_gas_price (JSON or BCS), /v1, /v1/-/healthy and the OpenAPI explorer
at /v1/spec from a source of blocks.

Options:
  --source SRC          sim (default: the simulated chain) | ndjson:PATH | aptos:URL |
                        redis://HOST:PORT[/DB] (a stream written by gasdigest publish)
  --strategy NAME       estimation strategy: aip34 (default), calibrated, tdigest, geth,
                        last-block, or a module file (./mine.js) exporting a strategy factory
  --config FILE.json    estimator configuration (see docs/configuration.md)
  --host HOST           interface to bind (default 127.0.0.1)
  --port PORT           TCP port (default 8080; 0 picks a free one)
  --seed N              simulator seed (default 1)
  --scenario NAME       simulator scenario: mixed (default), quiet, busy, spike, congested
  --interval-ms N       simulator block interval in ms (default 250; 0 = as fast as possible)
  --speed N             ndjson replay at N times the recorded pace (default: as fast as possible)
  --poll-ms N           aptos: wait between looks at the tip (default 500)
  --backfill N          aptos: blocks read back from the tip at start (default: what the
                        strategy needs, 121 for aip34, 2001 for calibrated)
  --stream KEY          redis: the stream key (default gasdigest:blocks)
  --warm-start-transactions N
                        redis: most transactions the warm start's blocks hold together
                        (default 5000000; blocks past it are not read at start)
  --header-prefix P     chain-state header prefix (default X-Aptos-)
  --base-path PATH      path of the routes (default /v1)
  --bcs-layout L        BCS estimate: full (Option<u64>, u64, Option<u64>; default) or
                        gas_estimate_only (the regular u64 alone, as some nodes answer)
  --formats LIST        estimate formats served: json,bcs (default), json, bcs, or none;
                        a format off answers 403
  --estimate-disabled   the estimate answers 403 api_disabled (ledger and health stay up)
  --max-staleness-ms N  503 health_check_failed when the newest block is older (default 30000;
                        0: never stale)
  --log-level LEVEL     fatal|error|warn|info|debug|trace|silent (default info; debug logs every request)

Limits (see docs/http.md):
  --max-connections N          connections open at once; then the longest idle (or stuck, or
                               slowest-arriving) one is closed, or the new one refused with
                               503 (default 256)
  --write-idle-timeout-ms N    destroy a connection whose client reads nothing of a pending
                               answer for N ms (default 10000)
  --max-body-size N            request body bytes; larger: 413 or closed (default 16384)
  --max-pipelined-requests N   pipelined requests parsed ahead of their answers (default 16)
  --max-header-size N          request head bytes (default 16384)
  --max-url-length N           request target bytes (default 8192)
  --keep-alive-timeout-ms N    idle keep-alive connections close after N ms (default 5000)
  --request-timeout-ms N       a request must arrive within N ms, else 408 (default 30000)
  --close-timeout-ms N         on SIGTERM/SIGINT, destroy what is still open after N ms
                               (default 10000; also the --metrics-port's, default 2000)

${SERVE_METRICS_USAGE}

${APTOS_FLAGS_USAGE}`;

const LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** The flags of the server limits: the option each sets, and its smallest value. */
const LIMIT_FLAGS = {
  "max-connections": ["maxConnections", 1],
  "write-idle-timeout-ms": ["writeIdleTimeout", 1],
  "max-body-size": ["maxBodySize", 0],
  "max-pipelined-requests": ["maxPipelinedRequests", 1],
  "max-header-size": ["maxHeaderSize", 1024],
  "max-url-length": ["maxUrlLength", 1],
  "keep-alive-timeout-ms": ["keepAliveTimeout", 1],
  "request-timeout-ms": ["requestTimeout", 1],
  "close-timeout-ms": ["closeTimeout", 0],
} as const satisfies Record<string, readonly [keyof NodeServerOptions, number]>;
type LimitFlag = keyof typeof LIMIT_FLAGS;
/** The server's and the sources' options set by serve's flags, for errors that name the flags. */
const SERVE_FLAG_NAMES: Readonly<Record<string, string>> = {
  ...SOURCE_FLAG_NAMES,
  ...Object.fromEntries(Object.entries(LIMIT_FLAGS).map(([flag, [option]]) => [option, flag])),
  headerPrefix: "header-prefix",
  basePath: "base-path",
  metricsPath: "metrics",
  host: "host",
  port: "port",
};

/** A running server, for tests and embedding. */
export interface ServeHandle {
  url: string;
  engine: Engine;
  /** Where the metrics are scraped (with --metrics or --metrics-port). */
  metricsUrl?: string;
  /** Graceful shutdown: stop accepting, finish in-flight requests, unsubscribe the source. */
  close(): Promise<void>;
}

/** Parse the flags, build the engine, connect the source and listen. */
export async function startServe(
  argv: string[],
  io: CliIo,
  step: (what: string) => void = () => undefined,
): Promise<ServeHandle> {
  const { values } = parseArgs({
    args: argv,
    options: {
      source: { type: "string", default: "sim" },
      strategy: { type: "string", default: "aip34" },
      config: { type: "string" },
      host: { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: "8080" },
      seed: { type: "string" },
      scenario: { type: "string" },
      "interval-ms": { type: "string" },
      speed: { type: "string" },
      "poll-ms": { type: "string" },
      backfill: { type: "string" },
      stream: { type: "string" },
      "warm-start-transactions": { type: "string" },
      "header-prefix": { type: "string" },
      "base-path": { type: "string" },
      "bcs-layout": { type: "string" },
      formats: { type: "string" },
      "estimate-disabled": { type: "boolean" },
      "max-staleness-ms": { type: "string" },
      "log-level": { type: "string", default: "info" },
      // Handled before parsing (serve()); listed so that `--help=1` is no "unknown option".
      help: { type: "boolean", short: "h" },
      ...METRICS_FLAGS,
      ...APTOS_FLAGS,
      ...(Object.fromEntries(
        Object.keys(LIMIT_FLAGS).map((flag) => [flag, { type: "string" }]),
      ) as Record<LimitFlag, { type: "string" }>),
    },
    strict: true,
    allowPositionals: false,
  });
  const level = values["log-level"];
  if (!LEVELS.includes(level))
    throw new UsageError(`--log-level must be one of ${LEVELS.join(", ")} (got "${level}")`);
  const port = intFlag("port", values.port, 0, 65535)!;
  const spec = parseSourceSpec(values.source);
  const speed = speedFlag(values.speed);
  if (spec.kind !== "sim")
    for (const flag of ["seed", "scenario", "interval-ms"] as const)
      if (values[flag] !== undefined)
        throw new UsageError(`--${flag} only applies to --source sim`);
  if (values.speed !== undefined && spec.kind !== "ndjson")
    throw new UsageError("--speed only applies to --source ndjson:PATH");
  for (const flag of ["poll-ms", "backfill"] as const)
    if (values[flag] !== undefined && spec.kind !== "aptos")
      throw new UsageError(`--${flag} only applies to --source aptos:URL`);
  for (const flag of ["stream", "warm-start-transactions"] as const)
    if (values[flag] !== undefined && spec.kind !== "redis")
      throw new UsageError(`--${flag} only applies to --source redis://HOST:PORT`);

  // A missing optional client is a usage problem: say so now, not as a source failure later.
  if (spec.kind === "redis") {
    step("loading ioredis");
    await loadIoredis();
  }
  // A file that cannot be read would only ever answer 503: refuse it now, as the offline
  // commands do (stat and access, not open: opening a FIFO waits for its writer).
  if (spec.kind === "ndjson") checkReadableFile(spec.path);
  step("loading the metrics");
  const makeMetrics = await cliMetrics(values);
  const log = pino({ level, base: { name: "gasdigest" } }, io.stdout);
  step(`loading the strategy ${JSON.stringify(values.strategy)}`);
  const { strategy, config, strategyName, windowBlocks, nodeBlocks } = await loadStrategy(
    values.strategy,
    values.config,
  );
  // 0 turns the check off: "stale the moment a block arrives" would only ever answer 503.
  const staleness = intFlag("max-staleness-ms", values["max-staleness-ms"], 0);
  const maxStalenessMs = staleness === 0 ? false : staleness;
  const limits: NodeServerOptions = {};
  for (const [flag, [option, min]] of Object.entries(LIMIT_FLAGS))
    limits[option] = intFlag(flag, values[flag as LimitFlag], min);
  const sourceFlags: ServeSourceFlags = {
    seed: intFlag("seed", values.seed, 0),
    scenario: values.scenario,
    intervalMs: intFlag("interval-ms", values["interval-ms"], 0, 86_400_000),
    speed,
    pollIntervalMs: intFlag("poll-ms", values["poll-ms"], 1, 3_600_000),
    aptos: parseAptosFlags(values, spec),
    stream: values.stream,
    warmStartTransactions: intFlag("warm-start-transactions", values["warm-start-transactions"], 1),
    windowBlocks,
    backfillBlocks: intFlag("backfill", values.backfill, 0) ?? nodeBlocks,
  };

  const engine = createEngine({ strategy, config });
  // Repeated warnings (bad lines, rejected blocks) are rate-limited and summarised.
  const limited = createLogLimiter(log);
  const stopEvents = logEngineEvents(engine, limited);
  let stopWatch: () => void = () => undefined;
  const stopLogging = () => {
    stopEvents();
    stopWatch();
    limited.stop();
  };
  // From here on, a failure must not leave the engine open.
  const abandon = () => {
    stopLogging();
    engine.close();
  };
  let server: GasdigestServer;
  let source$: Observable<BlockSample>;
  let metrics: ReturnType<NonNullable<typeof makeMetrics>> | undefined;
  try {
    const logger = serverLogger(log, limited);
    // The metrics port stops as the main port does: within --close-timeout-ms when given.
    metrics = makeMetrics?.({ engine, maxStalenessMs, logger, closeTimeout: limits.closeTimeout });
    server = createServer(engine, {
      ...limits,
      headerPrefix: values["header-prefix"],
      basePath: values["base-path"],
      ...estimateFlags(values["bcs-layout"], values.formats, values["estimate-disabled"]),
      maxStalenessMs,
      logger,
      metrics: metrics?.metrics,
      metricsPath: metrics?.ownPort ? false : undefined,
    });
    // Going stale and fresh again, by the server's own rule and threshold.
    stopWatch = watchStaleness(engine, log, server.handler.options.maxStalenessMs);
    sourceFlags.onEvent = metrics?.metrics.source(spec.kind);
    source$ = serveSource(spec, limited, sourceFlags);
  } catch (e) {
    abandon();
    throw flagError(e, SERVE_FLAG_NAMES);
  }
  let address: Awaited<ReturnType<typeof listen>>;
  try {
    step(`listening on ${values.host}:${port}`);
    address = await listen(server, { host: values.host, port });
  } catch (e) {
    abandon();
    const named = flagError(e, SERVE_FLAG_NAMES);
    if (named !== e) throw named;
    throw new BaseError(`cannot listen on ${values.host}:${port}: ${(e as Error).message}`);
  }
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const basePath = server.handler.options.basePath;
  const url = `http://${host}:${address.port}`;
  let metricsUrl: string | undefined;
  try {
    step("opening the metrics port");
    metricsUrl = metrics && ((await metrics.listen()) ?? `${url}/metrics`);
  } catch (e) {
    abandon();
    await server.shutdown();
    throw e;
  }
  engine.connect(source$);
  log.info(
    {
      url,
      estimate: `${url}${basePath}/estimate_gas_price`,
      explorer: `${url}${basePath}/spec`,
      metrics: metricsUrl,
      source: describeSource(spec),
      strategy: strategyName,
    },
    "gasdigest serving",
  );
  let closing: Promise<void> | undefined;
  return {
    url,
    engine,
    metricsUrl,
    close() {
      // The source stops with the drain: no block comes any more, so the newest one ageing
      // past --max-staleness-ms while connections drain is no outage to warn about.
      if (closing === undefined) stopWatch();
      closing ??= Promise.all([server.shutdown(), metrics?.close()]).then(() => {
        stopLogging();
        log.info({ counters: engine.counters() }, "gasdigest stopped");
      });
      return closing;
    },
  };
}

function describeSource(spec: SourceSpec): string {
  return spec.kind === "sim"
    ? "simulated chain"
    : spec.kind === "ndjson"
      ? `ndjson:${spec.path}`
      : spec.kind === "aptos"
        ? showSource(`aptos:${spec.url}`)
        : parseRedisUrl(spec.url).display;
}

/** `gasdigest serve`: runs until SIGINT or SIGTERM, then closes gracefully. */
export async function serve(argv: string[], io: CliIo): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout.write(`${SERVE_USAGE}\n`);
    return 0;
  }
  // Signals are handled from the start, as publish's: one during start-up (loading modules,
  // a strategy module, listening) stops the server as soon as it has started, or gives up a
  // start-up that has not finished 3 s later.
  return untilStopped(
    (step) => startServe(argv, io, step),
    (step, graceMs) =>
      io.stderr.write(
        `gasdigest serve: stopped before it had started: ${step} had not finished ${graceMs / 1000} s after the signal\n`,
      ),
  );
}

/** The `serve` command for the CLI's command table. */
export const serveCommand = { run: serve, usage: SERVE_USAGE };
