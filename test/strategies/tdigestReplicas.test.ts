// Replicas of one stream, started at different heights, serve the same tdigest estimates once
// each window has been filled from the blocks both hold (src/sketch/slidingDigest.ts cuts chunks
// and rebuilds its summaries at heights, and compresses after every block).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type BlockSample, parseBlockSample } from "../../src/core/blockSample.js";
import type { GasConfigInput } from "../../src/core/config.js";
import { createEngine } from "../../src/core/createEngine.js";
import type { GasEstimate } from "../../src/core/types.js";
import { tdigest } from "../../src/strategies/tdigest.js";
import type { TDigestStrategyOptions } from "../../src/strategies/tdigestOptions.js";

const dir = "test/fixtures/eth-2017-12";
const config = JSON.parse(readFileSync(`${dir}/wei.config.json`, "utf8")) as GasConfigInput;
// 11 prices per block in wei, nearly all distinct: past a compression of 50 every window's
// digests merge centroids, and the order of those merges shows in the estimates.
const chain: BlockSample[] = readFileSync(`${dir}/blocks-4710000-4719999.ndjson`, "utf8")
  .split("\n", 4_000)
  .map((line) => parseBlockSample(JSON.parse(line)));

const START = 1_700; // the later replica's first block
const FROM = 2_800; // both have filled every window from the same blocks by then

/** The estimates a replica fed the chain from index `start` served after each block from `FROM` on. */
function served(options: TDigestStrategyOptions, start: number): GasEstimate[] {
  const engine = createEngine({ strategy: tdigest(options), config });
  const out: GasEstimate[] = [];
  for (let i = start; i < chain.length; i++) {
    engine.ingest(chain[i]!);
    if (i >= FROM) out.push(engine.snapshot()!.estimate!);
  }
  return out;
}

const tiers = (exactUpTo: number): TDigestStrategyOptions => ({
  compression: 50,
  exactUpTo,
  chunks: 16,
  tiers: {
    deprioritized: { windowBlocks: 700, quantile: 0.1, sample: "paid" },
    regular: { windowBlocks: 1_000, quantile: 0.5, sample: "paid" },
    prioritized: { windowBlocks: 800, quantile: 0.95, sample: "paid" },
  },
});

describe("tdigest: replicas of one stream", () => {
  for (const [kind, options] of [
    ["windows cut into chunks", tiers(0)],
    ["windows of single blocks, compressed", tiers(1_024)],
  ] as const) {
    it(`${kind}: a replica started 1,700 blocks later serves what the first serves`, () => {
      const first = served(options, 0);
      const later = served(options, START);
      expect(later).toEqual(first);
      // Not vacuous: the estimates move over those 1,200 blocks.
      expect(new Set(first.map((e) => e.regular)).size).toBeGreaterThan(20);
    });
  }
});
