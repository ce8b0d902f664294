import { describe, expect, it } from "vitest";
import { parseBlockSample } from "../../src/index.js";
import { createPendingQueue } from "../../src/sinks/redis/createPendingQueue.js";

const block = (height: number, txns: number) =>
  parseBlockSample({
    height: String(height),
    epoch: "1",
    gas_unit_prices: Array.from({ length: txns }, () => "100"),
  });
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
});
