import { type GasConfig, parseGasConfig } from "./config.js";
import { describeValue } from "./describeValue.js";
import { InvalidConfigError } from "./errors.js";
import { unknownFieldIssues, unreadableOptions } from "./readOptions.js";
import { resolveEngineStrategy } from "./resolveEngineStrategy.js";
import { builderName } from "./strategyBuilder.js";
import type { Strategy } from "./types.js";

/**
 * Check `createEngine`'s options and make what it runs on: the validated config, the clock and
 * the strategy. Misuse (`createEngine()`, a builder passed uncalled, a `now` that is not a
 * function, a factory returning no strategy) gives named errors, never a raw TypeError.
 *
 * @throws {InvalidConfigError} bad options or config (every issue); `StrategyError` a factory that threw.
 * @example
 * const { config, now, strategy } = resolveEngineOptions({ strategy: aip34() });
 */
export function resolveEngineOptions(options: unknown): {
  config: GasConfig;
  now: () => number;
  strategy: Strategy;
} {
  if (typeof options !== "object" || options === null || Array.isArray(options))
    throw new InvalidConfigError([
      {
        path: "",
        message: `createEngine takes an options object such as { strategy: aip34() } (got ${describeValue(options)})`,
      },
    ]);
  const unreadable = unreadableOptions(options);
  if (unreadable) throw new InvalidConfigError([unreadable]);
  const o = options as { strategy?: unknown; config?: unknown; now?: unknown };
  const unknown = unknownFieldIssues(
    o,
    ["strategy", "config", "now"],
    "",
    "createEngine takes strategy, config and now",
  );
  if (unknown.length > 0) throw new InvalidConfigError(unknown);
  const builder = builderName(o.strategy);
  if (builder)
    throw new InvalidConfigError([
      {
        path: "strategy",
        message: `${builder} builds a strategy and must be called: createEngine({ strategy: ${builder}() })`,
      },
    ]);
  if (o.now !== undefined && typeof o.now !== "function")
    throw new InvalidConfigError([
      { path: "now", message: `must be a function returning ms (got ${describeValue(o.now)})` },
    ]);
  const config = parseGasConfig(o.config ?? {});
  const now = (o.now as (() => number) | undefined) ?? Date.now;
  return { config, now, strategy: resolveEngineStrategy(o.strategy, config) };
}
