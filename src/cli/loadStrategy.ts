import type { GasConfig } from "../core/config.js";
import type { StrategyFactory } from "../core/types.js";
import { resolveStrategy } from "../strategies/registry.js";
import { CALIBRATED_NODE_WARM_START, largestWindow } from "./largestWindow.js";
import { loadConfigFile } from "./loadConfigFile.js";
import { isStrategyPath, loadStrategyModule } from "./loadStrategyModule.js";

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
  const strategy = isStrategyPath(strategyName)
    ? await loadStrategyModule(strategyName, file.gas)
    : resolveStrategy(strategyName, file.strategies);
  const windowBlocks = largestWindow(file, strategyName);
  const nodeBlocks = largestWindow(file, strategyName, CALIBRATED_NODE_WARM_START);
  return { strategy, config: file.gas, strategyName, windowBlocks, nodeBlocks };
}
