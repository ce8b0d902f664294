import { concat, from, Observable, of, Subject, throwError } from "rxjs";
import { describe, expect, it } from "vitest";
import { U64_MAX } from "../../src/core/u64.js";
import { createHandler } from "../../src/http/createHandler.js";
import {
  aip34,
  BaseError,
  createEngine,
  DEFAULT_GAS_CONFIG,
  type EngineEvent,
  InvalidArgumentError,
  type InvalidBlockSampleError,
  InvalidConfigError,
  registerStrategy,
  resolveStrategy,
  StrategyError,
  type StrategyFactory,
} from "../../src/index.js";
import { idleBlock } from "../helpers/blocks.js";

/** A strategy whose estimate is whatever `estimate` returns. */
const fixed =
  (estimate: () => unknown): StrategyFactory =>
  () => ({
    name: "fixed",
    ingest() {},
    estimate: estimate as never,
    reset() {},
  });

/** What a call throws: its class and message (it must throw). */
function thrown(f: () => unknown): { name: string; message: string } {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(BaseError);
    return { name: (e as Error).name, message: (e as Error).message };
  }
  throw new Error("expected a throw");
}

describe("a strategy's estimate is read inside the guard", () => {
  it("a throwing getter is a strategy failure: the block is accepted and a snapshot published", () => {
    const engine = createEngine({
      strategy: fixed(() => ({
        deprioritized: 100n,
        get regular(): bigint {
          throw new Error("getter broke");
        },
        prioritized: 100n,
      })),
    });
    const events: EngineEvent["type"][] = [];
    engine.events$.subscribe((e) => events.push(e.type));
    expect(engine.ingest(idleBlock(1))).toBe("accepted");
    const s = engine.snapshot()!;
    expect(s.ledger.blockHeight).toBe(1n);
    expect(s.estimate).toBeUndefined();
    expect(s.failure).toBeInstanceOf(StrategyError);
    expect(s.failure!.message).toContain("strategy fixed failed to estimate");
    expect(s.failure!.message).toContain("getter broke");
    expect(events).toEqual(["strategy_failed"]);
    expect(engine.counters()).toMatchObject({ accepted: 1, strategyFailures: 1 });
  });

  it("an estimate above 2^64-1, or not an object, breaks the invariants", () => {
    for (const e of [
      { deprioritized: 100n, regular: 100n, prioritized: U64_MAX + 1n },
      null,
      "100",
    ]) {
      const engine = createEngine({ strategy: fixed(() => e) });
      engine.ingest(idleBlock(1));
      const s = engine.snapshot()!;
      expect(s.estimate).toBeUndefined();
      expect(s.failure!.message).toContain("breaks the invariants");
    }
    const engine = createEngine({
      strategy: fixed(() => ({ deprioritized: 100n, regular: 100n, prioritized: U64_MAX })),
    });
    engine.ingest(idleBlock(1));
    expect(engine.snapshot()!.estimate!.prioritized).toBe(U64_MAX);
  });

  it("an estimate of plain numbers says they are not BigInts (they print alike)", () => {
    const engine = createEngine({
      strategy: fixed(() => ({ deprioritized: 100, regular: 200n, prioritized: 300 })),
    });
    engine.ingest(idleBlock(1));
    expect(engine.snapshot()!.failure).toMatchObject({
      details:
        "got 100/200/300 (deprioritized is number, prioritized is number, not a BigInt); expected min (100) <= deprioritized <= regular <= prioritized <= 2^64-1 as BigInt",
    });
  });

  it("names the first rule the tiers break, before the rule itself", () => {
    for (const [e, rule] of [
      [[99n, 100n, 100n], "deprioritized is below the minimum"],
      [[110n, 100n, 100n], "deprioritized is above regular"],
      [[100n, 200n, 150n], "regular is above prioritized"],
      [[100n, 100n, U64_MAX + 1n], "prioritized is above 2^64-1"],
    ] as const) {
      const engine = createEngine({
        strategy: fixed(() => ({ deprioritized: e[0], regular: e[1], prioritized: e[2] })),
      });
      engine.ingest(idleBlock(1));
      expect(engine.snapshot()!.failure!.details).toBe(
        `got ${e.join("/")} (${rule}); expected min (100) <= deprioritized <= regular <= prioritized <= 2^64-1 as BigInt`,
      );
    }
  });
});

/**
 * Feed block 1, then block 2 of epoch 2 (the strategy is reset): both are accepted, and the
 * snapshot of block 2 carries a strategy failure, which is returned.
 */
function failureAcrossEpochs(
  engine: ReturnType<typeof createEngine>,
  where: string,
): StrategyError {
  expect(engine.ingest(idleBlock(1))).toBe("accepted");
  expect(engine.ingest({ ...idleBlock(2), epoch: "2" })).toBe("accepted");
  const s = engine.snapshot()!;
  expect(s.ledger.blockHeight, where).toBe(2n);
  expect(s.failure, where).toBeInstanceOf(StrategyError);
  return s.failure as StrategyError;
}

describe("whatever a strategy throws, the engine keeps going", () => {
  /** A value whose text cannot be made: String() throws on it. */
  const unprintable = () => Object.create(null) as unknown;
  const throwing =
    (where: "ingest" | "estimate" | "reset"): StrategyFactory =>
    () => ({
      name: "hostile",
      ingest() {
        if (where === "ingest") throw unprintable();
      },
      estimate: (min: bigint) => {
        if (where === "estimate") throw unprintable();
        return { deprioritized: min, regular: min, prioritized: min };
      },
      reset() {
        if (where === "reset") throw unprintable();
      },
    });

  it("an unprintable throw from ingest, estimate or reset is a strategy failure; the block is kept", () => {
    for (const where of ["ingest", "estimate", "reset"] as const) {
      const engine = createEngine({
        strategy: throwing(where),
        config: { skipLatestBlock: false },
      });
      expect(failureAcrossEpochs(engine, where).message).toContain(
        "a thrown object that cannot be shown as text",
      );
      expect(engine.ingest({ ...idleBlock(3), epoch: "2" })).toBe("accepted");
      expect(engine.snapshot()!.ledger.blockHeight).toBe(3n);
    }
    const factory = thrown(() =>
      createEngine({
        strategy: () => {
          throw unprintable();
        },
      }),
    );
    expect(factory.name).toBe("StrategyError");
  });

  it("an async factory is refused with a named error, and its rejection does not end the process", async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on("unhandledRejection", onRejection);
    try {
      const refused = thrown(() =>
        createEngine({ strategy: (async () => Promise.reject(new Error("late"))) as never }),
      );
      expect(refused.name).toBe("InvalidConfigError");
      expect(refused.message).toContain("strategy: the factory returned a promise");
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(rejections).toEqual([]);
    } finally {
      process.off("unhandledRejection", onRejection);
    }
  });

  it("an async method is a strategy failure naming the mistake; its rejection does not end the process", async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on("unhandledRejection", onRejection);
    try {
      for (const where of ["ingest", "estimate", "reset", "promises"] as const) {
        const engine = createEngine({
          strategy: () => ({
            name: "async",
            ingest: where === "ingest" ? async () => Promise.reject(new Error("late")) : () => {},
            estimate:
              where === "estimate"
                ? ((async () => Promise.reject(new Error("late"))) as never)
                : (min: bigint) => ({ deprioritized: min, regular: min, prioritized: min }),
            reset: where === "reset" ? async () => Promise.reject(new Error("late")) : () => {},
            ...(where === "promises"
              ? { promises: (async () => Promise.reject(new Error("late"))) as never }
              : {}),
          }),
          config: { skipLatestBlock: false },
        });
        const failure = failureAcrossEpochs(engine, where);
        expect(failure.message, where).toContain("it returned a promise");
        expect(failure.message, where).toContain("must be synchronous");
      }
      // Let the rejected promises settle: none may be left unhandled.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(rejections).toEqual([]);
    } finally {
      process.off("unhandledRejection", onRejection);
    }
  });

  it("a promises getter that throws is a strategy failure, and published promises never change", () => {
    const broken = createEngine({
      strategy: () => ({
        ...throwing("ingest")(DEFAULT_GAS_CONFIG),
        ingest() {},
        get promises(): never {
          throw new Error("no promises today");
        },
      }),
    });
    expect(broken.ingest(idleBlock(1))).toBe("accepted");
    expect(broken.snapshot()!.failure!.message).toContain("no promises today");

    // A strategy that hands out the same record every time cannot rewrite an old snapshot.
    const record = {
      withinBlocks: 1,
      probability: 0.9,
      bids: 1,
      included: 1,
      rate: 1,
      recentBids: 1,
      recentRate: 1,
    };
    const engine = createEngine({
      strategy: () => ({
        ...throwing("ingest")(DEFAULT_GAS_CONFIG),
        ingest() {},
        promises: () => ({ deprioritized: record, regular: record, prioritized: record }),
      }),
    });
    engine.ingest(idleBlock(1));
    const first = engine.snapshot()!;
    record.bids = 5;
    record.included = 5;
    engine.ingest(idleBlock(2));
    expect(first.promises!.regular.bids).toBe(1);
    expect(engine.snapshot()!.promises!.regular.bids).toBe(5);
    expect(Object.isFrozen(first.promises!.regular)).toBe(true);
  });

  it("a block the strategy fails on keeps the last promise record; an override or a disabled estimate reports none", () => {
    const record = (bids: number) => ({
      withinBlocks: 1,
      probability: 0.9,
      bids,
      included: bids,
      rate: 1,
      recentBids: bids,
      recentRate: 1,
    });
    let n = 0;
    let fail = false;
    const promising = () => ({
      name: "promising",
      ingest() {
        n++;
      },
      estimate(min: bigint) {
        if (fail) throw new Error("down for a block");
        return { deprioritized: min, regular: min, prioritized: min };
      },
      reset() {},
      promises: () => ({ deprioritized: record(n), regular: record(n), prioritized: record(n) }),
    });
    const engine = createEngine({ strategy: promising });
    engine.ingest(idleBlock(1));
    engine.ingest(idleBlock(2));
    const before = engine.snapshot()!.promises!.regular.bids;
    fail = true;
    engine.ingest(idleBlock(3));
    expect(engine.snapshot()!.failure).toBeDefined();
    // The series exported from the record do not blink out while the strategy fails.
    expect(engine.snapshot()!.promises!.regular.bids).toBe(before);
    fail = false;
    engine.ingest(idleBlock(4));
    expect(engine.snapshot()!.promises!.regular.bids).toBe(before + 2);
    // What is served is not the strategy's estimate: its record would score prices nobody saw.
    for (const config of [
      { staticOverride: { low: "100", market: "150", aggressive: "300" } },
      { enabled: false },
    ]) {
      const off = createEngine({ strategy: promising, config });
      off.ingest(idleBlock(1));
      expect(off.snapshot()!.estimate).toBeDefined();
      expect(off.snapshot()!.promises).toBeUndefined();
    }
  });

  it("with staticOverride or enabled: false, a strategy that fails to ingest or reset does not stop the estimate served", () => {
    // The operator's way to pin the estimate (a strategy gone wrong) answered 500 as soon as
    // the strategy's ingest or reset threw: only its estimate was left out.
    const broken: StrategyFactory = () => ({
      name: "broken",
      ingest() {
        throw new Error("ingest broke");
      },
      estimate: (min) => ({ deprioritized: min, regular: min, prioritized: min }),
      reset() {
        throw new Error("reset broke");
      },
    });
    for (const [config, served] of [
      [{ staticOverride: { low: "200", market: "300", aggressive: "400" } }, [200n, 300n, 400n]],
      [{ enabled: false }, [100n, 100n, 150n]],
    ] as const) {
      const engine = createEngine({ strategy: broken, config });
      const events: string[] = [];
      engine.events$.subscribe((e) => events.push(e.type));
      for (const [height, epoch] of [
        [1, "1"],
        [2, "1"],
        [3, "2"],
      ] as const) {
        engine.ingest({ ...idleBlock(height), epoch });
        const s = engine.snapshot()!;
        expect(s.estimate, `block ${height}`).toEqual({
          deprioritized: served[0],
          regular: served[1],
          prioritized: served[2],
        });
        if (height > 1) expect(s.failure).toBeInstanceOf(StrategyError);
      }
      // The failures are still told: ingest at block 2, reset at block 3.
      expect(events).toEqual(["strategy_failed", "epoch_changed", "strategy_failed"]);
      expect(engine.counters()).toMatchObject({ accepted: 3, strategyFailures: 2 });
    }
  });

  it("a strategy that feeds its own engine fails; snapshots stay in height order", () => {
    let engine: ReturnType<typeof createEngine> | undefined;
    let fed = false;
    engine = createEngine({
      strategy: fixed(() => {
        if (!fed) {
          fed = true;
          engine!.ingest(idleBlock(9));
        }
        return { deprioritized: 100n, regular: 100n, prioritized: 150n };
      }),
    });
    const heights: bigint[] = [];
    engine.snapshots$.subscribe((s) => heights.push(s.ledger.blockHeight));
    engine.ingest(idleBlock(1));
    engine.ingest(idleBlock(2));
    expect(heights).toEqual([1n, 2n]);
    expect(engine.snapshot()!.estimate).toBeDefined();
    expect(engine.counters().strategyFailures).toBe(1);
  });

  it("with several subscribers, one that feeds the engine from its handler: every subscriber sees snapshots in height order, each block's events after its snapshot", () => {
    const engine = createEngine({ strategy: aip34(), config: { skipLatestBlock: false } });
    const block = (height: number, epoch = 1) => ({ ...idleBlock(height), epoch: String(epoch) });
    const a: string[] = [];
    const b: string[] = [];
    engine.snapshots$.subscribe((s) => {
      a.push(`snapshot ${s.ledger.blockHeight}`);
      if (s.ledger.blockHeight === 2n) engine.ingest(block(3, 2));
    });
    engine.snapshots$.subscribe((s) => b.push(`snapshot ${s.ledger.blockHeight}`));
    engine.events$.subscribe((e) => {
      a.push(e.type);
      if (e.type === "epoch_changed") engine.ingest(block(4, 2));
    });
    engine.events$.subscribe((e) => b.push(e.type));
    engine.ingest(block(1));
    engine.ingest(block(2));
    const seen = ["snapshot 1", "snapshot 2", "snapshot 3", "epoch_changed", "snapshot 4"];
    expect(a).toEqual(seen);
    expect(b).toEqual(seen);
    expect(engine.snapshot()!.ledger.blockHeight).toBe(4n);
  });

  it("an events$ subscriber that feeds the engine sees a whole engine: snapshots stay in order, no block is lost", () => {
    const fed: string[] = [];
    const engine = createEngine({
      strategy: () => ({
        name: "spy",
        ingest(b) {
          fed.push(String(b.height));
          if (b.height === 5n) throw new Error("no 5");
        },
        estimate: (min: bigint) => ({ deprioritized: min, regular: min, prioritized: min }),
        reset() {
          fed.push("reset");
        },
      }),
      config: { skipLatestBlock: false },
    });
    const block = (height: number, epoch: number) => ({
      ...idleBlock(height),
      epoch: String(epoch),
    });
    const published: bigint[] = [];
    engine.snapshots$.subscribe((s) => published.push(s.ledger.blockHeight));
    const seen: string[] = [];
    engine.events$.subscribe((e) => {
      seen.push(e.type);
      // Each handler feeds the next block, as a subscriber reacting to an event may.
      if (e.type === "epoch_changed") engine.ingest(block(4, 2));
      if (e.type === "strategy_failed") engine.ingest(block(6, 2));
    });
    engine.ingest(block(1, 1));
    engine.ingest(block(2, 1));
    engine.ingest(block(3, 2));
    engine.ingest(block(5, 2));
    expect(published).toEqual([1n, 2n, 3n, 4n, 5n, 6n]);
    expect(engine.snapshot()!.ledger.blockHeight).toBe(6n);
    expect(engine.snapshot()!.failure).toBeUndefined();
    expect(fed).toEqual(["1", "2", "reset", "3", "4", "5", "6"]);
    expect(seen).toEqual(["epoch_changed", "strategy_failed"]);
    expect(engine.ingest(block(6, 2))).toBe("duplicate");
    expect(() => engine.ingest(block(4, 2))).toThrow("is below the newest accepted height 6");
  });

  it("a clock that throws or returns no number rejects the block and changes nothing", () => {
    let t: unknown = 1000;
    const engine = createEngine({
      strategy: aip34(),
      now: (() => {
        if (t === "throw") throw unprintable();
        return t;
      }) as () => number,
    });
    engine.ingest(idleBlock(1));
    for (const bad of [Number.NaN, "x", undefined, "throw"]) {
      t = bad;
      expect(thrown(() => engine.ingest(idleBlock(2))).name).toBe("InvalidArgumentError");
      expect(engine.snapshot()!.ledger.blockHeight).toBe(1n);
    }
    t = 2000;
    expect(engine.ingest(idleBlock(2))).toBe("accepted");
    expect(engine.snapshot()!.receivedAtMs).toBe(2000);
  });

  it("connect with something that is not an Observable is refused and counts nothing", () => {
    const engine = createEngine({ strategy: aip34() });
    for (const bad of [null, undefined, [idleBlock(1)], { next() {} }]) {
      const e = thrown(() => engine.connect(bad as never));
      expect(e.name).toBe("InvalidArgumentError");
      expect(e.message).toMatch(/^invalid argument: source\$: must be an Observable of blocks/);
    }
    engine.ingest(idleBlock(1));
    expect(engine.sourcesCompleted).toBe(false);
    engine.connect(of(idleBlock(2)));
    expect(engine.sourcesCompleted).toBe(true);
  });

  it("an Observable of another kind: a subscribe() that throws is refused, uncounted; any handle it returns works, and close() stops it", () => {
    const engine = createEngine({ strategy: aip34() });
    const throwing = {
      subscribe(o: { complete(): void }) {
        o.complete();
        throw new Error("not really an Observable");
      },
    };
    const e = thrown(() => engine.connect(throwing as never));
    expect(e.name).toBe("InvalidArgumentError");
    expect(e.message).toBe(
      "invalid argument: source$: its subscribe() threw: Error: not really an Observable",
    );
    // Hand-made sources whose subscribe() returns { unsubscribe } (es-observable), a teardown
    // function, or nothing at all.
    const observers: { next(v: unknown): void; complete(): void }[] = [];
    const stops: string[] = [];
    const handles = [
      () => ({ unsubscribe: () => stops.push("object") }),
      () => () => stops.push("function"),
      () => 5,
    ];
    for (const handle of handles)
      engine.connect({
        subscribe(o: { next(v: unknown): void; complete(): void }) {
          observers.push(o);
          return handle();
        },
      }); // typed by shape (ObservableLike): no cast needed for a hand-made source
    observers[0]!.next(idleBlock(1));
    observers[1]!.next(idleBlock(2));
    observers[2]!.next(idleBlock(3));
    expect(engine.counters().accepted).toBe(3);
    expect(engine.sourcesCompleted).toBe(false);
    let snapshotsDone = false;
    engine.snapshots$.subscribe({ complete: () => (snapshotsDone = true) });
    engine.close();
    expect(snapshotsDone).toBe(true);
    expect(stops).toEqual(["object", "function"]);
    // What a source that cannot be stopped still sends after close is ignored.
    observers[2]!.next(idleBlock(4));
    expect(engine.counters().accepted).toBe(3);
  });

  it("a source that completes while subscribing leaves the engine's sources completed", () => {
    const engine = createEngine({ strategy: aip34() });
    const sub = engine.connect({
      subscribe(o: { next(v: unknown): void; complete(): void }) {
        o.next(idleBlock(1));
        o.complete();
        return { unsubscribe() {} };
      },
    });
    expect(sub.closed).toBe(true);
    expect(engine.sourcesCompleted).toBe(true);
  });

  it("a failed source its owner unsubscribes no longer counts: the replay that replaced it completes the engine", () => {
    const engine = createEngine({ strategy: aip34() });
    const failing = new Subject<unknown>();
    const first = engine.connect(failing);
    failing.next(idleBlock(1));
    failing.error(new Error("ENOENT"));
    expect(engine.sourcesCompleted).toBe(false);
    first.unsubscribe();
    engine.connect(from([idleBlock(2), idleBlock(3)]));
    expect(engine.counters().accepted).toBe(3);
    expect(engine.sourcesCompleted).toBe(true);
    // One that failed while connect() subscribed it counts as not completed too, and is returned
    // open, so that its owner can detach it as well (returned closed, it stayed counted for good:
    // the replay that replaced it never completed the engine).
    const early = engine.connect(
      concat(
        of(idleBlock(4)),
        throwError(() => new Error("gone")),
      ),
    );
    expect(early.closed).toBe(false);
    expect(engine.sourcesCompleted).toBe(false);
    early.unsubscribe();
    expect(early.closed).toBe(true);
    expect(engine.sourcesCompleted).toBe(true);
  });

  it("an async subscribe() that rejects is the source failing: a source_error, never an unhandled rejection", async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on("unhandledRejection", onRejection);
    try {
      const engine = createEngine({ strategy: aip34() });
      const events: EngineEvent[] = [];
      engine.events$.subscribe((e) => events.push(e));
      // A hand-made source looping over an async iterator, whose feed breaks after one block.
      async function* feed() {
        yield idleBlock(1);
        throw new Error("feed lost");
      }
      engine.connect({
        async subscribe(o: { next(v: unknown): void; complete(): void }) {
          for await (const block of feed()) o.next(block);
          o.complete();
        },
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(rejections).toEqual([]);
      expect(engine.counters().accepted).toBe(1);
      expect(events.map((e) => e.type)).toEqual(["source_error"]);
      expect(String((events[0] as { error: unknown }).error)).toBe("Error: feed lost");
      expect(engine.sourcesCompleted).toBe(false);
    } finally {
      process.off("unhandledRejection", onRejection);
    }
  });

  it("close() cuts the sources still running: they do not count as completed, so a stale estimate stays stale", () => {
    let t = 1_000_000;
    const engine = createEngine({ strategy: aip34(), now: () => t });
    const handler = createHandler(engine, { maxStalenessMs: 30_000 });
    const ask = () => handler({ method: "GET", url: "/v1/estimate_gas_price", headers: {} });
    // A recording read at start, then a live feed that went quiet a minute ago.
    engine.connect(of(idleBlock(1)));
    const live = new Subject<unknown>();
    engine.connect(live);
    live.next(idleBlock(2));
    t += 60_000;
    expect(ask().status).toBe(503);
    engine.close();
    expect(engine.sourcesCompleted).toBe(false);
    expect(ask().status).toBe(503);
  });

  it("close() from a subscriber while a source sends its first blocks in connect() stops that source", () => {
    const engine = createEngine({ strategy: aip34() });
    // A backlog sent at once, then live blocks until stopped (a timer, a socket).
    let live: ((h: number) => void) | undefined;
    let tornDown = 0;
    const sent: number[] = [];
    const source$ = new Observable<unknown>((sub) => {
      for (const h of [1, 2, 3]) {
        sent.push(h);
        sub.next(idleBlock(h));
      }
      live = (h) => sub.next(idleBlock(h));
      return () => {
        tornDown++;
      };
    });
    engine.snapshots$.subscribe((s) => {
      if (s.ledger.blockHeight === 1n) engine.close();
    });
    const events: string[] = [];
    engine.events$.subscribe({
      next: (e) => events.push(e.type),
      complete: () => events.push("complete"),
    });
    const sub = engine.connect(source$);
    expect(tornDown).toBe(1);
    expect(sub.closed).toBe(true);
    // What it still sends is ignored, not ingested into a closed engine.
    live!(4);
    expect(engine.counters()).toMatchObject({ accepted: 1, rejected: 0 });
    expect(engine.snapshot()!.ledger.blockHeight).toBe(1n);
    expect(events).toEqual(["complete"]);
    expect(engine.sourcesCompleted).toBe(false);
  });

  it("close() from a subscriber while a synchronous source sends in connect() stops it there, not at the end of its backlog (an endless one never let connect return)", () => {
    const engine = createEngine({ strategy: aip34() });
    let pulled = 0;
    // Long, not endless: without the stop, the test would hang instead of failing.
    function* backlog() {
      for (let h = 1; h <= 100_000; h++) {
        pulled++;
        yield idleBlock(h);
      }
    }
    engine.snapshots$.subscribe((s) => {
      if (s.ledger.blockHeight === 3n) engine.close();
    });
    const sub = engine.connect(from(backlog()));
    expect(sub.closed).toBe(true);
    expect(pulled).toBe(3);
    expect(engine.counters().accepted).toBe(3);
    expect(engine.sourcesCompleted).toBe(false);
  });

  it("a block whose getters throw is an invalid block sample", () => {
    const engine = createEngine({ strategy: aip34() });
    const trap = new Proxy(
      {},
      {
        get() {
          throw new Error("trap");
        },
      },
    );
    const e = thrown(() => engine.ingest(trap as never));
    expect(e.name).toBe("InvalidBlockSampleError");
    expect(e.message).toContain("cannot be read: Error: trap");
    expect(engine.counters().rejected).toBe(1);
    // A field whose getter throws is named, with the code options use.
    try {
      engine.ingest({
        height: "1",
        epoch: "1",
        get gas_unit_prices(): never {
          throw new Error("db connection lost");
        },
      });
      expect.unreachable();
    } catch (error) {
      expect((error as InvalidBlockSampleError).issues).toEqual([
        {
          path: "gas_unit_prices",
          message: "cannot be read: Error: db connection lost",
          code: "unreadable",
        },
      ]);
    }
  });
});

describe("misuse gives named errors with the usual message shape", () => {
  it("createEngine() and createEngine({})", () => {
    expect(thrown(() => createEngine(undefined as never))).toEqual({
      name: "InvalidConfigError",
      message:
        "invalid configuration: createEngine takes an options object such as { strategy: aip34() } (got nothing)",
    });
    expect(thrown(() => createEngine({} as never))).toEqual({
      name: "InvalidConfigError",
      message: "invalid configuration: strategy: required (a strategy such as aip34())",
    });
    expect(thrown(() => createEngine({ strategy: "aip34" as never })).message).toBe(
      'invalid configuration: strategy: must be a strategy factory such as aip34() (got "aip34")',
    );
    // A strategy object given where its factory is expected: the message says how to pass it.
    const object = { name: "mine", ingest() {}, estimate: () => undefined, reset() {} };
    expect(thrown(() => createEngine({ strategy: object as never })).message).toContain(
      "this is a strategy object itself: pass () => it",
    );
    expect(thrown(() => createEngine({ strategy: aip34(), now: 5 as never })).message).toBe(
      "invalid configuration: now: must be a function returning ms (got 5)",
    );
  });

  it("an unknown option of createEngine, or an argument to aip34(), is refused, not ignored", () => {
    expect(thrown(() => createEngine({ strategy: aip34(), confg: {} } as never)).message).toBe(
      "invalid configuration: confg: unknown field (did you mean config?)",
    );
    // Too far from any option for a guess: the message says what createEngine takes.
    expect(thrown(() => createEngine({ strategy: aip34(), clock: {} } as never)).message).toBe(
      "invalid configuration: clock: unknown field (createEngine takes strategy, config and now)",
    );
    expect(thrown(() => (aip34 as (o: unknown) => unknown)({ lowBlockHistory: 5 })).message).toBe(
      "invalid configuration: aip34() takes no options; its settings (lowBlockHistory, fullBlockTxns, ...) are the engine's config (got an object)",
    );
    expect(() => createEngine({ strategy: aip34() })).not.toThrow();
  });

  it("a factory returning null, a broken strategy, or a factory that throws", () => {
    expect(thrown(() => createEngine({ strategy: () => null as never }))).toEqual({
      name: "InvalidConfigError",
      message:
        "invalid configuration: strategy: the factory returned null; it must return an object with name, ingest, estimate and reset",
    });
    expect(
      thrown(() => createEngine({ strategy: () => ({ name: "x", ingest() {} }) as never })).message,
    ).toBe(
      "invalid configuration: strategy: the factory returned a strategy without the methods estimate, reset",
    );
    const boom = thrown(() =>
      createEngine({
        strategy: () => {
          throw new TypeError("cannot read x");
        },
      }),
    );
    expect(boom).toEqual({
      name: "StrategyError",
      message: expect.stringContaining("the strategy factory failed"),
    });
  });

  it("a factory that is a proxy whose traps throw, or a revoked one, gives a named error", () => {
    // Looking for a builder's mark read the function's properties outside any guard: the
    // trap's own error (or a raw TypeError) came out of createEngine.
    const trapped = new Proxy(() => undefined, {
      get() {
        throw new Error("trap on get");
      },
    });
    expect(thrown(() => createEngine({ strategy: trapped as never }))).toEqual({
      name: "InvalidConfigError",
      message:
        "invalid configuration: strategy: the factory returned nothing; it must return an object with name, ingest, estimate and reset",
    });
    const { proxy, revoke } = Proxy.revocable(() => undefined, {});
    revoke();
    expect(thrown(() => createEngine({ strategy: proxy as never }))).toEqual({
      name: "StrategyError",
      message: expect.stringContaining("the strategy factory failed"),
    });
    // A maker returning a revoked proxy: described, not a TypeError out of the description.
    const revoked = Proxy.revocable([], {});
    revoked.revoke();
    registerStrategy("revoked-maker", () => revoked.proxy as never);
    expect(thrown(() => resolveStrategy("revoked-maker")).message).toBe(
      'invalid configuration: revoked-maker: the maker of strategy "revoked-maker" must return a strategy factory such as aip34() (got an object)',
    );
  });

  it("a history of 2^32 is a config error: every history is bounded", () => {
    expect(
      thrown(() =>
        createEngine({ strategy: aip34(), config: { aggressiveBlockHistory: 2 ** 32 } }),
      ),
    ).toEqual({
      name: "InvalidConfigError",
      message: "invalid configuration: aggressiveBlockHistory: must be at most 100000",
    });
    expect(
      thrown(() => createEngine({ strategy: aip34(), config: { fullBlockTxns: 2 ** 40 } })).message,
    ).toBe("invalid configuration: fullBlockTxns: must be at most 1000000");
    // The largest window works.
    const engine = createEngine({ strategy: aip34(), config: { aggressiveBlockHistory: 100_000 } });
    engine.ingest(idleBlock(1));
    expect(engine.snapshot()!.estimate).toBeDefined();
  });

  it("handler(null) and other non-requests", () => {
    const engine = createEngine({ strategy: aip34() });
    const handler = createHandler(engine);
    for (const bad of [null, undefined, "GET /"]) {
      const e = thrown(() => handler(bad as never));
      expect(e.name).toBe("InvalidArgumentError");
      expect(e.message).toMatch(
        /^invalid argument: request: must be a request object \{ method, url, headers \} \(got .+\)$/,
      );
    }
    const problems: [unknown, string][] = [
      [{ url: "/v1" }, "request.method: must be a string (got nothing)"],
      [{ url: 5, method: "GET" }, "request.url: must be a string (got 5)"],
      [
        { url: "/v1", method: "GET" },
        "request.headers: must be an object of headers, names in lower case (got nothing)",
      ],
      [
        { url: "/v1", method: "GET", headers: null },
        "request.headers: must be an object of headers, names in lower case (got null)",
      ],
    ];
    for (const [bad, message] of problems)
      expect(thrown(() => handler(bad as never)).message).toBe(`invalid argument: ${message}`);
    // A header of the wrong type reads as absent: the estimate is answered, as JSON.
    engine.ingest(idleBlock(1));
    const odd = handler({
      method: "GET",
      url: "/v1/estimate_gas_price",
      headers: { accept: 5 } as never,
    });
    expect(odd.status).toBe(200);
    expect(odd.headers["Content-Type"]).toBe("application/json");
    expect(() => handler(null as never)).toThrow(InvalidArgumentError);
    expect(() => createHandler(null as never)).toThrow(InvalidConfigError);
    // A real request is still answered.
    expect(handler({ method: "GET", url: "/v1/-/healthy", headers: {} }).status).toBe(200);
  });

  it("a request's fields are read once: a getter that throws later cannot escape the handler", () => {
    const engine = createEngine({ strategy: aip34() });
    engine.ingest(idleBlock(1));
    const handler = createHandler(engine);
    let reads = 0;
    const flaky = {
      get method() {
        if (++reads > 1) throw new Error("read twice");
        return "GET";
      },
      url: "/v1/estimate_gas_price",
      headers: {},
    };
    expect(handler(flaky).status).toBe(200);
    expect(reads).toBe(1);
    const unreadable = {
      get method(): string {
        throw new Error("gone");
      },
      url: "/v1",
      headers: {},
    };
    expect(thrown(() => handler(unreadable)).message).toBe(
      "invalid argument: request: cannot be read: Error: gone",
    );
  });

  it("an engine whose snapshot cannot be read: every error answer still comes, without the chain headers", async () => {
    const engine = createEngine({ strategy: aip34() });
    engine.ingest(idleBlock(1));
    let broken = false;
    const shaky = new Proxy(engine, {
      get(target, key) {
        if (key === "snapshot" && broken)
          return () => {
            throw new Error("snapshot store down");
          };
        return Reflect.get(target, key);
      },
    });
    const handler = createHandler(shaky, {
      metrics: { observeRequest() {}, scrape: () => Promise.reject(new Error("registry broke")) },
    });
    broken = true;
    const scrape = await handler.respond({ method: "GET", url: "/metrics", headers: {} });
    expect(scrape.status).toBe(500);
    expect(new TextDecoder().decode(scrape.body)).toContain("collecting the metrics failed");
    expect(scrape.headers["X-Aptos-Block-Height"]).toBeUndefined();
    const estimate = handler({ method: "GET", url: "/v1/estimate_gas_price", headers: {} });
    expect(estimate.status).toBe(500);
    expect(handler.errorResponse(503, "health_check_failed", "down").status).toBe(503);
    broken = false;
    expect(handler({ method: "GET", url: "/v1/estimate_gas_price", headers: {} }).status).toBe(200);
  });
});

describe("a metrics scrape that fails in any way", () => {
  it("answers 500 internal_error, logged, never the thrown message: a synchronous throw or a result that is not a scrape", async () => {
    const engine = createEngine({ strategy: aip34() });
    engine.ingest(idleBlock(1));
    const scrapes: (() => Promise<{ contentType: string; body: string }>)[] = [
      () => {
        throw new Error("secret detail: /opt/app/metrics.js");
      },
      () => Promise.resolve(undefined as never),
      () => Promise.resolve({ contentType: 5, body: "x" } as never),
      () => "not a promise" as never,
    ];
    for (const scrape of scrapes) {
      const logged: unknown[] = [];
      const handler = createHandler(engine, {
        metrics: { observeRequest() {}, scrape },
        logger: { error: (o: unknown) => logged.push(o), warn() {}, info() {}, debug() {} },
      });
      for (const method of ["GET", "HEAD"]) {
        const res = await handler.respond({ method, url: "/metrics", headers: {} });
        expect(res.status).toBe(500);
        if (method === "GET") {
          const text = new TextDecoder().decode(res.body);
          expect(JSON.parse(text)).toMatchObject({
            error_code: "internal_error",
            message: "collecting the metrics failed",
          });
          expect(text).not.toContain("secret");
        } else expect(res.body).toBeUndefined();
      }
      expect(logged).toHaveLength(2);
    }
  });

  it("requests that arrive while a scrape is collected share it: a flood of /metrics costs one at a time", async () => {
    const engine = createEngine({ strategy: aip34() });
    engine.ingest(idleBlock(1));
    let calls = 0;
    let release: () => void = () => undefined;
    const handler = createHandler(engine, {
      metrics: {
        observeRequest() {},
        scrape: () => {
          calls++;
          return new Promise((resolve) => {
            release = () => resolve({ contentType: "text/plain", body: `scrape ${calls}\n` });
          });
        },
      },
    });
    const get = () => handler.respond({ method: "GET", url: "/metrics", headers: {} });
    const flood = Array.from({ length: 50 }, get);
    expect(calls).toBe(1);
    release();
    const answers = await Promise.all(flood);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => new TextDecoder().decode(a.body)))).toEqual(
      new Set(["scrape 1\n"]),
    );
    // One body for them all: a client that pipelines them and never reads holds one copy (a
    // framework's server queues every answer: 1,500 each on 40 sockets grew Express to 1.4 GB).
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    // Once it is answered, the next request collects afresh.
    const next = get();
    expect(calls).toBe(2);
    release();
    expect(new TextDecoder().decode((await next).body)).toBe("scrape 2\n");
  });
});

describe("a connected source's blocks are never dropped without a word", () => {
  it("a clock that fails makes each block it refuses a source_error, not a silent loss", () => {
    let calls = 0;
    const engine = createEngine({
      strategy: aip34(),
      now: () => {
        calls++;
        if (calls > 1) throw new Error("clock gone");
        return 1;
      },
    });
    const events: EngineEvent[] = [];
    engine.events$.subscribe((e) => events.push(e));
    engine.connect(of(idleBlock(1), idleBlock(2), idleBlock(3), { height: "x" }));
    expect(engine.snapshot()?.ledger.blockHeight).toBe(1n);
    const errors = events.filter((e) => e.type === "source_error");
    expect(errors).toHaveLength(2);
    expect(String((errors[0] as { error: Error }).error.message)).toContain(
      "the engine's clock threw: Error: clock gone",
    );
    // The malformed block is a rejection, counted once and not also a source error.
    expect(events.filter((e) => e.type === "rejected")).toHaveLength(1);
    expect(engine.counters().rejected).toBe(1);
  });
});
