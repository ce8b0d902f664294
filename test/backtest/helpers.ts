import type { BlockSampleInput, StrategyFactory } from "../../src/index.js";
import { block } from "../helpers/blocks.js";

/** A block that clears at `price` (min 100): idle at 100, else full by its flag at that price. */
export function clearingAt(height: number, price: number, over: Partial<BlockSampleInput> = {}) {
  if (price === 100) return block(height, { gas_unit_prices: ["100", "130"], ...over });
  return block(height, {
    gas_unit_prices: [String(price + 40), String(price), String(price + 7)],
    block_gas_limit_reached: true,
    ...over,
  });
}

/** A history whose blocks clear at these prices, heights from 1. */
export const history = (prices: readonly number[]) => prices.map((p, i) => clearingAt(i + 1, p));

/** A strategy that always serves the same estimate. */
export function constant(low: number, regular: number, prioritized: number): StrategyFactory {
  return () => ({
    name: `constant-${low}-${regular}-${prioritized}`,
    ingest() {},
    estimate: () => ({
      deprioritized: BigInt(low),
      regular: BigInt(regular),
      prioritized: BigInt(prioritized),
    }),
    reset() {},
  });
}
