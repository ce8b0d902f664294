import type { StrategyFactory } from "./types.js";

const BUILDER = Symbol.for("gasdigest.strategyBuilder");

/**
 * Mark a strategy builder: a function that takes the strategy's options and returns the
 * {@link StrategyFactory} that `createEngine` calls with the config. The mark lets the engine
 * tell a builder passed uncalled (`strategy: aip34` instead of `aip34()`) from a factory and
 * say how to call it.
 *
 * @example
 * export const cheapest = strategyBuilder("cheapest", (options: { margin?: number } = {}) => (config) => ({ ... }));
 */
export function strategyBuilder<A extends unknown[], F extends StrategyFactory = StrategyFactory>(
  name: string,
  build: (...args: A) => F,
): (...args: A) => F {
  Object.defineProperty(build, BUILDER, { value: name });
  return build;
}

/**
 * The name of a strategy builder (see {@link strategyBuilder}), else `undefined`: also for a
 * function whose mark cannot be read (a proxy whose trap throws, a revoked one), which is no
 * builder; what it is wrong with is said when it is called.
 */
export function builderName(value: unknown): string | undefined {
  if (typeof value !== "function") return undefined;
  let name: unknown;
  try {
    name = (value as unknown as Record<symbol, unknown>)[BUILDER];
  } catch {
    return undefined;
  }
  return typeof name === "string" ? name : undefined;
}
