import type { BlockSample } from "../../core/blockSample.js";

/** Blocks waiting to be written, oldest first, with a bound and a wake-up for the writer. */
export interface PendingQueue {
  /** Add a block; when over `limit`, drop the oldest and return how many and which heights. */
  push(block: BlockSample): { count: number; from: bigint; to: bigint } | undefined;
  /** Remove and return the oldest `n` blocks (fewer when fewer wait). */
  take(n: number): BlockSample[];
  /** Put blocks taken but not written back in front, in their order. */
  putBack(blocks: readonly BlockSample[]): void;
  /** No more blocks will come. */
  end(): void;
  readonly ended: boolean;
  readonly length: number;
  /** Resolves when a block arrives or the queue ends (at once if one waits). */
  wait(): Promise<void>;
}

/**
 * A bounded FIFO of blocks for the sink: O(1) push and shift (a head index, compacted now and
 * then), the oldest blocks dropped beyond `limit` blocks or `maxTransactions` transactions
 * (the newest block is kept whatever it holds).
 *
 * @example
 * const queue = createPendingQueue(100_000, 10_000_000);
 * queue.push(block); await queue.wait(); const batch = queue.take(100);
 */
export function createPendingQueue(
  limit: number,
  maxTransactions = Number.POSITIVE_INFINITY,
): PendingQueue {
  // Slots below `head` are cleared as blocks leave: a block written (or dropped) is not held
  // until the next compaction (up to 1,024 blocks of any size, with the queue empty).
  let items: (BlockSample | undefined)[] = [];
  let head = 0;
  // Transactions of the blocks waiting.
  let txns = 0;
  const count = (blocks: readonly BlockSample[]) => {
    let n = 0;
    for (const b of blocks) n += b.gasUnitPrices.length;
    return n;
  };
  let ended = false;
  let waiter: (() => void) | undefined;
  const wake = () => {
    const w = waiter;
    waiter = undefined;
    w?.();
  };
  /** Let go of the `n` blocks from `head` on, and move `head` past them. */
  const release = (n: number) => {
    items.fill(undefined, head, head + n);
    head += n;
  };
  const compact = () => {
    if (head > 1024 && head * 2 > items.length) {
      items = items.slice(head);
      head = 0;
    }
  };
  return {
    push(block) {
      items.push(block);
      txns += block.gasUnitPrices.length;
      let dropped: { count: number; from: bigint; to: bigint } | undefined;
      // The oldest go while too many blocks wait, or too many transactions but for the newest.
      let over = 0;
      while (
        items.length - head - over > limit ||
        (txns > maxTransactions && head + over < items.length - 1)
      )
        txns -= items[head + over++]!.gasUnitPrices.length;
      if (over > 0) {
        dropped = { count: over, from: items[head]!.height, to: items[head + over - 1]!.height };
        release(over);
        compact();
      }
      wake();
      return dropped;
    },
    take(n) {
      const out = items.slice(head, head + n) as BlockSample[];
      release(out.length);
      txns -= count(out);
      compact();
      return out;
    },
    putBack(blocks) {
      if (blocks.length === 0) return;
      txns += count(blocks);
      if (head >= blocks.length) {
        head -= blocks.length;
        for (let i = 0; i < blocks.length; i++) items[head + i] = blocks[i]!;
      } else {
        items = [...blocks, ...items.slice(head)];
        head = 0;
      }
    },
    end() {
      ended = true;
      wake();
    },
    get ended() {
      return ended;
    },
    get length() {
      return items.length - head;
    },
    wait() {
      if (ended || items.length > head) return Promise.resolve();
      return new Promise<void>((resolve) => {
        waiter = resolve;
      });
    },
  };
}
