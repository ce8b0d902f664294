import type { GasConfig } from "../core/config.js";
import type { StrategyFactory } from "../core/types.js";
import { resolveStrategy } from "../strategies/registry.js";
import { loadConfigFile } from "./loadConfigFile.js";

/** Resolve `--strategy` and `--config` into a factory and a validated config. */
export async function loadStrategy(
  name: string | undefined,
  configPath: string | undefined,
): Promise<{ strategy: StrategyFactory; config: GasConfig; strategyName: string }> {
  const file = await loadConfigFile(configPath);
  const strategyName = name ?? "aip34";
  const strategy = resolveStrategy(strategyName, file.strategies);
  return { strategy, config: file.gas, strategyName };
}
