import { BaseError } from "../core/errors.js";

/**
 * A backtest caught a strategy whose estimate could have used the block it is scored on: the
 * estimate it gives when asked while that block is known differs from the one it published
 * before the block arrived (its estimate depends on something other than the blocks it was
 * given).
 *
 * @example
 * try { await runBacktest(history, options) } catch (e) { if (e instanceof LookaheadError) console.error(e.strategy, e.height) }
 */
export class LookaheadError extends BaseError {
  override name = "LookaheadError";
  /** Name of the strategy caught. */
  readonly strategy: string;
  /** Height of the block being scored when it was caught. */
  readonly height: bigint;
  constructor(strategy: string, height: bigint, details: string) {
    super(`strategy ${strategy} looked ahead at block ${height}`, { details });
    this.strategy = strategy;
    this.height = height;
  }
}
