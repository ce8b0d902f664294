import type { BlockSample } from "../core/blockSample.js";
import type { GasConfig } from "../core/config.js";
import { describeValue } from "../core/describeValue.js";
import { InvalidConfigError } from "../core/errors.js";
import { defaultEstimate, servedEstimate } from "../core/estimate.js";
import { minInclusionPrice } from "../core/fullness.js";
import { strategyBuilder } from "../core/strategyBuilder.js";
import type { GasEstimate, Strategy, StrategyFactory } from "../core/types.js";

const byValue = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The AIP-34 reference strategy, exactly as the node computes it, in BigInt end to end.
 * It keeps each block's minimum inclusion price (one value per block) for the newest
 * `aggressiveBlockHistory` blocks it was given (the engine holds back the newest block when
 * `skipLatestBlock` is set).
 *
 * @example
 * const engine = createEngine({ strategy: aip34(), config: { lowBlockHistory: 5 } });
 */
export const aip34: () => StrategyFactory = strategyBuilder("aip34", (...args: unknown[]) => {
  // Its settings are the engine's config: an argument here is a mistake that would be ignored.
  if (args.length > 0 && args[0] !== undefined)
    throw new InvalidConfigError([
      {
        path: "",
        message: `aip34() takes no options; its settings (lowBlockHistory, fullBlockTxns, ...) are the engine's config (got ${describeValue(args[0])})`,
      },
    ]);
  return createAip34;
});

function createAip34(config: GasConfig): Strategy {
  const capacity = config.aggressiveBlockHistory;
  // Ring buffer of per-block prices, newest at (head - 1); `undefined` = the chain minimum.
  const ring: (bigint | undefined)[] = new Array(capacity);
  let head = 0;
  let size = 0;
  const window: bigint[] = [];

  return {
    name: "aip34",
    ingest(block: BlockSample) {
      ring[head] = minInclusionPrice(block, config);
      head = (head + 1) % capacity;
      if (size < capacity) size++;
    },
    estimate(min = config.minGasUnitPrice): GasEstimate {
      // Newest first; `undefined` stands for the minimum price in force now.
      const n = size;
      if (n === 0) return defaultEstimate(min, config.buckets);
      window.length = n;
      for (let i = 0; i < n; i++) {
        const p = ring[(head - 1 - i + capacity) % capacity];
        window[i] = p === undefined ? min : p;
      }
      const lowN = Math.min(n, config.lowBlockHistory);
      let low = window[0]!;
      for (let i = 1; i < lowN; i++) if (window[i]! < low) low = window[i]!;
      const marketN = Math.min(n, config.marketBlockHistory);
      const market = window.slice(0, marketN).sort(byValue);
      const regular = market[Math.floor(marketN / 2)]!;
      const all = window.sort(byValue);
      const p90 = all[Math.floor((n * 9) / 10)]!;
      // Never below the minimum price, monotone, prioritized = nextBucket(max(regular, p90)).
      return servedEstimate(low, regular, p90, min, config.buckets);
    },
    reset() {
      head = 0;
      size = 0;
    },
  };
}
