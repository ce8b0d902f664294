import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { parseBlockSample } from "../../src/index.js";
import { createPendingQueue } from "../../src/sinks/redis/createPendingQueue.js";

const block = (height: number, txns: number) =>
  parseBlockSample({
    height: String(height),
    epoch: "1",
    gas_unit_prices: Array.from({ length: txns }, () => "100"),
  });
/** A full garbage collection (test-only: V8's `gc`, exposed at run time). */
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const heights = (blocks: readonly { height: bigint }[]) => blocks.map((b) => Number(b.height));

describe("the blocks a publisher holds while Redis is away", () => {
  it("drops the oldest past maxPending blocks", () => {
    const queue = createPendingQueue(3);
    const dropped = [1, 2, 3, 4, 5].map((h) => queue.push(block(h, 1)));
    expect(dropped).toEqual([
      undefined,
      undefined,
      undefined,
      { count: 1, from: 1n, to: 1n },
      {
        count: 1,
        from: 2n,
        to: 2n,
      },
    ]);
    expect(heights(queue.take(10))).toEqual([3, 4, 5]);
  });

  it("drops the oldest past maxPendingTransactions, keeping the newest whatever it holds", () => {
    // Parsed, a transaction is about 70 bytes: 100,000 waiting blocks of 100,000 were 700 GB.
    const queue = createPendingQueue(100_000, 100);
    for (let h = 1; h <= 4; h++) expect(queue.push(block(h, 25))).toBeUndefined();
    expect(queue.push(block(5, 25))).toEqual({ count: 1, from: 1n, to: 1n });
    expect(queue.push(block(6, 500))).toEqual({ count: 4, from: 2n, to: 5n });
    expect(queue.length).toBe(1);
    // Taken and put back (a write that failed), the count of transactions follows.
    const taken = queue.take(1);
    expect(queue.push(block(7, 90))).toBeUndefined();
    queue.putBack(taken);
    expect(heights(queue.take(10))).toEqual([6, 7]);
    expect(queue.push(block(8, 100))).toBeUndefined();
    expect(queue.push(block(9, 1))).toEqual({ count: 1, from: 8n, to: 8n });
  });

  it("holds no block once it is taken or dropped, the queue kept", async () => {
    // Taken blocks stayed in the queue's array until the next compaction, after 1,024 of them:
    // a publisher that keeps up held its last thousand blocks written (9.5 MB of 250-transaction
    // blocks, 10 times that of 2,500) for nothing.
    const queue = createPendingQueue(2);
    const refs: WeakRef<object>[] = [];
    const add = (h: number) => {
      const b = block(h, 10);
      refs.push(new WeakRef(b));
      return queue.push(b);
    };
    for (let h = 1; h <= 3; h++) add(h); // height 1 dropped past the limit
    expect(heights(queue.take(1))).toEqual([2]);
    add(4);
    expect(queue.take(10).length).toBe(2);
    // A WeakRef keeps its target until the end of the current job.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(refs.map((r) => r.deref() === undefined)).toEqual([true, true, true, true]);
    expect(queue.length).toBe(0);
  });
});
