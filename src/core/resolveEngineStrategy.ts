import type { GasConfig } from "./config.js";
import { describeValue, thrownText } from "./describeValue.js";
import { BaseError, InvalidConfigError, StrategyError } from "./errors.js";
import { isPromiseResult } from "./promiseResult.js";
import { hasMethods } from "./readOptions.js";
import type { Strategy } from "./types.js";

/**
 * Call a strategy factory and check what it returns: an object with a string `name` and
 * `ingest`, `estimate` and `reset` methods. Misuse gives named errors, never a raw TypeError.
 *
 * @throws {InvalidConfigError} (path `strategy`) the factory is not a function or returned no strategy.
 * @throws {StrategyError} the factory threw something other than a gasdigest error.
 * @example
 * const strategy = resolveEngineStrategy(aip34(), parseGasConfig({}));
 */
export function resolveEngineStrategy(factory: unknown, config: GasConfig): Strategy {
  if (typeof factory !== "function")
    throw new InvalidConfigError([
      {
        path: "strategy",
        message:
          factory === undefined
            ? "required (a strategy such as aip34())"
            : hasMethods(factory, "ingest", "estimate")
              ? "must be a strategy factory, (config) => strategy, such as aip34(); this is a strategy object itself: pass () => it (or a function that makes a new one per engine)"
              : `must be a strategy factory such as aip34() (got ${describeValue(factory)})`,
      },
    ]);
  let made: unknown;
  try {
    made = factory(config);
  } catch (cause) {
    if (cause instanceof BaseError) throw cause;
    throw new StrategyError("the strategy factory failed", {
      cause,
      details: thrownText(cause),
    });
  }
  const problem = strategyProblem(made);
  if (problem)
    throw new InvalidConfigError([{ path: "strategy", message: `the factory ${problem}` }]);
  return made as Strategy;
}

function strategyProblem(s: unknown): string | undefined {
  if (isPromiseResult(s))
    return "returned a promise (an async factory); a factory must return the strategy itself, synchronously";
  if (typeof s !== "object" || s === null)
    return `returned ${describeValue(s)}; it must return an object with name, ingest, estimate and reset`;
  try {
    const o = s as Record<string, unknown>;
    if (typeof o.name !== "string" || o.name === "")
      return `returned a strategy whose name is not a non-empty string (got ${describeValue(o.name)})`;
    const missing = ["ingest", "estimate", "reset"].filter((k) => typeof o[k] !== "function");
    if (missing.length > 0)
      return `returned a strategy without the method${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`;
  } catch (cause) {
    return `returned a strategy that cannot be read (${describeValue(thrownText(cause))})`;
  }
  return undefined;
}
