import type { GasConfig } from "../core/config.js";
import { DEFAULT_GAS_CONFIG } from "../core/config.js";
import type { StrategyFactory } from "../core/types.js";
import { resolveStrategy } from "../strategies/registry.js";
import { loadConfigFile } from "./loadConfigFile.js";

/** Resolve `--strategy` and `--config` into a factory and a validated config. */
export async function loadStrategy(
  name: string | undefined,
  configPath: string | undefined,
): Promise<{ strategy: StrategyFactory; config: GasConfig; strategyName: string }> {
  const file = configPath
    ? await loadConfigFile(configPath)
    : { gas: DEFAULT_GAS_CONFIG, tdigest: undefined };
  const strategyName = name ?? "aip34";
  const strategy = resolveStrategy(strategyName, { tdigest: file.tdigest });
  return { strategy, config: file.gas, strategyName };
}
