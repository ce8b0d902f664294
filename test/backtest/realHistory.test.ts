// The real history and every simulator scenario through the backtest, as CI runs them: the
// calibrated strategy keeps each tier's promise within a point (or does better where even the
// minimum price over-delivers), and its prioritized tier overpays less than every baseline's
// at the same inclusion. Sizes are small enough for CI; docs/backtest.md has the full runs.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createHistoryStats } from "../../src/backtest/createHistoryStats.js";
import type { StrategyResult } from "../../src/backtest/index.js";
import { parseBlockSample } from "../../src/index.js";
import { SCENARIOS } from "../../src/sources/simulator/regimes.js";
import { runCli } from "../helpers/cli.js";

const REAL = "test/fixtures/eth-2017-12/blocks-4710000-4719999.ndjson";
const WEI = "test/fixtures/eth-2017-12/wei.config.json";
const PROMISES = { prioritized: [1, 0.99], regular: [3, 0.95], deprioritized: [10, 0.9] } as const;

async function backtest(args: string[]) {
  const r = await runCli(["backtest", ...args, "--json"]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { strategies: StrategyResult[] };
}

/**
 * Each promise kept within `slack`; above it only where the minimum price over-delivers, or
 * where bids at the minimum that got in make the difference.
 */
function expectKept(calibrated: StrategyResult, slack: number, floor: StrategyResult) {
  for (const [tier, [k, p]] of Object.entries(PROMISES) as [
    keyof typeof PROMISES,
    readonly [number, number],
  ][]) {
    const t = calibrated.tiers[tier];
    expect(t.promise).toMatchObject({ withinBlocks: k, probability: p });
    const kept = t.promise!.achieved!;
    expect(kept, `${tier} kept`).toBeGreaterThanOrEqual(p - slack);
    // The minimum price bid by the lowest tier of a strategy that serves it on an idle chain.
    const atMinimum = floor.tiers.deprioritized.inclusion[`within${k}` as "within1"]!;
    const chosen = t.promise!.achievedAboveMinimum;
    // The excess is free (bids at the minimum that got in) when, without them, no more than the
    // promise is kept. (On 4,000 blocks of spike, with few bids above the minimum, the regular
    // tier keeps 91 % of those: the promise is about all bids, and those keep 97.6 %.)
    const overByFreeHits = chosen !== null && chosen <= p + slack;
    if (!overByFreeHits)
      expect(kept, `${tier} kept (above the minimum: ${chosen})`).toBeLessThanOrEqual(
        Math.max(p + slack, atMinimum + slack),
      );
  }
}

describe("backtest: the real history (Ethereum, December 2017)", () => {
  it("calibrated keeps its promises within a point and pays less than geth in the next block", async () => {
    const r = await backtest([
      "--input",
      REAL,
      "--config",
      WEI,
      "--strategies",
      "aip34,geth,calibrated",
    ]);
    const [aip34, geth, calibrated] = r.strategies as [
      StrategyResult,
      StrategyResult,
      StrategyResult,
    ];
    expectKept(calibrated, 0.01, aip34);
    // 99 % in 1 block: geth gets 99.4 % at a median of 5x; calibrated about 99 % at 4x.
    expect(calibrated.tiers.prioritized.overpayment!.median).toBeLessThan(
      geth.tiers.prioritized.overpayment!.median,
    );
  }, 120_000);
});

describe("the real history's README", () => {
  it("counts the blocks at and below 1 gwei that the file holds", () => {
    const blocks = readFileSync(REAL, "utf8")
      .trim()
      .split("\n")
      .map((line) => parseBlockSample(JSON.parse(line)));
    const gwei = 1_000_000_000n;
    const cheapest = blocks.map((b) => b.gasUnitPrices.reduce((a, p) => (p < a ? p : a)));
    const stats = createHistoryStats(JSON.parse(readFileSync(WEI, "utf8")));
    for (const b of blocks) stats.push(b);
    const count = (n: number) => n.toLocaleString("en-US");
    const atMinimum = Math.round(stats.result().atMinimumShare! * blocks.length);
    const readme = readFileSync("test/fixtures/eth-2017-12/README.md", "utf8").replace(/\s+/g, " ");
    expect(readme).toContain(
      `paid exactly 1 gwei in ${count(cheapest.filter((p) => p === gwei).length)} blocks and less in ${count(cheapest.filter((p) => p < gwei).length)};`,
    );
    expect(readme).toContain(
      `with the ${count(blocks.filter((b) => !b.blockGasLimitReached).length)} blocks that were not full, ${count(atMinimum)} clear at the minimum`,
    );
  });
});

describe("backtest: every simulator scenario (quick sizes)", () => {
  it.each(SCENARIOS)(
    "%s: calibrated keeps its promises within two points",
    async (scenario) => {
      const file = `${process.env.TMPDIR ?? "/tmp"}/gasdigest-${scenario}-${process.pid}.ndjson`;
      const sim = await runCli([
        "simulate",
        "--scenario",
        scenario,
        "--blocks",
        "4000",
        "--seed",
        "1",
        "--out",
        file,
      ]);
      expect(sim.code).toBe(0);
      const r = await backtest(["--input", file, "--strategies", "aip34,calibrated"]);
      expectKept(r.strategies[1]!, 0.02, r.strategies[0]!);
    },
    120_000,
  );
});
