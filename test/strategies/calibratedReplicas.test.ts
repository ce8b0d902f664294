// Replicas of one stream, started at different heights, serve the same calibrated estimates with
// `anchorBlocks` (src/strategies/calibrated/anchored.ts); without it they differ for good.
import { describe, expect, it } from "vitest";
import {
  type BlockSample,
  parseBlockSample,
  serializeBlockSample,
} from "../../src/core/blockSample.js";
import { createEngine } from "../../src/core/createEngine.js";
import { BlockOrderError } from "../../src/core/errors.js";
import { TIERS } from "../../src/core/tiers.js";
import type { Snapshot } from "../../src/core/types.js";
import { simulateBlocks } from "../../src/sources/simulator/simulateBlocks.js";
import type { CalibratedOptions } from "../../src/strategies/calibrated/options.js";
import { calibrated } from "../../src/strategies/calibrated.js";

const K = 1_000;
// A spiky chain whose epoch changes every 2,500 blocks (learning carries over them by default).
const blocks: BlockSample[] = [
  ...simulateBlocks({ scenario: "mixed", seed: 3, blocks: 9_000, epochLength: 2_500 }),
];
const json = (v: unknown) => JSON.stringify(v, (_, x) => (typeof x === "bigint" ? String(x) : x));

/** Each snapshot a replica fed `chain` from index `start` made from index `from` on. */
function run(options: CalibratedOptions, chain: BlockSample[], start: number, from: number) {
  const engine = createEngine({ strategy: calibrated(options) });
  const out: Snapshot[] = [];
  for (let i = start; i < chain.length; i++) {
    try {
      engine.ingest(chain[i]!);
    } catch (err) {
      // A chain started over: refused until a run of such blocks, then followed (a resync).
      if (!(err instanceof BlockOrderError)) throw err;
    }
    if (i >= from) out.push(engine.snapshot()!);
  }
  return out;
}
const estimates = (snapshots: Snapshot[]) => snapshots.map((s) => json(s.estimate));

describe("calibrated replicas of one stream", () => {
  it("serve the same estimates once each has read 2 x anchorBlocks + 1 blocks", () => {
    const late = 3_300; // started later, with 2K + 1 blocks read back (a warm start)
    const from = late + 2 * K + 1;
    const options = { anchorBlocks: K };
    const a = estimates(run(options, blocks, 0, from));
    expect(a.length).toBe(blocks.length - from);
    expect(estimates(run(options, blocks, late, from))).toEqual(a);
    // A third, started at a height that is itself a multiple (its learning starts there, as
    // the others' did): the same, with fewer blocks read.
    const atMultiple = blocks.findIndex((x) => x.height === 4_000n);
    expect(atMultiple).toBeGreaterThan(0);
    expect(estimates(run(options, blocks, atMultiple, from))).toEqual(a);
  });

  it("differ for good without it (the learning depends on the whole history)", () => {
    const late = 3_300;
    const from = late + 2 * K + 1;
    const a = estimates(run({}, blocks, 0, from));
    const b = estimates(run({}, blocks, late, from));
    expect(a.filter((x, i) => x !== b[i]).length).toBeGreaterThan(100);
  });

  it("start over together on a chain started over at lower heights", () => {
    // A test network wiped: heights 1..3,500, then 1.. again (the engine resyncs to it).
    const restarted = blocks.slice(0, 6_000).map((b, i) => {
      if (i < 3_500) return b;
      const wire = JSON.parse(serializeBlockSample(b));
      return parseBlockSample({ ...wire, height: String(i - 3_499), epoch: String(b.epoch + 10n) });
    });
    const options = { anchorBlocks: K };
    // Two replicas running when it happens, one of them young: the same from the restart on
    // (the young one served its own first learner, the other one of the old chain's).
    // The engine refuses the first 9 blocks of the new chain and follows the tenth
    // (resyncAfterBlocks: 10); each replica served what it had until then.
    const resynced = 3_500 + 9;
    const through = estimates(run(options, restarted, 0, resynced));
    expect(estimates(run(options, restarted, 3_300, resynced))).toEqual(through);
    // The counters go on growing through it.
    const counts = run(options, restarted, 0, 0).map((x) => x.promises!.regular.bids);
    expect(counts.every((n, i) => i === 0 || n >= counts[i - 1]!)).toBe(true);
    // One started on the new chain agrees once it has read 2K + 1 blocks of it.
    const from = 3_500 + 2 * K + 1;
    expect(estimates(run(options, restarted, 3_500, from))).toEqual(through.slice(from - resynced));
  });

  it("start over together where heights skip two multiples or more (a gap, another chain ahead)", () => {
    const jumped = blocks.slice(0, 6_000).map((b, i) => {
      if (i < 3_500) return b;
      const wire = JSON.parse(serializeBlockSample(b));
      return parseBlockSample({ ...wire, height: String(b.height + 7_000n) });
    });
    const options = { anchorBlocks: K };
    // From the block after the jump on (the engine hands a block over when the next arrives).
    const through = estimates(run(options, jumped, 0, 3_501));
    expect(estimates(run(options, jumped, 3_500, 3_501))).toEqual(through);
    // The edge: from just below a multiple to just past the next one skips two (3,999 to
    // 5,001); to just past the first (3,999 to 4,001) is a crossing, and the running replica
    // serves its learner of before the gap until the next multiple.
    const gap = (to: bigint) =>
      blocks.slice(0, 5_000).map((b, i) => {
        if (i < 3_999) return b;
        const wire = JSON.parse(serializeBlockSample(b));
        return parseBlockSample({ ...wire, height: String(to + BigInt(i - 3_999)) });
      });
    const skipTwo = gap(5_001n);
    expect(skipTwo[3_998]!.height).toBe(3_999n);
    expect(estimates(run(options, skipTwo, 3_999, 4_000))).toEqual(
      estimates(run(options, skipTwo, 0, 4_000)),
    );
    const skipOne = gap(4_001n);
    const a = estimates(run(options, skipOne, 0, 4_000));
    const b = estimates(run(options, skipOne, 3_999, 4_000));
    expect(a.filter((x, i) => x !== b[i]).length).toBeGreaterThan(0);
  });

  it("counts what each replica served: its promise counters never go down", () => {
    const snapshots = run({ anchorBlocks: K }, blocks, 0, 0);
    for (const tier of TIERS) {
      let last = { bids: 0, included: 0, includedAtMinimum: 0 };
      for (const s of snapshots) {
        const r = s.promises![tier];
        expect(r.bids).toBeGreaterThanOrEqual(last.bids);
        expect(r.included).toBeGreaterThanOrEqual(last.included);
        expect(r.includedAtMinimum ?? 0).toBeGreaterThanOrEqual(last.includedAtMinimum);
        expect(r.rate).toBe(r.bids > 0 ? r.included / r.bids : null);
        last = { bids: r.bids, included: r.included, includedAtMinimum: r.includedAtMinimum ?? 0 };
      }
      // About one served bid a block, all along (the served learner changes every K blocks).
      expect(last.bids).toBeGreaterThan(blocks.length - 50);
      expect(last.bids).toBeLessThanOrEqual(blocks.length);
    }
  });
});
