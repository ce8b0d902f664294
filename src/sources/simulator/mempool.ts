/** One pending user transaction of the simulated chain. */
export interface SimTxn {
  /** Gas unit price bid, in octas. */
  readonly price: number;
  /** Gas units the transaction uses when executed. */
  readonly gasUsed: number;
  /** Index of the contract it calls in the simulator's contract population. */
  readonly contract: number;
  /** Last block index at which it can still be included. */
  readonly expiresAt: number;
}

/** What happened to the mempool while one block was built. */
export interface BlockBuild {
  /** The included transactions, highest price first (ties: earliest arrival first). */
  readonly txns: readonly SimTxn[];
  /** Transactions dropped because they expired. */
  readonly expired: number;
  /** Lowest-priced transactions dropped because the mempool was over its capacity. */
  readonly evicted: number;
}

/** A price-ordered mempool, bounded by a capacity. */
export interface Mempool {
  /** Transactions waiting after the last block. */
  readonly size: number;
  /**
   * Add this block's arrivals, drop expired transactions, take the `blockCapacity`
   * highest-priced ones into the block, and evict the lowest-priced beyond the capacity.
   */
  build(arrivals: SimTxn[], blockIndex: number, blockCapacity: number): BlockBuild;
  /**
   * The same for a producer that takes the pending transactions paying at least `reserve` in
   * no particular price order (as they reached it): up to `blockCapacity` of them, drawn at
   * random with `random` (floats in [0, 1)). The others stay pending.
   */
  buildAbove(
    arrivals: SimTxn[],
    blockIndex: number,
    blockCapacity: number,
    reserve: number,
    random: () => number,
  ): BlockBuild;
}

const byPriceDesc = (a: SimTxn, b: SimTxn) => b.price - a.price;
const INDEX_SPAN = 2 ** 21;
const PRICE_LIMIT = 2 ** 32;

/**
 * Stable sort by price, highest first. When prices and counts fit, each transaction becomes
 * one number `price × 2^21 + (2^21 - 1 - index)` sorted natively (several times faster than a
 * comparator); otherwise the comparator sort, which gives the same order.
 */
function sortByPriceDesc(txns: SimTxn[]): void {
  const n = txns.length;
  if (n >= INDEX_SPAN || txns.some((t) => t.price >= PRICE_LIMIT)) {
    txns.sort(byPriceDesc);
    return;
  }
  const keys = new Float64Array(n);
  for (let k = 0; k < n; k++) keys[k] = txns[k]!.price * INDEX_SPAN + (INDEX_SPAN - 1 - k);
  keys.sort();
  const original = txns.slice();
  for (let k = 0; k < n; k++) txns[k] = original[INDEX_SPAN - 1 - (keys[n - 1 - k]! % INDEX_SPAN)]!;
}

/**
 * Create a mempool holding at most `capacity` transactions between blocks. Pending
 * transactions are kept sorted by price (descending; stable, so equal bids are served in
 * arrival order); each block merges the sorted arrivals in, which costs O(pending + arrivals).
 *
 * @example
 * const pool = createMempool(2000);
 * const { txns } = pool.build(arrivals, 0, 250);
 */
export function createMempool(capacity: number): Mempool {
  let pending: SimTxn[] = [];

  return {
    get size() {
      return pending.length;
    },
    build(arrivals, blockIndex, blockCapacity) {
      sortByPriceDesc(arrivals);
      const txns: SimTxn[] = [];
      const next: SimTxn[] = [];
      let expired = 0;
      let i = 0;
      let j = 0;
      // Merge the two descending lists: the block takes the first live ones, the mempool
      // keeps the following ones up to its capacity; whatever is left is evicted.
      while (
        (i < pending.length || j < arrivals.length) &&
        (txns.length < blockCapacity || next.length < capacity)
      ) {
        const a = pending[i];
        const b = arrivals[j];
        let t: SimTxn;
        if (a !== undefined && (b === undefined || a.price >= b.price)) {
          t = a;
          i++;
        } else {
          t = b!;
          j++;
        }
        if (t.expiresAt < blockIndex) expired++;
        else if (txns.length < blockCapacity) txns.push(t);
        else next.push(t);
      }
      const evicted = pending.length - i + arrivals.length - j;
      pending = next;
      return { txns, expired, evicted };
    },
    buildAbove(arrivals, blockIndex, blockCapacity, reserve, random) {
      sortByPriceDesc(arrivals);
      // Every live transaction, highest price first.
      const live: SimTxn[] = [];
      let expired = 0;
      let i = 0;
      let j = 0;
      while (i < pending.length || j < arrivals.length) {
        const a = pending[i];
        const b = arrivals[j];
        const t =
          a !== undefined && (b === undefined || a.price >= b.price)
            ? pending[i++]!
            : arrivals[j++]!;
        if (t.expiresAt < blockIndex) expired++;
        else live.push(t);
      }
      // Those paying the reserve are a prefix; draw the block from it without order.
      let eligible = 0;
      while (eligible < live.length && live[eligible]!.price >= reserve) eligible++;
      const taken = new Uint8Array(live.length);
      if (eligible <= blockCapacity) taken.fill(1, 0, eligible);
      else {
        const order = Array.from({ length: eligible }, (_, k) => k);
        for (let k = 0; k < blockCapacity; k++) {
          const pick = k + Math.floor(random() * (eligible - k));
          const t = order[k]!;
          order[k] = order[pick]!;
          order[pick] = t;
          taken[order[k]!] = 1;
        }
      }
      const txns: SimTxn[] = [];
      const next: SimTxn[] = [];
      for (let k = 0; k < live.length; k++)
        if (taken[k]) txns.push(live[k]!);
        else if (next.length < capacity) next.push(live[k]!);
      const evicted = live.length - txns.length - next.length;
      pending = next;
      return { txns, expired, evicted };
    },
  };
}
