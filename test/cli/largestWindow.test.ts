import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CALIBRATED_NODE_WARM_START,
  CALIBRATED_WARM_START,
  largestWindow,
} from "../../src/cli/largestWindow.js";
import { DEFAULT_GAS_CONFIG, parseGasConfig } from "../../src/core/config.js";

const defaults = { gas: DEFAULT_GAS_CONFIG, strategies: {} };

describe("largestWindow: the blocks a warm start or a backfill reads", () => {
  it("is AIP-34's history plus the skipped newest block for aip34, one more for a default publisher", () => {
    expect(largestWindow(defaults, "aip34")).toBe(121);
    // A publisher with no tdigest block backfills what a default tdigest replica reads.
    expect(largestWindow(defaults)).toBe(largestWindow(defaults, "tdigest"));
    expect(largestWindow(defaults)).toBe(122);
    const noSkip = { gas: parseGasConfig({ skipLatestBlock: false }), strategies: {} };
    expect(largestWindow(noSkip, "aip34")).toBe(120);
  });

  it("gives calibrated its learning's warm start: 10,001 from a stream, 2,001 from a node", () => {
    expect(largestWindow(defaults, "calibrated")).toBe(CALIBRATED_WARM_START + 1);
    expect(largestWindow(defaults, "calibrated", CALIBRATED_NODE_WARM_START)).toBe(2_001);
    // A publisher sizes for every block its --config sets: a calibrated block counts too.
    const file = { ...defaults, strategies: { calibrated: {} } };
    expect(largestWindow(file)).toBe(10_001);
    expect(largestWindow(file, undefined, CALIBRATED_NODE_WARM_START)).toBe(2_001);
    expect(largestWindow(file, "aip34")).toBe(121);
  });

  it("reads twice calibrated's anchorBlocks, after which its replicas agree", () => {
    const file = { ...defaults, strategies: { calibrated: { anchorBlocks: 8_000 } } };
    expect(largestWindow(file, "calibrated")).toBe(16_001);
    expect(largestWindow(file, "calibrated", CALIBRATED_NODE_WARM_START)).toBe(16_001);
    expect(largestWindow(file)).toBe(16_001);
    const small = { ...defaults, strategies: { calibrated: { anchorBlocks: 500 } } };
    expect(largestWindow(small, "calibrated")).toBe(10_001);
    expect(largestWindow(small, "calibrated", CALIBRATED_NODE_WARM_START)).toBe(2_001);
  });

  it("counts a longer tdigest window, only for tdigest or a publisher", () => {
    const file = {
      ...defaults,
      strategies: { tdigest: { tiers: { prioritized: { windowBlocks: 5_000 } } } },
    };
    // A 5,000-block window is cut into 32 chunks of 157 blocks: a replica agrees with the others
    // once it has dropped the first chunk it read (docs/operations.md).
    expect(largestWindow(file, "tdigest")).toBe(5_158);
    expect(largestWindow(file)).toBe(5_158);
    expect(largestWindow(file, "calibrated", CALIBRATED_NODE_WARM_START)).toBe(2_001);
    const exact = {
      ...defaults,
      strategies: { tdigest: { exactUpTo: 5_000, tiers: file.strategies.tdigest.tiers } },
    };
    expect(largestWindow(exact, "tdigest")).toBe(5_002);
  });

  it("counts a tdigest tier's default window (AIP-34's) and the block after it, with or without a tdigest block", () => {
    const gas = parseGasConfig({ skipLatestBlock: false });
    expect(largestWindow({ gas, strategies: {} }, "tdigest")).toBe(121);
    expect(largestWindow({ gas, strategies: { tdigest: {} } }, "tdigest")).toBe(121);
    expect(largestWindow({ gas, strategies: {} }, "aip34")).toBe(120);
    // A default window longer than exactUpTo: 2,000 blocks in chunks of 63.
    const long = parseGasConfig({ aggressiveBlockHistory: 2_000 });
    expect(largestWindow({ gas: long, strategies: {} }, "tdigest")).toBe(2_064);
  });

  it("is what docs/operations.md says a 10,000-block tdigest window reads", () => {
    const doc = readFileSync(join(import.meta.dirname, "../../docs/operations.md"), "utf8");
    const m = /`tdigest` window of 10,000 blocks[^)]*? reads ([\d,]+)/.exec(
      doc.replace(/\s+/g, " "),
    );
    expect(m, "the example in docs/operations.md").not.toBeNull();
    const file = {
      ...defaults,
      strategies: { tdigest: { tiers: { prioritized: { windowBlocks: 10_000 } } } },
    };
    // 10,000 blocks in 32 chunks of 313, and the newest block (skipLatestBlock).
    expect(largestWindow(file, "tdigest")).toBe(10_314);
    expect(Number(m![1]!.replaceAll(",", ""))).toBe(largestWindow(file, "tdigest"));
  });
});
