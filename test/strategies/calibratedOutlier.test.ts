// One block far above the rest: what a single outlier (a block full by its gas limit with one
// transaction at a price no other block comes near, or a peer's bad block that is still valid)
// does to the calibrated strategy's estimates, against the same chain without it.
import { describe, expect, it } from "vitest";
import {
  type BlockSample,
  calibrated,
  createEngine,
  type GasEstimate,
  parseBlockSample,
  serializeBlockSample,
  simulateBlocks,
  TIERS,
} from "../../src/index.js";

const OUTLIER_AT = 3_000;

/** Each block's served estimate from the outlier's block on. */
function served(blocks: readonly BlockSample[]): GasEstimate[] {
  const engine = createEngine({ strategy: calibrated() });
  const out: GasEstimate[] = [];
  blocks.forEach((block, i) => {
    engine.ingest(block);
    if (i >= OUTLIER_AT) out.push(engine.snapshot()!.estimate!);
  });
  return out;
}

/** `blocks` with block `at` replaced by a full block holding one transaction at `price`. */
function withOutlier(blocks: readonly BlockSample[], at: number, price: bigint): BlockSample[] {
  const wire = JSON.parse(serializeBlockSample(blocks[at]!));
  wire.gas_unit_prices = [String(price)];
  delete wire.gas_used;
  wire.block_gas_limit_reached = true;
  const copy = [...blocks];
  copy[at] = parseBlockSample(wire);
  return copy;
}

describe("calibrated: one block far above the rest", () => {
  it("moves the tiers only while the short windows hold it, not for the hundreds of blocks of a long one", () => {
    // A busy chain clearing at 100-500, and the same chain with one block at 10^10.
    const chain = [
      ...simulateBlocks({ scenario: "busy", seed: 3, blocks: 3_600, epochLength: 10_000 }),
    ];
    const plain = served(chain);
    const hit = served(withOutlier(chain, OUTLIER_AT, 10_000_000_000n));
    for (const tier of TIERS) {
      // The blocks after the outlier at which the tier served more than 10 times what it would
      // have without it. Read at the top rank of the 100- and 500-block windows, the outlier
      // made the prioritized tier serve about 10^10 for 358 of the next 600 blocks.
      const far = plain.flatMap((p, i) => (hit[i]![tier] > 10n * p[tier] ? [i] : []));
      expect(far.length, tier).toBeLessThanOrEqual(5);
      expect(Math.max(-1, ...far), tier).toBeLessThan(20);
    }
  });
});
