import type { BlockSample, BlockSampleInput } from "../core/blockSample.js";
import { describeValue } from "../core/describeValue.js";
import { InvalidArgumentError } from "../core/errors.js";
import { type CreateBacktestOptions, createBacktest } from "./createBacktest.js";
import type { BacktestResult } from "./types.js";

/** A history: blocks in height order, in memory or streamed. */
export type History =
  | Iterable<BlockSample | BlockSampleInput>
  | AsyncIterable<BlockSample | BlockSampleInput>;

/**
 * Replay a whole history through the strategies and return their scores (see
 * {@link createBacktest} for what is measured and how). Pulls one block at a time: a history
 * of any length runs in memory that depends only on the number of strategies. A repeated
 * height is skipped.
 *
 * @throws {BlockOrderError} a block below the previous one; {@link LookaheadError} a strategy
 *   caught looking ahead; {@link InvalidConfigError} invalid options.
 * @example
 * const result = await runBacktest(simulateBlocks({ scenario: "spike", blocks: 20_000, seed: 1 }), {
 *   strategies: [{ strategy: aip34() }, { strategy: geth() }, { strategy: lastBlock() }],
 * });
 */
export async function runBacktest(
  history: History,
  options: CreateBacktestOptions,
): Promise<BacktestResult> {
  const backtest = createBacktest(options);
  if (
    typeof history !== "object" ||
    history === null ||
    !(Symbol.asyncIterator in history || Symbol.iterator in history)
  )
    throw new InvalidArgumentError([
      {
        path: "history",
        message: `must be an iterable or async iterable of blocks, such as simulateBlocks() or readHistory(file) (got ${describeValue(history)})`,
      },
    ]);
  if (Symbol.asyncIterator in history) for await (const block of history) backtest.push(block);
  else for (const block of history) backtest.push(block);
  return backtest.result();
}
