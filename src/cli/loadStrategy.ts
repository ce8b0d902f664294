import type { GasConfig } from "../core/config.js";
import { BaseError, InvalidArgumentError } from "../core/errors.js";
import type { StrategyFactory } from "../core/types.js";
import { resolveStrategy } from "../strategies/registry.js";
import { CALIBRATED_NODE_WARM_START, largestWindow } from "./largestWindow.js";
import { loadConfigFile } from "./loadConfigFile.js";
import { isStrategyPath, loadStrategyModule } from "./loadStrategyModule.js";

/**
 * The factory for a strategy named on the command line: a registered name, or a module file.
 * An unknown name is one line (`unknown strategy "aip43" (did you mean aip34? known strategies:
 * ...)`), not an invalid argument of a function the user never called.
 */
export async function strategyFor(
  name: string,
  file: Awaited<ReturnType<typeof loadConfigFile>>,
): Promise<StrategyFactory> {
  if (isStrategyPath(name)) return loadStrategyModule(name, file.gas);
  try {
    return resolveStrategy(name, file.strategies);
  } catch (e) {
    const issue = e instanceof InvalidArgumentError ? e.issues[0] : undefined;
    if (issue?.code === "unknown_strategy") throw new BaseError(issue.message);
    throw e;
  }
}

/**
 * Resolve `--strategy` and `--config` into a factory and a validated config. `--strategy` is a
 * registered name (`aip34`, `calibrated`, ...) or a module file (`./mine.js`) whose default
 * export is a strategy factory.
 */
export async function loadStrategy(
  name: string | undefined,
  configPath: string | undefined,
): Promise<{
  strategy: StrategyFactory;
  config: GasConfig;
  strategyName: string;
  /** Blocks the strategy's windows need from a stream (see {@link largestWindow}). */
  windowBlocks: number;
  /** The same from a node, where blocks cost requests (less for `calibrated` only). */
  nodeBlocks: number;
}> {
  const file = await loadConfigFile(configPath);
  const strategyName = name ?? "aip34";
  const strategy = await strategyFor(strategyName, file);
  const windowBlocks = largestWindow(file, strategyName);
  const nodeBlocks = largestWindow(file, strategyName, CALIBRATED_NODE_WARM_START);
  return { strategy, config: file.gas, strategyName, windowBlocks, nodeBlocks };
}
