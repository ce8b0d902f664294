// calibrated with `roundToBuckets`: the tiers serve buckets, so the lowest price a tier can serve
// is the bucket at or above the minimum, not the minimum itself.
import { describe, expect, it } from "vitest";
import {
  type BlockSampleInput,
  calibrated,
  createEngine,
  serializeBlockSample,
  simulateBlocks,
} from "../../src/index.js";

/** Fine buckets (every 5 units from 101), so rounding moves a bid by little. */
const FINE_BUCKETS = ["0", ...Array.from({ length: 200 }, (_, i) => String(101 + 5 * i))];

/** 2,000 busy blocks, `idle` blocks at the minimum, then 1,000 busy blocks again, renumbered. */
function busyIdleBusy(idle: number): BlockSampleInput[] {
  const busy = [...simulateBlocks({ scenario: "busy", seed: 1, blocks: 3_000 })];
  const wire = (b: (typeof busy)[number]) => JSON.parse(serializeBlockSample(b));
  const chain: BlockSampleInput[] = busy.slice(0, 2_000).map(wire);
  for (let i = 0; i < idle; i++)
    chain.push({ min_gas_unit_price: "100", gas_unit_prices: ["100", "100", "120"] } as never);
  chain.push(...busy.slice(2_000).map(wire));
  return chain.map((b, i) => ({ ...b, height: String(i + 1), epoch: "1" }));
}

describe("calibrated with roundToBuckets", () => {
  it("reads the lowest bucket it can serve as the minimum: an idle stretch teaches the tiers nothing", () => {
    const idle = 3_000;
    const chain = busyIdleBusy(idle);
    const firstBurst = (roundToBuckets: boolean) => {
      const engine = createEngine({
        strategy: calibrated({ roundToBuckets }),
        config: { buckets: FINE_BUCKETS },
      });
      let before: { bids: number; included: number; atMinimum: number } | undefined;
      let idleAtMinimum = 0;
      for (const [i, b] of chain.entries()) {
        engine.ingest(b);
        const record = engine.snapshot()!.promises!.deprioritized;
        if (i === 2_000) before = { ...record, atMinimum: record.includedAtMinimum ?? 0 };
        if (i === 2_000 + idle - 1) {
          idleAtMinimum = (record.includedAtMinimum ?? 0) - before!.atMinimum;
          before = { ...record, atMinimum: record.includedAtMinimum ?? 0 };
        }
        // The lowest tier's first 100 bids of the burst, settled.
        if (i >= 2_000 + idle && record.bids - before!.bids >= 100)
          return { idleAtMinimum, included: record.included - before!.included };
      }
      throw new Error("the burst settled fewer than 100 bids");
    };
    const plain = firstBurst(false);
    const rounded = firstBurst(true);
    // Every idle bid was the lowest bucket (106 over a minimum of 100) and got in: counted as
    // "at the minimum", as without rounding.
    expect(rounded.idleAtMinimum).toBeGreaterThan(idle - 20);
    expect(plain.idleAtMinimum).toBeGreaterThan(idle - 20);
    // Counted as choices, those hits had carried the correction to its floor: the lowest tier
    // (90 % in 10 blocks) then kept 57 of its first 100 bids of the burst, against 96 without
    // rounding.
    expect(plain.included).toBeGreaterThanOrEqual(90);
    expect(rounded.included).toBeGreaterThanOrEqual(90);
  });
});
