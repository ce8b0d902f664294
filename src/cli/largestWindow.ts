import type { GasConfig } from "../core/config.js";
import { parseGethOptions } from "../strategies/geth.js";
import { parseTDigestOptions } from "../strategies/tdigestOptions.js";

/**
 * Blocks the configured windows need to be full: the largest window (AIP-34's
 * `aggressiveBlockHistory`, the `tdigest` tiers' `windowBlocks`, `geth`'s blocks), plus the
 * newest block when `skipLatestBlock` leaves it out. With a strategy name, only that strategy's
 * windows count; without one (a publisher), every window the config file sets.
 *
 * @example
 * largestWindow(DEFAULT_GAS_CONFIG, undefined, "aip34"); // 121
 */
export function largestWindow(config: GasConfig, tdigest: unknown, strategyName?: string): number {
  let blocks = config.aggressiveBlockHistory;
  if (strategyName === "geth") blocks = Math.max(blocks, parseGethOptions().blocks);
  if (tdigest !== undefined && (strategyName === undefined || strategyName === "tdigest"))
    for (const tier of Object.values(parseTDigestOptions(tdigest, ["tdigest"]).tiers))
      blocks = Math.max(blocks, tier.windowBlocks ?? 0);
  return blocks + (config.skipLatestBlock ? 1 : 0);
}
