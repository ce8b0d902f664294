import { ValidationError } from "../core/errors.js";
import { UsageError } from "./io.js";

/** Options of the sources (simulator, node, file, Redis) and the flags that set them. */
export const SOURCE_FLAG_NAMES: Readonly<Record<string, string>> = Object.freeze({
  seed: "seed",
  scenario: "scenario",
  intervalMs: "interval-ms",
  speed: "speed",
  pollIntervalMs: "poll-ms",
  backfillBlocks: "backfill",
  stream: "stream",
  maxResponseBytes: "max-response-bytes",
  followRedirects: "follow-redirects",
  timeoutMs: "node-timeout-ms",
  concurrency: "concurrency",
  lookaheadBlocks: "lookahead-blocks",
  hedgeAfterMs: "hedge-after-ms",
  maxBackoffMs: "max-backoff-ms",
  maxRetryAfterMs: "max-retry-after-ms",
});

/**
 * `error` as a usage error naming flags, when it is an `invalid configuration` (or argument)
 * whose every issue is about an option a flag set (`flags` maps each option to its flag):
 * `--interval-ms must be at most one day (got ...)`, not `invalid configuration: intervalMs:
 * ...`, as every other flag error reads. Otherwise (an option a config file set, another
 * error) `error` itself.
 *
 * @example
 * catch (e) { throw flagError(e, { host: "host" }); }
 */
export function flagError(error: unknown, flags: Readonly<Record<string, string>>): unknown {
  if (!(error instanceof ValidationError)) return error;
  const named: string[] = [];
  for (const issue of error.issues) {
    const option = /^[^.[]*/.exec(issue.path)![0];
    const flag = Object.hasOwn(flags, option) ? flags[option] : undefined;
    if (flag === undefined) return error;
    named.push(`--${flag}${issue.path.slice(option.length)} ${issue.message}`);
  }
  return named.length === 0 ? error : new UsageError(named.join("; "), { cause: error });
}

/**
 * Run `build`, which hands flag values to a library function (a source, the server), and report
 * what it refuses by the flags' names ({@link flagError}).
 *
 * @throws {UsageError} naming the flags, or whatever `build` threw.
 * @example
 * const source$ = withFlagNames(SOURCE_FLAG_NAMES, () => simulator({ intervalMs }));
 */
export function withFlagNames<T>(flags: Readonly<Record<string, string>>, build: () => T): T {
  try {
    return build();
  } catch (e) {
    throw flagError(e, flags);
  }
}
