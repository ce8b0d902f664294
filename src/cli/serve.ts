import { parseArgs } from "node:util";
import { pino } from "pino";
import type { Observable } from "rxjs";
import { createServer, type GasdigestServer, listen } from "../adapters/node/index.js";
import type { BlockSample } from "../core/blockSample.js";
import { createEngine, type Engine } from "../core/createEngine.js";
import { formatIssues } from "../core/errors.js";
import {
  type AptosRestOptions,
  aptosRest,
  aptosRestEventFields,
  describeAptosRestEvent,
} from "../sources/aptosRest.js";
import { ndjsonFile } from "../sources/ndjsonFile.js";
import { simulator } from "../sources/simulator.js";
import { APTOS_FLAGS, APTOS_FLAGS_USAGE, parseAptosFlags } from "./aptosFlags.js";
import { type CliIo, UsageError } from "./io.js";
import { loadStrategy } from "./loadStrategy.js";
import { logEngineEvents } from "./logEngineEvents.js";
import { intFlag, parseSourceSpec, type SourceSpec } from "./sourceSpec.js";

export const SERVE_USAGE = `Usage: gasdigest serve [options]

Serves GET /v1/estimate_gas_price (JSON or BCS), /v1, /v1/-/healthy and the OpenAPI explorer
at /v1/spec from a source of blocks.

Options:
  --source SRC          sim (default: the simulated chain) | ndjson:PATH | aptos:URL
  --strategy NAME       estimation strategy (default aip34)
  --config FILE.json    estimator configuration (see docs/configuration.md)
  --host HOST           interface to bind (default 127.0.0.1)
  --port PORT           TCP port (default 8080; 0 picks a free one)
  --seed N              simulator seed (default 1)
  --scenario NAME       simulator scenario: mixed (default), quiet, busy, spike
  --interval-ms N       simulator block interval in ms (default 250; 0 = as fast as possible)
  --speed N             ndjson replay at N times the recorded pace (default: as fast as possible)
  --poll-ms N           aptos: wait between looks at the tip (default 500)
${APTOS_FLAGS_USAGE}
  --header-prefix P     chain-state header prefix (default X-Aptos-)
  --base-path PATH      path of the routes (default /v1)
  --max-staleness-ms N  503 health_check_failed when the newest block is older (default 30000)
  --log-level LEVEL     fatal|error|warn|info|debug|trace|silent (default info; debug logs every request)`;

const LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** A running server, for tests and embedding. */
export interface ServeHandle {
  url: string;
  engine: Engine;
  /** Graceful shutdown: stop accepting, finish in-flight requests, unsubscribe the source. */
  close(): Promise<void>;
}

/** Parse the flags, build the engine, connect the source and listen. */
export async function startServe(argv: string[], io: CliIo): Promise<ServeHandle> {
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
      "header-prefix": { type: "string" },
      "base-path": { type: "string" },
      "max-staleness-ms": { type: "string" },
      "log-level": { type: "string", default: "info" },
      ...APTOS_FLAGS,
    },
    strict: true,
    allowPositionals: false,
  });
  const level = values["log-level"];
  if (!LEVELS.includes(level))
    throw new UsageError(`--log-level must be one of ${LEVELS.join(", ")} (got "${level}")`);
  const port = intFlag("port", values.port, 0, 65535)!;
  const spec = parseSourceSpec(values.source);
  const speed = values.speed === undefined ? undefined : Number(values.speed);
  if (speed !== undefined && !(speed > 0 && Number.isFinite(speed)))
    throw new UsageError(`--speed must be a positive number (got "${values.speed}")`);
  if (spec.kind !== "sim")
    for (const flag of ["seed", "scenario", "interval-ms"] as const)
      if (values[flag] !== undefined)
        throw new UsageError(`--${flag} only applies to --source sim`);
  if (values.speed !== undefined && spec.kind !== "ndjson")
    throw new UsageError("--speed only applies to --source ndjson:PATH");
  if (values["poll-ms"] !== undefined && spec.kind !== "aptos")
    throw new UsageError("--poll-ms only applies to --source aptos:URL");

  const log = pino({ level, base: { name: "gasdigest" } }, io.stdout);
  const { strategy, config, strategyName } = await loadStrategy(values.strategy, values.config);
  const maxStalenessMs = intFlag("max-staleness-ms", values["max-staleness-ms"], 0);
  const sourceFlags: SourceFlags = {
    seed: intFlag("seed", values.seed, 0),
    scenario: values.scenario,
    intervalMs: intFlag("interval-ms", values["interval-ms"], 0),
    speed,
    pollIntervalMs: intFlag("poll-ms", values["poll-ms"], 1),
    aptos: parseAptosFlags(values, spec),
  };

  const engine = createEngine({ strategy, config });
  const stopLogging = logEngineEvents(engine, log);
  // From here on, a failure must not leave the engine open.
  const abandon = () => {
    stopLogging();
    engine.close();
  };
  let server: GasdigestServer;
  let source$: Observable<BlockSample>;
  try {
    server = createServer(engine, {
      headerPrefix: values["header-prefix"],
      basePath: values["base-path"],
      maxStalenessMs,
      logger: log,
    });
    source$ = makeSource(spec, engine, log, sourceFlags);
  } catch (e) {
    abandon();
    throw e;
  }
  let address: Awaited<ReturnType<typeof listen>>;
  try {
    address = await listen(server, { host: values.host, port });
  } catch (e) {
    abandon();
    throw new UsageError(`cannot listen on ${values.host}:${port}: ${(e as Error).message}`);
  }
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const basePath = server.handler.options.basePath;
  const url = `http://${host}:${address.port}`;
  engine.connect(source$);
  log.info(
    {
      url,
      estimate: `${url}${basePath}/estimate_gas_price`,
      explorer: `${url}${basePath}/spec`,
      source: describeSource(spec),
      strategy: strategyName,
    },
    "gasdigest serving",
  );
  let closing: Promise<void> | undefined;
  return {
    url,
    engine,
    close() {
      closing ??= server.shutdown().then(() => {
        stopLogging();
        log.info({ counters: engine.counters() }, "gasdigest stopped");
      });
      return closing;
    },
  };
}

interface SourceFlags {
  seed: number | undefined;
  scenario: string | undefined;
  intervalMs: number | undefined;
  speed: number | undefined;
  pollIntervalMs: number | undefined;
  aptos: AptosRestOptions;
}

function makeSource(
  spec: SourceSpec,
  engine: Engine,
  log: pino.Logger,
  flags: SourceFlags,
): Observable<BlockSample> {
  switch (spec.kind) {
    case "sim":
      return simulator({
        seed: flags.seed,
        scenario: flags.scenario as never,
        intervalMs: flags.intervalMs,
        clock: "wall",
      });
    case "ndjson":
      return ndjsonFile(spec.path, {
        speed: flags.speed,
        onInvalidLine: (e) =>
          log.warn({ line: e.line, problems: formatIssues(e.issues, "; ") }, "bad line skipped"),
      });
    case "aptos":
      return aptosRest(spec.url, {
        ...flags.aptos,
        backfillBlocks: engine.config.aggressiveBlockHistory + 1,
        pollIntervalMs: flags.pollIntervalMs,
        onEvent: (event) => {
          const level =
            event.type === "retrying" ? "debug" : event.type === "unreachable" ? "warn" : "info";
          log[level](
            { event: event.type, ...aptosRestEventFields(event) },
            describeAptosRestEvent(event),
          );
        },
      });
  }
}

function describeSource(spec: SourceSpec): string {
  return spec.kind === "sim"
    ? "simulated chain"
    : spec.kind === "ndjson"
      ? `ndjson:${spec.path}`
      : `aptos:${spec.url}`;
}

/** `gasdigest serve`: runs until SIGINT or SIGTERM, then closes gracefully. */
export async function serve(argv: string[], io: CliIo): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout.write(`${SERVE_USAGE}\n`);
    return 0;
  }
  const handle = await startServe(argv, io);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await handle.close();
  return 0;
}
