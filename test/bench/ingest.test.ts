// The ingest bench times what its rows say: the calibrated cases are given heights that keep
// rising across the cycles of the bench's blocks, so `anchorBlocks` runs its two learners side
// by side (the row "calibrated with anchorBlocks vs without") instead of starting over every
// cycle.
import { describe, expect, it } from "vitest";
import type { BlockSample } from "../../src/core/blockSample.js";
import type { GasEstimate, Strategy } from "../../src/core/types.js";

type Step = (b: BlockSample) => void;
const load = async <T>(path: string): Promise<T> =>
  (await import(new URL(path, import.meta.url).href)) as T;
const { makeBlocks } = await load<{ makeBlocks: (n: number, seed: number) => BlockSample[] }>(
  "../../bench/lib.js",
);
const { ingestSteps, RISING_HEIGHTS } = await load<{
  RISING_HEIGHTS: Set<string>;
  ingestSteps: (
    s: Record<string, Strategy>,
    rising: Set<string>,
  ) => { steps: Record<string, Step> };
}>("../../bench/suites/ingest.js");
const { anchored } = await load<{ anchored: (make: () => Strategy, every: bigint) => Strategy }>(
  "../../dist/strategies/calibrated/anchored.js",
);

describe("bench/suites/ingest.js", () => {
  it("gives both calibrated cases rising heights", () => {
    expect([...RISING_HEIGHTS].sort()).toEqual(["calibrated", "calibrated, anchorBlocks 500"]);
  });

  it("anchorBlocks 500 runs two learners once past height 500, over cycles of --quick's 400 blocks", () => {
    const estimate: GasEstimate = { deprioritized: 100n, regular: 100n, prioritized: 100n };
    let learnerIngests = 0;
    const heights: bigint[] = [];
    const learner = (): Strategy => ({
      name: "learner",
      ingest: () => {
        learnerIngests++;
      },
      estimate: () => estimate,
      reset: () => {},
    });
    const recorder: Strategy = {
      name: "recorder",
      ingest: (b) => {
        heights.push(b.height);
      },
      estimate: () => estimate,
      reset: () => {},
    };
    const { steps } = ingestSteps(
      { anchored: anchored(learner, 500n), recorder },
      new Set(["anchored", "recorder"]),
    );
    const blocks = makeBlocks(400, 11);
    // The first 500 heights: one learner; then 1,500 more blocks, the cycle coming round 3 times.
    for (let k = 0; k < 500; k++) steps.anchored!(blocks[k % 400]!);
    learnerIngests = 0;
    for (let k = 500; k < 2000; k++) {
      steps.anchored!(blocks[k % 400]!);
      steps.recorder!(blocks[k % 400]!);
    }
    expect(learnerIngests).toBe(2 * 1500);
    expect(heights.every((h, k) => k === 0 || h > heights[k - 1]!)).toBe(true);
  });
});
