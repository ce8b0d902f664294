import { U64_MAX } from "../../core/u64.js";

/**
 * The prices of the newest blocks, kept sorted, each as it is or relative to the minimum price
 * in force just before its block; see {@link createSortedWindow}.
 */
export interface SortedWindow {
  /**
   * Add the newest block's prices (at most `perBlock` of them), each relative to `ref`: the
   * minimum price in force when a bid that this block could include was made (the block
   * before's). Drops the oldest block's when full.
   */
  push(prices: readonly bigint[], ref: bigint): void;
  /** Prices held. */
  readonly size: number;
  /**
   * The `i`-th smallest price held (0-based), relative to its `ref`, brought to the minimum
   * `floor`: `(price + 1) · (floor + 1) / (ref + 1) − 1`, rounded up. Exactly the price held
   * when its `ref` is `floor`, so on a chain whose minimum does not move the window holds
   * plain prices; on one whose minimum moves every block (a base fee), it holds how far above
   * the minimum blocks clear. With `trimTop`, no rank reads above what enough blocks reached
   * (see {@link SortedWindowOptions.trimTop}).
   */
  at(i: number, floor: bigint): bigint;
  /** Forget every block. */
  clear(): void;
}

/** How a {@link createSortedWindow} holds and reads its prices. */
export interface SortedWindowOptions {
  /**
   * Hold each price relative to its block's `ref` and read it brought to a `floor`; without,
   * refs and floors are ignored and prices are held as they are. @default true
   */
  readonly relative?: boolean;
  /**
   * For a window of one price a block: read no rank above the highest price that
   * `1 + max(1, floor(blocks / 100))` of its blocks reached (the second-highest of 100 blocks,
   * the sixth-highest of 500), unless two consecutive blocks reached more (a spike). What a few
   * scattered blocks reached is not a tail to bid on: a window of hundreds of blocks would
   * otherwise serve their outlier, at its top rank, for as long as it holds them. A price that
   * more blocks reach, scattered or in a run, is read as it is. @default false
   */
  readonly trimTop?: boolean;
}

interface Entry {
  readonly price: bigint;
  readonly ref: bigint;
  /** `log1p(price) − log1p(ref)`, the order's fast path. */
  readonly key: number;
}

/** Keys closer than this are compared exactly. */
const CLOSE = 1e-9;

/** Whether `a` sorts before `b`: by `(price + 1) / (ref + 1)`, then by price. */
function before(a: Entry, b: Entry): boolean {
  if (a.ref === b.ref) return a.price < b.price;
  const d = a.key - b.key;
  if (d < -CLOSE) return true;
  if (d > CLOSE) return false;
  const l = (a.price + 1n) * (b.ref + 1n);
  const r = (b.price + 1n) * (a.ref + 1n);
  return l !== r ? l < r : a.price < b.price;
}

/** Index of the first element of `sorted` that does not sort before `x`. */
function lowerBound(sorted: readonly Entry[], x: Entry): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (before(sorted[mid]!, x)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A sliding window over the newest `blocks` blocks, each contributing up to `perBlock` prices,
 * held sorted so that any rank is one array read. By default each price is held relative to
 * its block's `ref` and read brought to a `floor` ({@link SortedWindow.at}); see
 * {@link SortedWindowOptions} for plain prices and for a trimmed top. Memory:
 * `blocks · perBlock` prices, whatever the number of blocks pushed. Meant for small windows
 * (hundreds of prices): a push costs a binary search and an array shift per price.
 *
 * @example
 * const w = createSortedWindow(2, 3);
 * w.push([150n, 100n], 100n); w.push([120n], 100n); w.push([90n], 100n); // the first block left
 * w.at(0, 100n); // 90n
 * w.at(0, 200n); // 181n: 90 over a minimum of 100, brought to a minimum of 200
 * createSortedWindow(2, 3, { relative: false }); // plain prices: at(0, 200n) would be 90n
 * const long = createSortedWindow(100, 1, { trimTop: true });
 * long.push([100n], 100n); long.push([5000n], 100n);
 * long.at(1, 100n); // 100n: 5,000 is one block's price
 */
export function createSortedWindow(
  blocks: number,
  perBlock: number,
  options: SortedWindowOptions = {},
): SortedWindow {
  const relative = options.relative ?? true;
  const trimTop = options.trimTop ?? false;
  if (trimTop && perBlock !== 1) throw new Error("trimTop takes a window of one price a block");
  // Blocks that must reach a price for it to be read, scattered: 2 up to 199 blocks, then one
  // more for each 100.
  const reach = 1 + Math.max(1, Math.floor(blocks / 100));
  const sorted: Entry[] = [];
  const ring: Entry[][] = Array.from({ length: blocks }, () => []);
  let head = 0;
  let filled = 0;
  // With `trimTop`: each block's price, lowered to the block before's where that is lower
  // (what two consecutive blocks reached), by push number, and the push numbers whose value is
  // the highest of those after them in the window, highest first (a sliding maximum).
  const runs: (Entry | undefined)[] = trimTop ? new Array(blocks) : [];
  const maxRun: number[] = [];
  let pushes = 0;
  let last: Entry | undefined;
  return {
    push(prices, blockRef) {
      const ref = relative ? blockRef : 0n;
      const slot = ring[head]!;
      if (filled === blocks) for (const e of slot) sorted.splice(lowerBound(sorted, e), 1);
      else filled++;
      slot.length = 0;
      const logRef = Math.log1p(Number(ref));
      for (let i = 0; i < prices.length && i < perBlock; i++) {
        const price = prices[i]!;
        const e: Entry = { price, ref, key: Math.log1p(Number(price)) - logRef };
        slot.push(e);
        sorted.splice(lowerBound(sorted, e), 0, e);
      }
      if (trimTop) {
        const e = slot[0];
        const run = e && last && before(last, e) ? last : last ? e : undefined;
        runs[pushes % blocks] = run;
        while (maxRun.length > 0 && maxRun[0]! <= pushes - blocks) maxRun.shift();
        if (run !== undefined) {
          while (maxRun.length > 0 && !before(run, runs[maxRun.at(-1)! % blocks]!)) maxRun.pop();
          maxRun.push(pushes);
        }
        last = e;
        pushes++;
      }
      head = (head + 1) % blocks;
    },
    get size() {
      return sorted.length;
    },
    at(rank, floor) {
      let entry = sorted[rank]!;
      if (trimTop) {
        // The highest price read: reached by `reach` blocks, or by a run of two.
        let top = sorted[Math.max(0, sorted.length - reach)]!;
        const run = maxRun.length > 0 ? runs[maxRun[0]! % blocks]! : undefined;
        if (run !== undefined && before(top, run)) top = run;
        if (before(top, entry)) entry = top;
      }
      const { price, ref } = entry;
      if (!relative || ref === floor) return price;
      const scaled = (price + 1n) * (floor + 1n);
      const q = scaled / (ref + 1n);
      const up = (q * (ref + 1n) === scaled ? q : q + 1n) - 1n;
      return up > U64_MAX ? U64_MAX : up;
    },
    clear() {
      sorted.length = 0;
      for (const slot of ring) slot.length = 0;
      head = 0;
      filled = 0;
      runs.fill(undefined);
      maxRun.length = 0;
      pushes = 0;
      last = undefined;
    },
  };
}
