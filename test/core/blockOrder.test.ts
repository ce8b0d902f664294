import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createBacktest } from "../../src/backtest/index.js";
import { U64_MAX } from "../../src/core/u64.js";
import {
  aip34,
  BlockOrderError,
  createEngine,
  type Engine,
  type EngineEvent,
  geth,
} from "../../src/index.js";
import { block, fullBlock } from "../helpers/blocks.js";
import { runCli } from "../helpers/cli.js";
import { setup } from "../http/helpers.js";

const POISON = U64_MAX.toString();

/** Ingest, returning "accepted"/"duplicate" or the rejection's message. */
function feed(engine: Engine, input: unknown): string {
  try {
    return engine.ingest(input as never);
  } catch (e) {
    expect(e).toBeInstanceOf(BlockOrderError);
    return (e as Error).message;
  }
}

function withEvents(config = {}) {
  const engine = createEngine({ strategy: aip34(), config });
  const events: EngineEvent[] = [];
  engine.events$.subscribe((e) => events.push(e));
  return { engine, events, resyncs: () => events.filter((e) => e.type === "resynced") };
}

describe("two sources of one chain, one lagging behind", () => {
  it("the lagging one's copies of blocks already accepted are rejected, never followed back", () => {
    // Source A at 160 (full blocks at 4000 up to 150, idle after); source B sends 140..155 in a
    // burst. Before, ten of B's copies in a row were taken for a new chain: the engine went back
    // to 155, its windows thrown away, and its estimate fell from 4000 to the minimum.
    const { engine, resyncs } = withEvents();
    for (let h = 1; h <= 160; h++)
      feed(engine, h <= 150 ? fullBlock(h, 4000) : block(h, { gas_unit_prices: ["100"] }));
    const before = engine.snapshot()!;
    for (let h = 140; h <= 155; h++)
      expect(
        feed(engine, h <= 150 ? fullBlock(h, 4000) : block(h, { gas_unit_prices: ["100"] })),
      ).toBe(`height: ${h} is below the newest accepted height 160; heights must increase`);
    expect(resyncs()).toEqual([]);
    expect(engine.snapshot()).toBe(before);
    expect(feed(engine, block(161, { gas_unit_prices: ["100"] }))).toBe("accepted");
    const after = engine.snapshot()!;
    expect(after.ledger.blockHeight).toBe(161n);
    expect(after.estimate).toEqual(before.estimate);
    expect(engine.counters()).toMatchObject({ accepted: 161, rejected: 16, resyncs: 0 });
  });

  it("blocks at those heights with other versions are no copies: ten in a row are followed (a chain reset)", () => {
    const { engine, resyncs } = withEvents();
    for (let h = 1; h <= 30; h++) feed(engine, fullBlock(h));
    // The same heights and epoch, versions started again: a wiped test network.
    const reset = (h: number) =>
      fullBlock(h, 100, 250, { first_version: String(h * 10), last_version: String(h * 10 + 9) });
    for (let h = 1; h <= 9; h++) expect(feed(engine, reset(h))).toMatch(/below the newest/);
    expect(feed(engine, reset(10))).toBe("accepted");
    expect(resyncs()).toHaveLength(1);
  });

  it("two sources of the chain a run follows, out of step, do not break the run: it is followed", () => {
    // A poison block accepted first, then two sources of the real chain, B a block behind A.
    // Before, each of B's copies broke A's run (lower than its newest) and A's next block
    // started it again: the run never reached 10, and the engine stayed on the poison for good.
    const { engine, resyncs } = withEvents();
    expect(feed(engine, fullBlock(1, 100, 250, { height: POISON }))).toBe("accepted");
    for (let h = 1; h <= 10; h++) {
      feed(engine, fullBlock(h, 300));
      if (h < 10) expect(feed(engine, fullBlock(h - 1 || 1, 300))).toMatch(/below the newest/);
    }
    expect(resyncs()).toEqual([
      { type: "resynced", from: U64_MAX, to: 10n, epoch: 1n, rejected: 9 },
    ]);
    expect(feed(engine, fullBlock(9, 300))).toMatch(/below the newest accepted height 10/);
    expect(feed(engine, fullBlock(11, 300))).toBe("accepted");

    // A test network wiped and restarted lower, followed by two nodes two blocks apart.
    const reset = withEvents();
    for (let h = 5000; h < 5010; h++) feed(reset.engine, fullBlock(h, 500, 250, { epoch: "40" }));
    const lower = (h: number) =>
      fullBlock(h, 100, 250, { first_version: String(h * 10), last_version: String(h * 10 + 9) });
    for (let h = 1; h <= 12; h++) {
      feed(reset.engine, lower(h));
      if (h > 2) feed(reset.engine, lower(h - 2));
    }
    expect(reset.resyncs()).toMatchObject([{ from: 5009n, to: 10n }]);
    expect(reset.engine.snapshot()!.ledger.blockHeight).toBe(12n);
  });
});

describe("one poison block cannot stop the engine for good", () => {
  it("a jump beyond maxHeightJump is rejected, and the next good block accepted", () => {
    const { engine } = withEvents();
    for (let h = 1; h <= 5; h++) feed(engine, fullBlock(h));
    expect(feed(engine, block(1, { height: POISON }))).toBe(
      `height: ${POISON} is ${U64_MAX - 5n} above the newest accepted height 5; more than maxHeightJump (1000000)`,
    );
    expect(engine.snapshot()!.ledger.blockHeight).toBe(5n);
    expect(feed(engine, fullBlock(6))).toBe("accepted");
    // A gap up to the bound is fine.
    expect(feed(engine, fullBlock(1_000_006))).toBe("accepted");
  });

  it("a poison block accepted first (no newest yet) is dropped after 10 good blocks in a row", () => {
    const { engine, events, resyncs } = withEvents();
    expect(feed(engine, fullBlock(1, 100, 250, { height: POISON }))).toBe("accepted");
    for (let h = 1; h <= 9; h++)
      expect(feed(engine, fullBlock(h, 300))).toBe(
        `height: ${h} is below the newest accepted height ${POISON}; heights must increase`,
      );
    expect(feed(engine, fullBlock(10, 300))).toBe("accepted");
    expect(resyncs()).toEqual([
      { type: "resynced", from: U64_MAX, to: 10n, epoch: 1n, rejected: 9 },
    ]);
    // The windows started afresh: nothing of the poison block is left in them.
    for (let h = 11; h <= 12; h++) feed(engine, fullBlock(h, 300));
    const s = engine.snapshot()!;
    expect(s.ledger.blockHeight).toBe(12n);
    expect(s.ledger.oldestBlockHeight).toBe(10n);
    // nextBucket(300): the poison block's price (100, so 150) is gone from the windows.
    expect(s.estimate!.deprioritized).toBe(500n);
    expect(engine.counters()).toMatchObject({ accepted: 4, rejected: 9, resyncs: 1 });
    expect(events.filter((e) => e.type === "epoch_changed")).toEqual([]);
  });

  it("a poison epoch is rejected (one epoch per block at most), or dropped like a poison height when it came first", () => {
    const { engine, events, resyncs } = withEvents({ resyncAfterBlocks: 3 });
    feed(engine, fullBlock(1));
    expect(feed(engine, fullBlock(2, 100, 250, { epoch: "999" }))).toBe(
      "epoch: 999 is 998 epochs above the current epoch 1 over 1 height(s); a chain changes epoch at most once per block",
    );
    // The windows were not thrown away: no epoch change, no resync, the next block goes on.
    expect(feed(engine, fullBlock(3))).toBe("accepted");
    expect(feed(engine, fullBlock(5, 100, 250, { epoch: "3" }))).toBe("accepted");
    expect(events.filter((e) => e.type === "epoch_changed")).toHaveLength(1);

    const first = withEvents({ resyncAfterBlocks: 3 });
    expect(feed(first.engine, fullBlock(1, 100, 250, { epoch: POISON }))).toBe("accepted");
    expect(feed(first.engine, fullBlock(2))).toBe(
      `epoch: 1 is below the current epoch ${POISON} at a higher height (2)`,
    );
    feed(first.engine, fullBlock(3));
    expect(feed(first.engine, fullBlock(4))).toBe("accepted");
    expect(first.resyncs()).toHaveLength(1);
    expect(first.engine.snapshot()!.ledger.epoch).toBe(1n);
    expect(resyncs()).toEqual([]);
  });

  it("a block of another chain is rejected; ten in a row are followed (the source now reads another network)", () => {
    const { engine, events, resyncs } = withEvents();
    for (let h = 1; h <= 5; h++) feed(engine, fullBlock(h));
    expect(feed(engine, fullBlock(6, 100, 250, { chain_id: 1 }))).toBe(
      "chain_id: 1 is not the chain 4 of the newest accepted block",
    );
    // The event names the valid block's height (a Redis entry to look at is `6-0`); an invalid
    // block has none to give.
    expect(events.at(-1)).toMatchObject({ type: "rejected", height: 6n });
    expect(() => engine.ingest({ height: "x" } as never)).toThrow("invalid block sample");
    expect(events.at(-1)).toEqual({ type: "rejected", error: expect.anything() });
    expect(engine.snapshot()!.ledger.chainId).toBe(4);
    expect(feed(engine, fullBlock(7))).toBe("accepted");
    const results = [];
    for (let h = 8; h <= 17; h++)
      results.push(feed(engine, fullBlock(h, 100, 250, { chain_id: 1 })));
    expect(results.slice(0, 9).every((r) => r.startsWith("chain_id: 1 is not the chain 4"))).toBe(
      true,
    );
    expect(results[9]).toBe("accepted");
    expect(resyncs()).toHaveLength(1);
    expect(engine.snapshot()!.ledger.chainId).toBe(1);
  });

  it("another chain's block is named as such below the newest height or epoch too", () => {
    // Before, a node of another network was reported as lagging ("below the newest accepted
    // height") or in a lower epoch: only at the newest height, or above it, was the chain named.
    const { engine } = withEvents();
    feed(engine, fullBlock(300, 100, 250, { epoch: "40", chain_id: 1 }));
    const chain2 = "chain_id: 2 is not the chain 1 of the newest accepted block";
    expect(feed(engine, fullBlock(250, 100, 250, { epoch: "50", chain_id: 2 }))).toBe(chain2);
    expect(feed(engine, fullBlock(301, 100, 250, { epoch: "30", chain_id: 2 }))).toBe(chain2);
    expect(feed(engine, fullBlock(302, 100, 250, { epoch: "60", chain_id: 2 }))).toBe(chain2);
    // Without a chain id, the same blocks are refused for their height or epoch.
    expect(feed(engine, fullBlock(250, 100, 250, { epoch: "50", chain_id: undefined }))).toBe(
      "height: 250 is below the newest accepted height 300; heights must increase",
    );
  });

  it("the newest height again is a duplicate only from the same chain and epoch: another one's is rejected", () => {
    const { engine, events } = withEvents();
    feed(engine, fullBlock(5, 100, 250, { epoch: "3", chain_id: 1 }));
    expect(feed(engine, fullBlock(5, 100, 250, { epoch: "3", chain_id: 1 }))).toBe("duplicate");
    expect(feed(engine, fullBlock(5, 100, 250, { epoch: "3", chain_id: 2 }))).toBe(
      "chain_id: 2 is not the chain 1 of the newest accepted block",
    );
    expect(feed(engine, fullBlock(5, 100, 250, { epoch: "2", chain_id: 1 }))).toBe(
      "epoch: 2 is not the epoch 3 of the newest accepted block at the same height 5",
    );
    expect(feed(engine, fullBlock(5, 100, 250, { epoch: "4", chain_id: 1 }))).toBe(
      "epoch: 4 is not the epoch 3 of the newest accepted block at the same height 5",
    );
    expect(engine.counters()).toMatchObject({ accepted: 1, duplicate: 1, rejected: 3 });
    expect(events.filter((e) => e.type === "rejected")).toHaveLength(3);
  });

  it("a block that does not say its chain keeps the newest's: the block after it cannot switch chains", () => {
    const { engine, resyncs } = withEvents();
    for (let h = 1; h <= 3; h++) feed(engine, fullBlock(h));
    // Without chain_id, and with chain_id null: both are the chain before them.
    expect(feed(engine, fullBlock(4, 100, 250, { chain_id: undefined }))).toBe("accepted");
    expect(feed(engine, fullBlock(5, 100, 250, { chain_id: null as never }))).toBe("accepted");
    expect(feed(engine, fullBlock(6, 100, 250, { chain_id: 1 }))).toBe(
      "chain_id: 1 is not the chain 4 of the newest accepted block",
    );
    // Ten of chain 1 in a row are followed; then a block without chain_id is chain 1's.
    for (let h = 7; h <= 16; h++) feed(engine, fullBlock(h, 100, 250, { chain_id: 1 }));
    expect(resyncs()).toHaveLength(1);
    expect(feed(engine, fullBlock(17, 100, 250, { chain_id: undefined }))).toBe("accepted");
    expect(feed(engine, fullBlock(18, 100, 250, { chain_id: 4 }))).toBe(
      "chain_id: 4 is not the chain 1 of the newest accepted block",
    );
  });

  it("a chain that restarts lower (a test network wiped) is followed after 10 blocks", () => {
    const { engine, resyncs } = withEvents();
    for (let h = 5000; h < 5010; h++) feed(engine, fullBlock(h, 500, 250, { epoch: "40" }));
    const results = [];
    for (let h = 1; h <= 10; h++) results.push(feed(engine, fullBlock(h, 100)));
    expect(results.slice(0, 9).every((r) => r.includes("is below the newest"))).toBe(true);
    expect(results[9]).toBe("accepted");
    expect(resyncs()[0]).toMatchObject({ from: 5009n, to: 10n, epoch: 1n });
    expect(engine.snapshot()!.ledger.epoch).toBe(1n);
  });

  it("a gap longer than maxHeightJump (a recording resumed days later) is followed", () => {
    const { engine, resyncs } = withEvents({ maxHeightJump: 100, resyncAfterBlocks: 2 });
    feed(engine, fullBlock(1));
    expect(feed(engine, fullBlock(500))).toContain("more than maxHeightJump (100)");
    expect(feed(engine, fullBlock(501))).toBe("accepted");
    expect(resyncs()).toHaveLength(1);
  });

  it("stray old blocks are still rejected: a run must be in order and unbroken", () => {
    const { engine, resyncs } = withEvents({ resyncAfterBlocks: 3 });
    for (let h = 100; h <= 110; h++) feed(engine, fullBlock(h));
    // Old blocks in between good ones: every good block ends the run.
    for (let h = 111; h <= 120; h++) {
      expect(feed(engine, fullBlock(h - 100))).toContain("is below the newest");
      expect(feed(engine, fullBlock(h))).toBe("accepted");
    }
    // Old blocks out of order among themselves, or repeating one height, are no run either.
    for (const h of [5, 3, 9, 9, 9, 2, 8, 8]) expect(feed(engine, fullBlock(h))).toContain("below");
    expect(resyncs()).toEqual([]);
    expect(engine.snapshot()!.ledger.blockHeight).toBe(120n);
    expect(feed(engine, fullBlock(120))).toBe("duplicate");
  });

  it("the rule is in the config, bounded like the rest", () => {
    expect(() => createEngine({ strategy: aip34(), config: { resyncAfterBlocks: 0 } })).toThrow(
      "resyncAfterBlocks: must be at least 1",
    );
    expect(() => createEngine({ strategy: aip34(), config: { maxHeightJump: 0.5 } })).toThrow(
      "maxHeightJump: must be a whole number of heights",
    );
  });
});

describe("ledger versions and timestamps never go back", () => {
  /** `GET /v1`'s ledger info as an object. */
  const ledgerInfo = (s: ReturnType<typeof setup>) =>
    JSON.parse(new TextDecoder().decode(s.get("/v1").body)) as Record<string, string>;

  it("a block whose versions go back is rejected, naming the field and both values; /v1 stays whole", () => {
    const s = setup();
    s.blocks(1, 3);
    const before = s.get("/v1");
    // Heights, epoch and chain are in order: only the versions went back below block 3's.
    expect(feed(s.engine, block(4, { first_version: "2500", last_version: "4999" }))).toBe(
      "first_version: 2500 is not above the newest accepted ledger version 3999; versions must increase from block to block",
    );
    expect(feed(s.engine, block(4, { first_version: "3999", last_version: "4999" }))).toContain(
      "first_version: 3999 is not above",
    );
    // Only a last version said: that one is named.
    expect(
      feed(s.engine, block(4, { first_version: undefined, last_version: "10", epoch: "2" })),
    ).toBe(
      "last_version: 10 is not above the newest accepted ledger version 3999; versions must increase from block to block",
    );
    expect(s.get("/v1")).toEqual(before);
    expect(s.engine.counters()).toMatchObject({ accepted: 3, rejected: 3, resyncs: 0 });
    expect(feed(s.engine, block(4))).toBe("accepted");
    const info = ledgerInfo(s);
    expect(info).toMatchObject({ ledger_version: "4999", oldest_ledger_version: "1000" });
    expect(s.get("/v1/estimate_gas_price").headers).toMatchObject({
      "X-Aptos-Ledger-Version": "4999",
      "X-Aptos-Ledger-Oldest-Version": "1000",
    });
  });

  it("a block without versions keeps the newest's: the block after it cannot go back", () => {
    const { engine } = withEvents();
    feed(engine, block(1));
    expect(feed(engine, block(2, { first_version: null as never, last_version: undefined }))).toBe(
      "accepted",
    );
    expect(engine.snapshot()!.ledger.ledgerVersion).toBe(1999n);
    expect(feed(engine, block(3, { first_version: "5", last_version: "9" }))).toBe(
      "first_version: 5 is not above the newest accepted ledger version 1999; versions must increase from block to block",
    );
    expect(feed(engine, block(3))).toBe("accepted");
    const l = engine.snapshot()!.ledger;
    expect([l.oldestLedgerVersion, l.ledgerVersion]).toEqual([1000n, 3999n]);
  });

  it("a timestamp below the newest's is no rule (some chains' go back): the block is taken, its time served", () => {
    const { engine } = withEvents();
    feed(engine, block(1));
    expect(feed(engine, block(2, { timestamp_usec: "1700000000000000" }))).toBe("accepted");
    expect(engine.snapshot()!.ledger.timestampUsec).toBe(1700000000000000n);
    expect(engine.counters()).toMatchObject({ accepted: 2, rejected: 0 });
  });

  it("a block without a timestamp keeps the last one on the wire: no 0, no failed health check", () => {
    const s = setup({ maxStalenessMs: false });
    s.blocks(1, 2);
    const t2 = block(2).timestamp_usec as string;
    // The helper's clock is 0.5 s after block 2's timestamp.
    expect(s.get("/v1/-/healthy?duration_secs=5").status).toBe(200);
    s.engine.ingest(block(3, { timestamp_usec: undefined }));
    expect(ledgerInfo(s)).toMatchObject({ ledger_timestamp: t2, block_height: "3" });
    expect(s.get("/v1").headers["X-Aptos-Ledger-TimestampUsec"]).toBe(t2);
    expect(s.get("/v1/-/healthy?duration_secs=5").status).toBe(200);
  });

  it("at an epoch change versions go on from the last epoch's, and the windows start afresh", () => {
    const s = setup();
    s.blocks(1, 5);
    expect(feed(s.engine, block(6, { epoch: "2", first_version: "100" }))).toContain(
      "first_version: 100 is not above",
    );
    expect(feed(s.engine, block(6, { epoch: "2" }))).toBe("accepted");
    expect(ledgerInfo(s)).toMatchObject({
      epoch: "2",
      ledger_version: "6999",
      oldest_ledger_version: "6000",
      oldest_block_height: "6",
    });
  });

  it("a chain reset (heights, versions back at the start) is followed after 10 blocks, /v1 whole", () => {
    const s = setup();
    s.blocks(5000, 5009, { epoch: "40" });
    // A wiped test network: heights from 1, versions from 0, timestamps from now on.
    const fresh = (h: number) =>
      block(h, {
        first_version: String(h * 10),
        last_version: String(h * 10 + 9),
        timestamp_usec: String(1_800_000_000_000_000 + h),
      });
    for (let h = 1; h <= 9; h++) expect(feed(s.engine, fresh(h))).toContain("is below the newest");
    expect(feed(s.engine, fresh(10))).toBe("accepted");
    expect(s.engine.counters().resyncs).toBe(1);
    expect(feed(s.engine, fresh(11))).toBe("accepted");
    expect(ledgerInfo(s)).toMatchObject({
      epoch: "1",
      ledger_version: "119",
      oldest_ledger_version: "100",
      block_height: "11",
      oldest_block_height: "10",
    });
  });

  it("a poison version accepted once is dropped after 10 blocks, as a poison height is", () => {
    const { engine, resyncs } = withEvents();
    feed(engine, block(1));
    expect(feed(engine, block(2, { last_version: POISON }))).toBe("accepted");
    for (let h = 3; h <= 11; h++) expect(feed(engine, block(h))).toContain("is not above");
    expect(feed(engine, block(12))).toBe("accepted");
    expect(resyncs()).toEqual([{ type: "resynced", from: 2n, to: 12n, epoch: 1n, rejected: 9 }]);
    const l = engine.snapshot()!.ledger;
    expect([l.oldestLedgerVersion, l.ledgerVersion]).toEqual([12000n, 12999n]);
  });

  it("a run whose versions go back among themselves is not followed", () => {
    const { engine, resyncs } = withEvents({ resyncAfterBlocks: 3 });
    feed(engine, block(100));
    for (const h of [1, 2, 3, 4, 5])
      expect(feed(engine, block(h, { first_version: "7", last_version: "8" }))).toContain(
        "below the newest",
      );
    expect(resyncs()).toEqual([]);
    expect(engine.snapshot()!.ledger.blockHeight).toBe(100n);
  });
});

describe("the CLI and the backtest follow the same rule", () => {
  const dir = mkdtempSync(join(tmpdir(), "gasdigest-poison-"));
  const lines = [
    fullBlock(1, 100),
    fullBlock(2, 100, 250, { height: POISON }),
    ...Array.from({ length: 12 }, (_, i) => fullBlock(3 + i, 300)),
  ].map((b) => JSON.stringify(b));
  const path = join(dir, "poison.ndjson");
  writeFileSync(path, `${lines.join("\n")}\n`);

  it("replay rejects the poison line, and prints the blocks after it", async () => {
    const r = await runCli(["replay", "--input", path]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([
      `line 2: height: ${POISON} is ${U64_MAX - 1n} above the newest accepted height 1; more than maxHeightJump (1000000)`,
    ]);
    const heights = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).height);
    expect(heights).toEqual(["1", ...Array.from({ length: 12 }, (_, i) => String(3 + i))]);
  });

  it("a backtest sees the same blocks as its engines, through a resync", () => {
    const bt = createBacktest({
      strategies: [{ strategy: aip34() }, { strategy: geth(), config: { maxHeightJump: 5 } }],
      config: { resyncAfterBlocks: 3 },
    });
    bt.push(fullBlock(1, 100, 250, { height: POISON }));
    expect(() => bt.push(fullBlock(1))).toThrow(BlockOrderError);
    expect(() => bt.push(fullBlock(2))).toThrow(BlockOrderError);
    expect(bt.push(fullBlock(3))).toBe("accepted");
    expect(bt.push(fullBlock(4))).toBe("accepted");
    expect(bt.result()).toMatchObject({ blocks: 3, lastHeight: "4" });
  });
});
