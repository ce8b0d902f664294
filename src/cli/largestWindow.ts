import type { GasConfig } from "../core/config.js";
import { type GethOptions, parseGethOptions } from "../strategies/geth.js";
import type { StrategySettings } from "../strategies/registry.js";
import { parseTDigestOptions } from "../strategies/tdigestOptions.js";

/**
 * Blocks the `calibrated` strategy is warm-started with. Its price windows are short (100
 * blocks), but what it learned (each tier's calibration) depends on its whole history and takes
 * thousands of blocks to settle, so a replica reads as many as a stream keeps by default.
 */
export const CALIBRATED_WARM_START = 10_000;

/** What `--config FILE.json` holds (see `loadConfigFile`). */
interface ConfigBlocks {
  gas: GasConfig;
  strategies: StrategySettings;
}

/**
 * Blocks the configured windows need to be full: the largest window (AIP-34's
 * `aggressiveBlockHistory`, the `tdigest` tiers' `windowBlocks`, `geth`'s blocks, the
 * `calibrated` strategy's {@link CALIBRATED_WARM_START}), plus the newest block when
 * `skipLatestBlock` leaves it out. With a strategy name, only that strategy's windows count;
 * without one (a publisher sizing the stream), every window the config file sets.
 *
 * @example
 * largestWindow({ gas: DEFAULT_GAS_CONFIG, strategies: {} }, "aip34"); // 121
 */
export function largestWindow(file: ConfigBlocks, strategyName?: string): number {
  let blocks = file.gas.aggressiveBlockHistory;
  const { geth, tdigest } = file.strategies;
  const every = strategyName === undefined;
  if (strategyName === "geth" || (every && geth !== undefined))
    blocks = Math.max(blocks, parseGethOptions((geth ?? {}) as GethOptions).blocks);
  if (strategyName === "calibrated") blocks = Math.max(blocks, CALIBRATED_WARM_START);
  if (tdigest !== undefined && (every || strategyName === "tdigest"))
    for (const tier of Object.values(parseTDigestOptions(tdigest, ["tdigest"]).tiers))
      blocks = Math.max(blocks, tier.windowBlocks ?? 0);
  return blocks + (file.gas.skipLatestBlock ? 1 : 0);
}
