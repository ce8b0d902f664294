import { describe, expect, it } from "vitest";
import { createEngine } from "../../src/core/createEngine.js";
import { BaseError, InvalidBlockSampleError } from "../../src/core/errors.js";
import { pushSource } from "../../src/sources/pushSource.js";
import { aip34 } from "../../src/strategies/aip34.js";
import { block, fullBlock, idleBlock } from "../helpers/blocks.js";

describe("pushSource", () => {
  it("a push made by a subscriber waits until every subscriber has the block before it: no block is lost", () => {
    const pushed = pushSource();
    const seen: bigint[] = [];
    // A relay that answers block 1 with block 2, subscribed before the engine.
    pushed.source$.subscribe((b) => {
      seen.push(b.height);
      if (b.height === 1n) pushed.push(idleBlock(2));
      if (b.height === 2n) pushed.end();
    });
    const engine = createEngine({ strategy: aip34() });
    engine.connect(pushed.source$);
    const heights: bigint[] = [];
    pushed.source$.subscribe({
      next: (b) => heights.push(b.height),
      complete: () => heights.push(0n),
    });
    pushed.push(idleBlock(1));
    expect(seen).toEqual([1n, 2n]);
    expect(heights).toEqual([1n, 2n, 0n]);
    expect(engine.counters()).toMatchObject({ accepted: 2, rejected: 0 });
    expect(engine.sourcesCompleted).toBe(true);
    expect(pushed.ended).toBe(true);
  });

  it("feeds an engine block by block, the same as ingesting the blocks directly", () => {
    const blocks = [
      idleBlock(1),
      fullBlock(2, 300),
      fullBlock(3, 160),
      idleBlock(4),
      fullBlock(5, 1000),
    ];
    const pushed = pushSource();
    const live = createEngine({ strategy: aip34() });
    live.connect(pushed.source$);
    const direct = createEngine({ strategy: aip34() });
    for (const b of blocks) {
      pushed.push(b);
      direct.ingest(b);
      expect(live.snapshot()?.estimate).toEqual(direct.snapshot()?.estimate);
      expect(live.snapshot()?.ledger.blockHeight).toBe(BigInt(b.height));
    }
    expect(live.snapshot()?.estimate).toEqual({
      deprioritized: 100n,
      regular: 300n,
      prioritized: 1000n,
    });
    expect(live.sourcesCompleted).toBe(false);
    pushed.end();
    expect(live.sourcesCompleted).toBe(true);
  });

  it("refuses a bad block at once, naming the field, and emits nothing", () => {
    const pushed = pushSource();
    const engine = createEngine({ strategy: aip34() });
    engine.connect(pushed.source$);
    let error: unknown;
    try {
      pushed.push(block(1, { gas_unit_prices: ["100", "-3"] }));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidBlockSampleError);
    expect((error as InvalidBlockSampleError).issues).toEqual([
      { path: "gas_unit_prices[1]", message: 'must not be negative (got "-3")', code: "custom" },
    ]);
    expect(engine.counters()).toMatchObject({ accepted: 0, rejected: 0 });
    expect(pushed.push(block(1)).height).toBe(1n);
    expect(engine.counters().accepted).toBe(1);
  });

  it("multicasts to every subscriber, from the moment it subscribed", () => {
    const pushed = pushSource();
    const a: bigint[] = [];
    const b: bigint[] = [];
    pushed.source$.subscribe((x) => a.push(x.height));
    pushed.push(block(1));
    pushed.source$.subscribe((x) => b.push(x.height));
    pushed.push(block(2));
    pushed.push(block(3));
    expect(a).toEqual([1n, 2n, 3n]);
    expect(b).toEqual([2n, 3n]);
  });

  it("throws on push after end, and end is idempotent", () => {
    const pushed = pushSource();
    let completed = 0;
    pushed.source$.subscribe({ complete: () => completed++ });
    pushed.end();
    pushed.end();
    expect(completed).toBe(1);
    expect(pushed.ended).toBe(true);
    expect(() => pushed.push(block(1))).toThrow(BaseError);
    expect(() => pushed.push(block(1))).toThrow("cannot push: the push source has ended");
  });

  it("refuses options instead of ignoring them", () => {
    expect(() => (pushSource as (o: unknown) => unknown)({ buffer: 10 })).toThrow(
      "invalid configuration: pushSource() takes no options (got an object)",
    );
    expect(pushSource(...([undefined] as unknown as [])).ended).toBe(false);
  });
});
