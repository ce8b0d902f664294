// Replicas of one stream, started at different heights, serve the same calibrated estimates with
// `anchorBlocks` (src/strategies/calibrated/anchored.ts); without it they differ for good.
import { describe, expect, it } from "vitest";
import type { BlockSample } from "../../src/core/blockSample.js";
import { createEngine } from "../../src/core/createEngine.js";
import type { Snapshot } from "../../src/core/types.js";
import { simulateBlocks } from "../../src/sources/simulator/simulateBlocks.js";
import type { CalibratedOptions } from "../../src/strategies/calibrated/options.js";
import { calibrated } from "../../src/strategies/calibrated.js";

const K = 1_000;
// A spiky chain whose epoch changes every 2,500 blocks (learning carries over them by default).
const blocks: BlockSample[] = [
  ...simulateBlocks({ scenario: "mixed", seed: 3, blocks: 9_000, epochLength: 2_500 }),
];

/** What each replica served after every block from `from` on: the estimate and the promises. */
function served(options: CalibratedOptions, start: number, from: number): string[] {
  const engine = createEngine({ strategy: calibrated(options) });
  const out: string[] = [];
  const show = (s: Snapshot) =>
    JSON.stringify({ e: s.estimate, p: s.promises }, (_, v) =>
      typeof v === "bigint" ? String(v) : v,
    );
  for (let i = start; i < blocks.length; i++) {
    engine.ingest(blocks[i]!);
    if (i >= from) out.push(show(engine.snapshot()!));
  }
  return out;
}

describe("calibrated replicas of one stream", () => {
  it("serve the same estimates and promises once each has read 2 x anchorBlocks + 1 blocks", () => {
    const late = 3_300; // started later, with 2K + 1 blocks read back (a warm start)
    const from = late + 2 * K + 1;
    const options = { anchorBlocks: K };
    const a = served(options, 0, from);
    const b = served(options, late, from);
    expect(a.length).toBe(blocks.length - from);
    const differing = a.filter((x, i) => x !== b[i]).length;
    expect(differing).toBe(0);
    // A third, started at a height that is itself a multiple (its learning starts there, as
    // the others' did): the same, with fewer blocks read.
    const atMultiple = blocks.findIndex((x) => x.height === 4_000n);
    expect(atMultiple).toBeGreaterThan(0);
    expect(served(options, atMultiple, from)).toEqual(a);
  });

  it("differ for good without it (the learning depends on the whole history)", () => {
    const late = 3_300;
    const from = late + 2 * K + 1;
    const a = served({}, 0, from);
    const b = served({}, late, from);
    expect(a.filter((x, i) => x !== b[i]).length).toBeGreaterThan(100);
  });
});
