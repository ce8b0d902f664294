// Feeding the engine from inside its own callbacks (the docs allow it): every block in order,
// each rejection told once, and queues that drain in time proportional to what they hold.
import { Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import { createDrainQueue } from "../../src/core/createDrainQueue.js";
import { aip34, createEngine, type EngineEvent, pushSource } from "../../src/index.js";

const blk = (h: number) => ({ height: String(h), epoch: "1", gas_unit_prices: ["100"] });

describe("re-entrant delivery", () => {
  it("a source connected from a snapshot handler: 100,000 blocks, every one once and in order", () => {
    const engine = createEngine({ strategy: aip34() });
    const heights: bigint[] = [];
    engine.snapshots$.subscribe((s) => {
      heights.push(s.ledger.blockHeight);
      if (heights.length === 1)
        engine.connect(
          new Observable((o) => {
            for (let h = 2; h <= 100_001; h++) o.next(blk(h));
            o.complete();
          }),
        );
    });
    engine.ingest(blk(1));
    expect(heights).toHaveLength(100_001);
    expect(heights.every((h, i) => h === BigInt(i + 1))).toBe(true);
  });

  it("a push source fed from its own subscriber: every block once and in order", () => {
    const source = pushSource();
    const seen: bigint[] = [];
    source.source$.subscribe((b) => {
      seen.push(b.height);
      if (seen.length === 1) for (let h = 2; h <= 100_001; h++) source.push(blk(h));
    });
    source.push(blk(1));
    expect(seen).toHaveLength(100_001);
    expect(seen.every((h, i) => h === BigInt(i + 1))).toBe(true);
  });

  it("a rejection whose handler causes another is told once each, never as a source_error", () => {
    const engine = createEngine({ strategy: aip34() });
    const a = pushSource();
    const b = pushSource();
    engine.connect(a.source$);
    engine.connect(b.source$);
    const events: EngineEvent[] = [];
    let once = false;
    engine.events$.subscribe((e) => {
      events.push(e);
      if (e.type === "rejected" && !once) {
        once = true;
        b.push(blk(3)); // a dead-letter path feeding another source, from the handler
      }
    });
    a.push(blk(5));
    a.push(blk(4));
    expect(events.map((e) => e.type)).toEqual(["rejected", "rejected"]);
    expect(engine.counters().rejected).toBe(2);
  });
});

describe("createDrainQueue", () => {
  it("hands items out first in, first out while more are pushed, across its compactions", () => {
    const q = createDrainQueue<number>();
    const out: number[] = [];
    let next = 0;
    for (let i = 0; i < 3; i++) q.push(next++);
    for (let item = q.take(); item !== undefined; item = q.take()) {
      out.push(item);
      for (let i = 0; i < 2 && next < 10_000; i++) q.push(next++);
    }
    expect(out).toEqual(Array.from({ length: 10_000 }, (_, i) => i));
    q.push(7);
    q.clear();
    expect(q.take()).toBeUndefined();
  });
});
