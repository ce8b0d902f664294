import type { GasConfig } from "../core/config.js";
import { parseCalibratedOptions } from "../strategies/calibrated/options.js";
import { type GethOptions, parseGethOptions } from "../strategies/geth.js";
import type { StrategySettings } from "../strategies/registry.js";
import { parseTDigestOptions, tdigestWindows } from "../strategies/tdigestOptions.js";

/**
 * Blocks the `calibrated` strategy is warm-started with from a stream. Its price windows are
 * short (500 blocks at most), but what it learned (each tier's calibration) depends on its whole
 * history and takes thousands of blocks to settle, so a replica reads as many as a stream keeps
 * by default (about a second).
 */
export const CALIBRATED_WARM_START = 10_000;

/**
 * Blocks the `calibrated` strategy is backfilled with from a node, where each block costs a
 * request or more (150 to 750 blocks/s: docs/sources.md). Measured over restarts of 12
 * simulated histories (busy, mixed, congested and spike, seeds 21-23) and the Ethereum file,
 * the first 100 bids keep their promises as well after 2,000 blocks as after 10,000 (busy:
 * 92.2 / 95.9 / 99.1 % against 91.7 / 95.1 / 99.1 %), where 121 blocks leave the busy chain's
 * lower tiers well short (84.0 / 90.5 %).
 */
export const CALIBRATED_NODE_WARM_START = 2_000;

/** What `--config FILE.json` holds (see `loadConfigFile`). */
interface ConfigBlocks {
  gas: GasConfig;
  strategies: StrategySettings;
}

/**
 * Blocks the configured windows need to be full: the largest window (AIP-34's
 * `aggressiveBlockHistory`, the `tdigest` tiers' `windowBlocks` and one chunk more, after which
 * a replica's windows are the others' (see `tdigestFirstChunk`), `geth`'s blocks, the
 * `calibrated` strategy's `calibratedBlocks`: {@link CALIBRATED_WARM_START} from a stream,
 * {@link CALIBRATED_NODE_WARM_START} from a node, and twice its `anchorBlocks`, after which its
 * replicas agree), plus the newest block when `skipLatestBlock`
 * leaves it out. With a strategy name, only that strategy's windows count; without one (a
 * publisher sizing the stream), every window the config file sets, and the default `tdigest`
 * windows' one block more, which any replica may run.
 *
 * @example
 * largestWindow({ gas: DEFAULT_GAS_CONFIG, strategies: {} }, "aip34"); // 121
 * largestWindow({ gas: DEFAULT_GAS_CONFIG, strategies: {} }); // 122, a publisher's backfill
 * largestWindow(file, "calibrated", CALIBRATED_NODE_WARM_START); // 2001
 */
export function largestWindow(
  file: ConfigBlocks,
  strategyName?: string,
  calibratedBlocks: number = CALIBRATED_WARM_START,
): number {
  let blocks = file.gas.aggressiveBlockHistory;
  const { geth, tdigest } = file.strategies;
  const every = strategyName === undefined;
  if (strategyName === "geth" || (every && geth !== undefined))
    blocks = Math.max(blocks, parseGethOptions((geth ?? {}) as GethOptions).blocks);
  if (strategyName === "calibrated" || (every && file.strategies.calibrated !== undefined)) {
    // With `anchorBlocks`, a replica serves what the others serve once it has read twice that.
    const { anchorBlocks } = parseCalibratedOptions(file.strategies.calibrated, ["calibrated"]);
    blocks = Math.max(blocks, calibratedBlocks, 2 * (anchorBlocks ?? 0));
  }
  // A publisher sizes for a `tdigest` replica even without a block: its default windows are
  // AIP-34's, and it agrees with the others one block later than `aip34` does.
  if (strategyName === "tdigest" || every) {
    const options = parseTDigestOptions(tdigest ?? {}, ["tdigest"]);
    for (const windowBlocks of Object.values(tdigestWindows(options, file.gas))) {
      blocks = Math.max(blocks, windowBlocks + tdigestFirstChunk(windowBlocks, options));
    }
  }
  return blocks + (file.gas.skipLatestBlock ? 1 : 0);
}

/**
 * Blocks past a `tdigest` window after which a replica serves what the others serve: it must
 * have dropped the first chunk it read (which may have started mid-chunk), one block for a
 * window of single blocks, a chunk's `ceil(windowBlocks / chunks)` for a longer one
 * (`SlidingDigest.chunkBlocks`).
 */
function tdigestFirstChunk(
  windowBlocks: number,
  options: { exactUpTo: number; chunks: number },
): number {
  return windowBlocks <= options.exactUpTo ? 1 : Math.ceil(windowBlocks / options.chunks);
}
