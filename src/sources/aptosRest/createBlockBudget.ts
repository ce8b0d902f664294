/**
 * What the lookahead of the live-node source may hold, in transactions. A fetch is admitted
 * when the blocks already fetched and waiting for their turn, plus `maxBlockTransactions` for
 * every fetch under way (the most one block may span), fit in `budget`; the next block to emit
 * is always admitted. Fetches that do not fit wait, lowest height first, until blocks are
 * emitted or finish smaller than their reservation. Blocks of ordinary size leave the whole
 * lookahead running; a node answering huge blocks behind a stalled one cannot make the source
 * hold more than `budget` transactions.
 */
export interface BlockBudget {
  /** Resolves when the fetch of `height` may start (never, if {@link reset} comes first). */
  admit(height: bigint): Promise<void>;
  /** An admitted fetch ended: with its block's transaction count, or `undefined` (no block). */
  finished(height: bigint, transactions: number | undefined): void;
  /** The block at `height` was emitted: what it held is free again. */
  emitted(height: bigint): void;
  /** Forget every fetch and waiter (the window was cleared). */
  reset(): void;
  /** Transactions held by finished blocks waiting for their turn, and fetches under way. */
  usage(): { held: number; fetching: number };
}

/**
 * @param next the height of the next block to emit (always admitted).
 * @example
 * const budget = createBlockBudget(8 * 100_000, 100_000, () => next);
 * await budget.admit(h); // then fetch h, then budget.finished(h, block.transactions.length)
 */
export function createBlockBudget(
  budget: number,
  maxBlockTransactions: number,
  next: () => bigint,
): BlockBudget {
  let held = 0;
  let fetching = 0;
  const heldOf = new Map<bigint, number>();
  // Heights waiting for room, in the order they asked (the window asks lowest first).
  let waiting: { height: bigint; go: () => void }[] = [];

  const fits = (height: bigint) =>
    height === next() || held + (fetching + 1) * maxBlockTransactions <= budget;
  const release = () => {
    while (waiting.length > 0 && fits(waiting[0]!.height)) {
      fetching++;
      waiting.shift()!.go();
    }
  };

  return {
    admit(height) {
      // The next block to emit goes first; any other waits behind those already waiting.
      if (height === next() || (waiting.length === 0 && fits(height))) {
        fetching++;
        return Promise.resolve();
      }
      return new Promise<void>((go) => waiting.push({ height, go }));
    },
    finished(height, transactions) {
      fetching--;
      if (transactions !== undefined && height >= next()) {
        heldOf.set(height, transactions);
        held += transactions;
      }
      release();
    },
    emitted(height) {
      held -= heldOf.get(height) ?? 0;
      heldOf.delete(height);
      release();
    },
    reset() {
      held = 0;
      fetching = 0;
      heldOf.clear();
      waiting = [];
    },
    usage: () => ({ held, fetching }),
  };
}
