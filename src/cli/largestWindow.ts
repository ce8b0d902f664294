import type { GasConfig } from "../core/config.js";
import { parseGethOptions } from "../strategies/geth.js";
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
  tdigest: unknown;
  calibrated?: unknown;
}

/**
 * Blocks the configured windows need to be full: the largest window (AIP-34's
 * `aggressiveBlockHistory`, the `tdigest` tiers' `windowBlocks`, `geth`'s blocks, the
 * `calibrated` strategy's {@link CALIBRATED_WARM_START}), plus the newest block when
 * `skipLatestBlock` leaves it out. With a strategy name, only that strategy's windows count;
 * without one (a publisher sizing the stream), every window the config file sets.
 *
 * @example
 * largestWindow({ gas: DEFAULT_GAS_CONFIG, tdigest: undefined }, "aip34"); // 121
 */
export function largestWindow(file: ConfigBlocks, strategyName?: string): number {
  let blocks = file.gas.aggressiveBlockHistory;
  if (strategyName === "geth") blocks = Math.max(blocks, parseGethOptions().blocks);
  if (strategyName === "calibrated") blocks = Math.max(blocks, CALIBRATED_WARM_START);
  if (file.tdigest !== undefined && (strategyName === undefined || strategyName === "tdigest"))
    for (const tier of Object.values(parseTDigestOptions(file.tdigest, ["tdigest"]).tiers))
      blocks = Math.max(blocks, tier.windowBlocks ?? 0);
  return blocks + (file.gas.skipLatestBlock ? 1 : 0);
}
