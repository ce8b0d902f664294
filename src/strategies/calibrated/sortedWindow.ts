/** The prices of the newest blocks, kept sorted; see {@link createSortedWindow}. */
export interface SortedWindow {
  /** Add the newest block's prices (at most `perBlock` of them), dropping the oldest block's when full. */
  push(prices: readonly bigint[]): void;
  /** Prices held. */
  readonly size: number;
  /** The `i`-th smallest price held (0-based). */
  at(i: number): bigint;
  /** Forget every block. */
  clear(): void;
}

const byValue = (a: bigint, b: bigint) => a < b;

/** Index of the first element of `sorted` that is not below `x`. */
function lowerBound(sorted: readonly bigint[], x: bigint): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (byValue(sorted[mid]!, x)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A sliding window over the newest `blocks` blocks, each contributing up to `perBlock` prices,
 * held sorted so that any rank is one array read. Memory: `blocks · perBlock` prices, whatever
 * the number of blocks pushed. Meant for small windows (hundreds of prices): a push costs a
 * binary search and an array shift per price.
 *
 * @example
 * const w = createSortedWindow(2, 3);
 * w.push([150n, 100n]); w.push([120n]); w.push([90n]); // the first block left the window
 * w.at(0); // 90n
 */
export function createSortedWindow(blocks: number, perBlock: number): SortedWindow {
  const sorted: bigint[] = [];
  const ring: bigint[][] = Array.from({ length: blocks }, () => []);
  let head = 0;
  let filled = 0;
  return {
    push(prices) {
      const slot = ring[head]!;
      if (filled === blocks) for (const p of slot) sorted.splice(lowerBound(sorted, p), 1);
      else filled++;
      slot.length = 0;
      for (let i = 0; i < prices.length && i < perBlock; i++) {
        const p = prices[i]!;
        slot.push(p);
        sorted.splice(lowerBound(sorted, p), 0, p);
      }
      head = (head + 1) % blocks;
    },
    get size() {
      return sorted.length;
    },
    at: (i) => sorted[i]!,
    clear() {
      sorted.length = 0;
      for (const slot of ring) slot.length = 0;
      head = 0;
      filled = 0;
    },
  };
}
