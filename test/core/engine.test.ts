import { from, lastValueFrom, Observable, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { noteArrival } from "../../src/core/blockArrival.js";
import {
  aip34,
  BlockOrderError,
  calibrated,
  createEngine,
  type EngineEvent,
  geth,
  InvalidBlockSampleError,
  lastBlock,
  parseBlockSample,
  type StrategyFactory,
  tdigest,
} from "../../src/index.js";
import { block, fullBlock, idleBlock } from "../helpers/blocks.js";

const est = (engine: ReturnType<typeof createEngine>) => {
  const e = engine.snapshot()?.estimate;
  return e && `${e.deprioritized}/${e.regular}/${e.prioritized}`;
};

describe("engine", () => {
  it("has no snapshot before the first block, then one per accepted block", () => {
    const engine = createEngine({ strategy: aip34(), now: () => 42 });
    expect(engine.snapshot()).toBeUndefined();
    expect(engine.ingest(idleBlock(7))).toBe("accepted");
    const s = engine.snapshot()!;
    expect(s.sequence).toBe(1);
    expect(s.receivedAtMs).toBe(42);
    expect(s.strategy).toBe("aip34");
    expect(Object.isFrozen(s) && Object.isFrozen(s.ledger) && Object.isFrozen(s.estimate)).toBe(
      true,
    );
    expect(engine.snapshot()).toBe(s);
  });

  it("dates a block from its earlier arrival elsewhere (a replica's publisher), never from a later one", () => {
    const engine = createEngine({ strategy: aip34(), now: () => 5000 });
    const early = parseBlockSample(idleBlock(1));
    noteArrival(early, 1000);
    engine.ingest(early);
    expect(engine.snapshot()!.receivedAtMs).toBe(1000);
    const late = parseBlockSample(idleBlock(2));
    noteArrival(late, 9000);
    engine.ingest(late);
    expect(engine.snapshot()!.receivedAtMs).toBe(5000);
  });

  it("ignores and counts duplicates, rejects lower heights leaving state untouched, accepts gaps", () => {
    const engine = createEngine({ strategy: aip34() });
    for (let h = 1; h <= 5; h++) engine.ingest(fullBlock(h, 100));
    const before = engine.snapshot();
    expect(engine.ingest(fullBlock(5, 9000))).toBe("duplicate");
    expect(() => engine.ingest(idleBlock(3))).toThrowError(
      new BlockOrderError({
        path: "height",
        message: "3 is below the newest accepted height 5; heights must increase",
        code: "out_of_order",
      }),
    );
    expect(() => engine.ingest({ height: "9" } as never)).toThrowError(InvalidBlockSampleError);
    expect(engine.snapshot()).toBe(before);
    expect(engine.ingest(fullBlock(100, 100))).toBe("accepted");
    expect(engine.counters()).toEqual({
      accepted: 6,
      duplicate: 1,
      rejected: 2,
      strategyFailures: 0,
      resyncs: 0,
    });
    expect(engine.snapshot()!.ledger.blockHeight).toBe(100n);
  });

  it("rejects an epoch that goes backwards", () => {
    const engine = createEngine({ strategy: aip34() });
    engine.ingest(idleBlock(1, { epoch: "5" }));
    expect(() => engine.ingest(idleBlock(2, { epoch: "4" }))).toThrow(
      "epoch: 4 is below the current epoch 5 at a higher height (2)",
    );
  });

  it("reports the ledger state of the newest block and the oldest held block", () => {
    const engine = createEngine({
      strategy: aip34(),
      config: { aggressiveBlockHistory: 3, lowBlockHistory: 1, marketBlockHistory: 1 },
    });
    for (let h = 10; h <= 20; h++) engine.ingest(idleBlock(h, { chain_id: 2, epoch: "9" }));
    // Windows hold the newest 3 blocks plus the skipped newest one: heights 17..20.
    expect(engine.snapshot()!.ledger).toEqual({
      chainId: 2,
      epoch: 9n,
      ledgerVersion: 20999n,
      oldestLedgerVersion: 17000n,
      timestampUsec: 1_700_000_000_000_000n + 20n * 250_000n,
      blockHeight: 20n,
      oldestBlockHeight: 17n,
    });
    engine.ingest(idleBlock(21, { chain_id: 2, epoch: "10" }));
    expect(engine.snapshot()!.ledger).toMatchObject({
      epoch: 10n,
      oldestBlockHeight: 21n,
      oldestLedgerVersion: 21000n,
    });
  });

  it("holds aggressiveBlockHistory blocks for the oldest fields, plus the newest only when skipped", () => {
    const config = { aggressiveBlockHistory: 3, lowBlockHistory: 1, marketBlockHistory: 1 };
    const skip = createEngine({ strategy: aip34(), config });
    const noSkip = createEngine({
      strategy: aip34(),
      config: { ...config, skipLatestBlock: false },
    });
    for (let h = 1; h <= 10; h++) {
      skip.ingest(idleBlock(h));
      noSkip.ingest(idleBlock(h));
    }
    expect(skip.snapshot()!.ledger.oldestBlockHeight).toBe(7n);
    expect(noSkip.snapshot()!.ledger.oldestBlockHeight).toBe(8n);
  });

  it("retries a failed reset before every block, so epochs never mix", () => {
    const seen: bigint[] = [];
    let failResets = 1;
    const strategy: StrategyFactory = () => ({
      name: "epochs",
      ingest(b) {
        seen.push(b.epoch);
      },
      estimate: () => ({ deprioritized: 100n, regular: 100n, prioritized: 150n }),
      reset() {
        seen.length = 0;
        if (failResets-- > 0) throw new Error("not now");
      },
    });
    const engine = createEngine({ strategy });
    engine.ingest(idleBlock(1, { epoch: "1" }));
    engine.ingest(idleBlock(2, { epoch: "2" }));
    expect(engine.snapshot()!.failure!.message).toContain("strategy epochs failed to reset");
    engine.ingest(idleBlock(3, { epoch: "2" }));
    expect(engine.snapshot()!.failure).toBeUndefined();
    expect(seen).toEqual([2n]);
  });

  it("serves a static override, never below the minimum price, or the default estimate when disabled", () => {
    const over = createEngine({
      strategy: aip34(),
      config: { staticOverride: { low: 150, market: 200, aggressive: 300 } },
    });
    over.ingest(fullBlock(1, 500));
    expect(est(over)).toBe("150/200/300");
    // The chain's minimum rose above part of the override: those tiers are served at it.
    over.ingest(fullBlock(2, 500, 250, { min_gas_unit_price: "250" }));
    expect(est(over)).toBe("250/250/300");
    // An override below the configured minimum (100) is served at it.
    const low = createEngine({
      strategy: aip34(),
      config: { staticOverride: { low: 1, market: 2, aggressive: 3 } },
    });
    low.ingest(fullBlock(1, 500));
    expect(est(low)).toBe("100/100/100");
    const off = createEngine({ strategy: aip34(), config: { enabled: false } });
    for (let h = 1; h < 40; h++) off.ingest(fullBlock(h, 5000));
    expect(est(off)).toBe("100/100/150");
  });

  it("keeps the snapshot's estimate frozen whatever is served (strategy, override, disabled)", () => {
    for (const config of [
      {},
      { staticOverride: { low: 150, market: 200, aggressive: 300 } },
      { staticOverride: { low: 1, market: 2, aggressive: 3 } },
      { enabled: false },
    ]) {
      const engine = createEngine({ strategy: aip34(), config });
      engine.ingest(fullBlock(1, 500));
      const estimate = engine.snapshot()!.estimate!;
      // A reader of the snapshot cannot change what every request is answered with.
      expect(Object.isFrozen(estimate)).toBe(true);
      expect(() => {
        (estimate as { prioritized: bigint }).prioritized = 1n;
      }).toThrow(TypeError);
    }
  });

  it("publishes snapshots and events as Observables", async () => {
    const engine = createEngine({ strategy: aip34() });
    const seen: number[] = [];
    const events: EngineEvent["type"][] = [];
    engine.snapshots$.subscribe((s) => seen.push(Number(s.ledger.blockHeight)));
    engine.events$.subscribe((e) => events.push(e.type));
    engine.connect(
      from([
        idleBlock(1),
        { height: "x" },
        idleBlock(2),
        idleBlock(2),
        idleBlock(3, { epoch: "2" }),
      ]),
    );
    expect(seen).toEqual([1, 2, 3]);
    expect(events).toEqual(["rejected", "duplicate", "epoch_changed", "source_completed"]);
    expect(engine.sourcesCompleted).toBe(true);
    // A late subscriber gets the latest snapshot first.
    const late: bigint[] = [];
    engine.snapshots$.subscribe((s) => late.push(s.ledger.blockHeight));
    expect(late).toEqual([3n]);
    engine.close();
    await expect(lastValueFrom(engine.snapshots$.pipe(toArray()))).resolves.toEqual([
      engine.snapshot(),
    ]);
  });

  it("keeps serving the last estimate when a source errors, and is not 'completed'", () => {
    const engine = createEngine({ strategy: aip34() });
    const events: string[] = [];
    engine.events$.subscribe((e) => events.push(e.type));
    engine.connect(from([idleBlock(1)]));
    engine.connect(
      new Observable((sub) => {
        sub.next(idleBlock(2));
        sub.error(new Error("disk gone"));
      }),
    );
    expect(events).toEqual(["source_completed", "source_error"]);
    expect(engine.snapshot()!.ledger.blockHeight).toBe(2n);
    expect(engine.sourcesCompleted).toBe(false);
  });

  it("a source unsubscribed by its owner is detached and no longer counts for sourcesCompleted", () => {
    const engine = createEngine({ strategy: aip34() });
    let tornDown = 0;
    const endless = () =>
      new Observable<unknown>(() => () => {
        tornDown++;
      });
    // Connected and dropped many times, as a supervisor reconnecting a source might.
    for (let i = 0; i < 1000; i++) engine.connect(endless()).unsubscribe();
    expect(tornDown).toBe(1000);
    const live = engine.connect(endless());
    engine.connect(from([idleBlock(1)]));
    expect(engine.sourcesCompleted).toBe(false);
    live.unsubscribe();
    // The only source still attached has completed.
    expect(engine.sourcesCompleted).toBe(true);
    live.unsubscribe();
    expect(engine.sourcesCompleted).toBe(true);
    engine.close();
    expect(tornDown).toBe(1001);
  });

  it("turns a throwing or lying strategy into a snapshot failure and keeps going", () => {
    let mode: "ok" | "throw" | "lie" = "ok";
    const flaky: StrategyFactory = () => ({
      name: "flaky",
      ingest() {},
      estimate() {
        if (mode === "throw") throw new Error("boom");
        if (mode === "lie") return { deprioritized: 300n, regular: 200n, prioritized: 100n };
        return { deprioritized: 100n, regular: 100n, prioritized: 150n };
      },
      reset() {},
    });
    const engine = createEngine({ strategy: flaky });
    engine.ingest(idleBlock(1));
    mode = "throw";
    engine.ingest(idleBlock(2));
    expect(engine.snapshot()!.estimate).toBeUndefined();
    expect(engine.snapshot()!.failure!.message).toContain("strategy flaky failed to estimate");
    // Typed as what it always is, so a caller reads the one-line reason without a cast (npm run
    // typecheck fails if `failure` is typed as a plain Error again).
    expect(engine.snapshot()!.failure!.shortMessage).toBe("strategy flaky failed to estimate");
    mode = "lie";
    engine.ingest(idleBlock(3));
    expect(engine.snapshot()!.failure!.message).toContain("breaks the invariants");
    mode = "ok";
    engine.ingest(idleBlock(4));
    expect(est(engine)).toBe("100/100/150");
    expect(engine.counters()).toMatchObject({ accepted: 4, strategyFailures: 2 });
  });

  it("names a strategy in at most 60 characters in its failures, so the reason survives a cut line", () => {
    const long = `</script>${"A".repeat(15_000)}`;
    const engine = createEngine({
      strategy: () => ({
        name: long,
        ingest() {},
        estimate() {
          throw new Error("the real reason");
        },
        reset() {},
      }),
    });
    engine.ingest(idleBlock(1));
    const message = engine.snapshot()!.failure!.message;
    expect(message.startsWith(`strategy ${long.slice(0, 59)}… failed to estimate`)).toBe(true);
    expect(message.split("\n")[0]!.length).toBeLessThan(100);
    expect(message).toContain("the real reason");
  });

  it("validates its config up front", () => {
    expect(() => createEngine({ strategy: aip34(), config: { lowBlockHistory: 0 } })).toThrow(
      "lowBlockHistory: must be at least 1",
    );
    expect(() => createEngine({ strategy: aip34(), config: block(1) as never })).toThrow(
      "invalid configuration",
    );
  });

  it("a misspelt field is a compile error for a typed caller, and a validation error at run time", () => {
    const engine = createEngine({ strategy: aip34() });
    // npm run typecheck fails if this line compiles: `ingest` takes a block sample's shape.
    // @ts-expect-error: `heigth` is not a field of a block sample
    const typo = () => engine.ingest({ heigth: "9", epoch: "1", gas_unit_prices: ["100"] });
    expect(typo).toThrowError(InvalidBlockSampleError);
    expect(engine.counters().rejected).toBe(1);
  });
});

describe("engine: strategy builders", () => {
  it("a built-in passed uncalled gets an error that says how to call it", () => {
    for (const [name, builder] of [
      ["aip34", aip34],
      ["tdigest", tdigest],
      ["calibrated", calibrated],
      ["geth", geth],
      ["lastBlock", lastBlock],
    ] as const)
      expect(() => createEngine({ strategy: builder as never })).toThrow(
        `invalid configuration: strategy: ${name} builds a strategy and must be called: createEngine({ strategy: ${name}() })`,
      );
  });
});
