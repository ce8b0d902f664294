import { parseArgs } from "node:util";
import { pino } from "pino";
import { resolveRedisStreamSinkOptions } from "../sinks/redisStreamSink.js";
import { DEFAULT_STREAM } from "../sources/redisStream.js";
import { APTOS_FLAGS, APTOS_FLAGS_USAGE, parseAptosFlags } from "./aptosFlags.js";
import { PUBLISH_METRICS_USAGE } from "./cliMetrics.js";
import { createLogLimiter } from "./createLogLimiter.js";
import { SOURCE_FLAG_NAMES, withFlagNames } from "./flagErrors.js";
import { UsageError } from "./io.js";
import {
  CALIBRATED_NODE_WARM_START,
  CALIBRATED_WARM_START,
  largestWindow,
} from "./largestWindow.js";
import { loadConfigFile } from "./loadConfigFile.js";
import { publishSource } from "./publishSource.js";
import {
  checkReadableFile,
  intFlag,
  parseSourceSpec,
  redisUrlFlag,
  type SourceSpec,
  showSource,
  speedFlag,
} from "./sourceSpec.js";

// `gasdigest publish`'s usage text and flags: every flag is checked here, before Redis is asked
// anything (src/cli/publish.ts runs the publisher from what this returns).

export const PUBLISH_USAGE = `Usage: gasdigest publish --source SRC --to redis://HOST:PORT[/DB] [options]

Writes every validated block of a source to a Redis Stream, for replicas running
gasdigest serve --source redis://HOST:PORT. Entry id <height>-0, field "block" = the block's
NDJSON line. Two publishers on the same chain are active-active: Redis refuses a height that is
already there, which is counted as "already published". At start it resumes after the stream's
newest height (an ndjson: file is read from its first line, and its blocks up to that height are
left out).

Options:
  --source SRC          aptos:URL (a node) | sim | ndjson:PATH
  --to URL              redis://HOST:PORT[/DB] (rediss:// for TLS; USER:PASSWORD@ allowed)
  --stream KEY          the stream key (default ${DEFAULT_STREAM})
  --retain N            entries the stream keeps at least, trimmed approximately (MAXLEN ~)
                        (default: the largest window of --config plus one, at least 10001,
                        what a calibrated replica reads, and 1000 more for the blocks written
                        while a replica reads them: at least 11001)
  --keep-blocks N       newest blocks kept in memory, written again if Redis comes back without
                        them (restarted from an older snapshot or without persistence)
                        (default 10000, at most --retain; 0 keeps none)
  --config FILE.json    the replicas' estimator configuration (sets the defaults of --retain
                        and --backfill)
  --backfill N          aptos: blocks read back from the tip when the stream is empty
                        (default: the largest window plus one, and one block more, which a
                        default tdigest replica reads: 122 with the defaults; 2001 when
                        --config has a calibrated block)
  --poll-ms N           aptos: wait between looks at the tip (default 500)
  --seed N              sim: seed (default 1); two publishers of one seed write different
                        chains (times come from the wall clock, and each starts its draws
                        where it starts): publish a recorded file from both instead
  --interval-ms N       sim: block interval in ms (default 250; 0 = as fast as possible)
  --speed N             ndjson: replay at N times the recorded pace (default: as fast as possible)
  --log-level LEVEL     fatal|error|warn|info|debug|trace|silent (default info; debug logs every block)
${PUBLISH_METRICS_USAGE}

${APTOS_FLAGS_USAGE}

Runs until SIGINT/SIGTERM (then writes what waits, for at most 5 s) or the source ends.
Exit code: 0 done, 1 unusable arguments or a source that failed.`;

const LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];
/** A `calibrated` replica's warm start and the newest block it skips: a default stream holds it. */
const MIN_RETAIN = CALIBRATED_WARM_START + 1;
/**
 * Entries a default stream keeps beyond the largest warm start: a warm start reads its pages
 * newest first while the publishers go on writing, and `MAXLEN ~` trims the oldest entries as
 * they do. A stream kept at exactly the warm start's length lost its oldest entries under the
 * warm start's last pages: calibrated replicas warm-started with 9,724-9,938 of their 10,001
 * blocks at 40-200 blocks/s, warning that the stream held no more.
 */
export const RETAIN_MARGIN = 1_000;

/**
 * Parse and check `gasdigest publish`'s flags: every flag, the source and the sink's options
 * fail here with a `UsageError` or the option's own error, before Redis is asked anything.
 */
export async function parsePublishFlags(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      source: { type: "string" },
      to: { type: "string" },
      stream: { type: "string", default: DEFAULT_STREAM },
      retain: { type: "string" },
      "keep-blocks": { type: "string" },
      config: { type: "string" },
      backfill: { type: "string" },
      "poll-ms": { type: "string" },
      seed: { type: "string" },
      "interval-ms": { type: "string" },
      speed: { type: "string" },
      "log-level": { type: "string", default: "info" },
      "metrics-port": { type: "string" },
      "metrics-host": { type: "string" },
      // Handled before parsing (publish()); listed so that `--help=1` is no "unknown option".
      help: { type: "boolean", short: "h" },
      ...APTOS_FLAGS,
    },
    strict: true,
    allowPositionals: false,
  });
  if (!values.source) throw new UsageError("--source aptos:URL, sim or ndjson:PATH is required");
  if (!values.to) throw new UsageError("--to redis://HOST:PORT is required");
  const to = redisUrlFlag("to", values.to);
  const spec = parseSourceSpec(values.source);
  if (spec.kind === "redis")
    throw new UsageError(
      `--source must be aptos:URL, sim or ndjson:PATH (got "${showSource(values.source)}")`,
    );
  const only = (flag: keyof typeof values, kind: SourceSpec["kind"], what: string) => {
    if (values[flag] !== undefined && spec.kind !== kind)
      throw new UsageError(`--${flag} only applies to --source ${what}`);
  };
  only("backfill", "aptos", "aptos:URL");
  only("poll-ms", "aptos", "aptos:URL");
  only("seed", "sim", "sim");
  only("interval-ms", "sim", "sim");
  only("speed", "ndjson", "ndjson:PATH");
  const aptos = parseAptosFlags(values, spec);
  const level = values["log-level"];
  if (!LEVELS.includes(level))
    throw new UsageError(`--log-level must be one of ${LEVELS.join(", ")} (got "${level}")`);
  const speed = speedFlag(values.speed);
  const file = await loadConfigFile(values.config);
  const retain =
    intFlag("retain", values.retain, 1) ??
    Math.max(MIN_RETAIN, largestWindow(file)) + RETAIN_MARGIN;
  // From a node, a `calibrated` block asks for its node warm start, not its stream one.
  const backfill =
    intFlag("backfill", values.backfill, 0) ??
    largestWindow(file, undefined, CALIBRATED_NODE_WARM_START);
  const keepBlocks = intFlag("keep-blocks", values["keep-blocks"], 0);
  // The sink would keep only --retain of them: more is a flag that does not do what it says.
  if (keepBlocks !== undefined && keepBlocks > retain)
    throw new UsageError(`--keep-blocks must be at most --retain (${retain}), got ${keepBlocks}`);
  const stream = values.stream;
  // Every flag, the source and the sink's options fail now (an empty --stream, a seed out of
  // range, an ndjson: file that cannot be read), not once Redis answers: with Redis away that
  // would be never. The source is made once here to check it, and again from the stream's top.
  const sourceFlags = {
    backfill,
    pollIntervalMs: intFlag("poll-ms", values["poll-ms"], 1, 3_600_000),
    seed: intFlag("seed", values.seed, 0),
    intervalMs: intFlag("interval-ms", values["interval-ms"], 0, 86_400_000),
    speed,
    aptos,
  };
  if (spec.kind === "ndjson") checkReadableFile(spec.path);
  const flagNames = { ...SOURCE_FLAG_NAMES, retain: "retain", keepBlocks: "keep-blocks" };
  withFlagNames(flagNames, () => {
    publishSource(spec, createLogLimiter(pino({ enabled: false })), {
      ...sourceFlags,
      startHeight: undefined,
    });
    resolveRedisStreamSinkOptions(to, { stream, retain, keepBlocks });
  });
  return {
    values,
    source: values.source,
    to,
    spec,
    stream,
    retain,
    keepBlocks,
    level,
    sourceFlags,
  };
}

/** What `gasdigest publish`'s flags ask for, checked. */
export type PublishFlags = Awaited<ReturnType<typeof parsePublishFlags>>;
