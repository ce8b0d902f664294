import type { GasConfig } from "../core/config.js";
import type { StrategyFactory } from "../core/types.js";
import { resolveStrategy } from "../strategies/registry.js";
import { largestWindow } from "./largestWindow.js";
import { loadConfigFile } from "./loadConfigFile.js";

/** Resolve `--strategy` and `--config` into a factory and a validated config. */
export async function loadStrategy(
  name: string | undefined,
  configPath: string | undefined,
): Promise<{
  strategy: StrategyFactory;
  config: GasConfig;
  strategyName: string;
  /** Blocks the strategy's windows need (see {@link largestWindow}). */
  windowBlocks: number;
}> {
  const file = await loadConfigFile(configPath);
  const strategyName = name ?? "aip34";
  const strategy = resolveStrategy(strategyName, file.strategies);
  const windowBlocks = largestWindow(file, strategyName);
  return { strategy, config: file.gas, strategyName, windowBlocks };
}
