import { DEFAULT_CONCURRENCY, MAX_RESPONSE_BYTES_LIMIT } from "../sources/aptosRest/options.js";
import type { AptosRestOptions } from "../sources/aptosRest.js";
import { UsageError } from "./io.js";
import { intFlag, type SourceSpec } from "./sourceSpec.js";

/** `parseArgs` options of the node source's limits, shared by `serve` and `record`. */
export const APTOS_FLAGS = {
  "max-response-bytes": { type: "string" },
  "follow-redirects": { type: "boolean" },
  "node-timeout-ms": { type: "string" },
  concurrency: { type: "string" },
  "lookahead-blocks": { type: "string" },
  "hedge-after-ms": { type: "string" },
  "max-backoff-ms": { type: "string" },
  "max-retry-after-ms": { type: "string" },
} as const;

/** Usage lines of {@link APTOS_FLAGS} (see docs/sources.md for what each limit does). */
export const APTOS_FLAGS_USAGE = `Limits of --source aptos:URL (see docs/sources.md#limits):
  --max-response-bytes N   largest node answer read, after decompression (default 67108864)
  --follow-redirects       follow HTTP redirects of the node (default: a redirect is a fault)
  --node-timeout-ms N      per-request timeout, headers and body (default 10000)
  --concurrency N          requests in flight at once, 1-64 (default 4)
  --lookahead-blocks N     heights fetched ahead of the next block to emit (default 128)
  --hedge-after-ms N       resend a request with no answer (headers, or body after them)
                           after N ms (default 500)
  --max-backoff-ms N       longest wait between retries (default 10000)
  --max-retry-after-ms N   longest Retry-After honoured (default 10000)`;

type FlagValues = { [K in keyof typeof APTOS_FLAGS]?: string | boolean | undefined };

/**
 * Turn the `--max-response-bytes`, `--follow-redirects`, ... flags into `aptosRest` options.
 *
 * @throws {UsageError} when one is given without `--source aptos:URL`, or is not a whole number
 * in its range (option combinations are then checked by `aptosRest`).
 * @example
 * const limits = parseAptosFlags(values, parseSourceSpec(values.source));
 * aptosRest(url, { ...limits, backfillBlocks: 121 });
 */
export function parseAptosFlags(values: FlagValues, spec: SourceSpec): AptosRestOptions {
  if (spec.kind !== "aptos")
    for (const flag of Object.keys(APTOS_FLAGS) as (keyof typeof APTOS_FLAGS)[])
      if (values[flag] !== undefined)
        throw new UsageError(`--${flag} only applies to --source aptos:URL`);
  const int = (flag: keyof typeof APTOS_FLAGS, min: number, max: number) =>
    intFlag(flag, values[flag] as string | undefined, min, max);
  const options: AptosRestOptions = {
    maxResponseBytes: int("max-response-bytes", 1024, MAX_RESPONSE_BYTES_LIMIT),
    followRedirects: values["follow-redirects"] === true ? true : undefined,
    timeoutMs: int("node-timeout-ms", 1, 600_000),
    concurrency: int("concurrency", 1, 64),
    lookaheadBlocks: int("lookahead-blocks", 1, 4096),
    hedgeAfterMs: int("hedge-after-ms", 1, 600_000),
    maxBackoffMs: int("max-backoff-ms", 1, 3_600_000),
    maxRetryAfterMs: int("max-retry-after-ms", 0, 86_400_000),
  };
  const { concurrency = DEFAULT_CONCURRENCY, lookaheadBlocks } = options;
  if (lookaheadBlocks !== undefined && lookaheadBlocks < concurrency)
    throw new UsageError(
      `--lookahead-blocks must not be below --concurrency (${concurrency}), got ${lookaheadBlocks}`,
    );
  for (const key of Object.keys(options) as (keyof AptosRestOptions)[])
    if (options[key] === undefined) delete options[key];
  return options;
}
