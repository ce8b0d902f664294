import { U64_MAX } from "../../core/u64.js";
import type { SortedWindow } from "./sortedWindow.js";

/** A price on the log scale the learner works on: `log(1 + price)`, so any price scale is alike. */
export function logPrice(price: bigint): number {
  return Math.log1p(Number(price));
}

/** The price whose {@link logPrice} is `log`, rounded up (`up`) or down, within u64. */
function fromLog(log: number, up: boolean): bigint {
  const value = Math.expm1(log);
  if (!(value > 0)) return 0n;
  if (value >= 2 ** 64) return U64_MAX;
  const p = BigInt(up ? Math.ceil(value) : Math.floor(value));
  return p > U64_MAX ? U64_MAX : p;
}

/**
 * The price at quantile level `level` of a non-empty window, brought to the minimum `floor`
 * (see {@link SortedWindow.at}), extended beyond the window's range so that the price grows
 * without bound with the level: inside `[0, 1)` the element at index
 * `floor(level · n)` (an observed price: bids stay on the prices the chain actually clears
 * at); at or above 1 the window's highest price times `e^(level − 1)` on the log scale; below 0
 * its lowest price times `e^level`. Monotone in `level`, which is what the inclusion
 * guarantee of adaptive conformal inference needs.
 *
 * @example
 * levelPrice(window, 0.5, 100n); // the window's median price (its blocks' minimum was 100)
 * levelPrice(window, 1.7, 100n); // (1 + highest) · e^0.7 − 1, rounded up
 */
export function levelPrice(window: SortedWindow, level: number, floor: bigint): bigint {
  const n = window.size;
  // Above 2^53 the round trip through a double can land a little below the highest price (or
  // above the lowest): the clamps keep the price monotone in the level.
  if (level >= 1) {
    const top = window.at(n - 1, floor);
    if (level === 1) return top;
    const p = fromLog(logPrice(top) + (level - 1), true);
    return p < top ? top : p;
  }
  if (level < 0) {
    const bottom = window.at(0, floor);
    const p = fromLog(logPrice(bottom) + level, false);
    return p > bottom ? bottom : p;
  }
  return window.at(Math.min(n - 1, Math.floor(level * n)), floor);
}
