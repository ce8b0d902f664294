// Ingest throughput per strategy, in transaction samples/s on 250-transaction blocks of the
// reference prices: each case ingests one block and computes the estimate (what the engine does
// per block). Baseline: an exact sort of the same window per block (every transaction price of
// the last 120 blocks, sorted, the median read), the naive exact way to answer a window query.
// Reported by wall clock (benchmark.js) and by CPU time (steadier on a busy machine).
import { parseGasConfig } from "../../dist/core/config.js";
import { aip34 } from "../../dist/strategies/aip34.js";
import { calibrated } from "../../dist/strategies/calibrated.js";
import { tdigest } from "../../dist/strategies/tdigest.js";
import { cpuRate, makeBlocks, runCases } from "../lib.js";

const paid = {
  deprioritized: { sample: "paid" },
  regular: { sample: "paid" },
  prioritized: { sample: "paid" },
};

/**
 * Per strategy, the step the cases time: ingest one block, compute the estimate. The strategies
 * named in `rising` are given heights that keep rising across the cycles of the blocks, as a
 * chain's do: with the blocks' own heights, which start again every cycle, `anchorBlocks`
 * started learning over at each cycle, so it never ran its two learners (none at all with
 * --quick's 400 blocks). The others take the blocks as they are (the copy costs aip34 ~6 %).
 */
export function ingestSteps(strategies, rising = new Set()) {
  let sink = 0n;
  const steps = Object.fromEntries(
    Object.entries(strategies).map(([name, s]) => {
      let height = 0n;
      return [
        name,
        rising.has(name)
          ? (b) => {
              height++;
              s.ingest({ ...b, height });
              sink += s.estimate().regular;
            }
          : (b) => {
              s.ingest(b);
              sink += s.estimate().regular;
            },
      ];
    }),
  );
  return { steps, sink: () => sink };
}

/** Both calibrated cases get rising heights (the copy costs them ~1 %), so that they compare. */
export const RISING_HEIGHTS = new Set(["calibrated", "calibrated, anchorBlocks 500"]);

export default async function run({ quick }) {
  const config = parseGasConfig({});
  const blocks = makeBlocks(quick ? 400 : 2_000, 11);
  const strategies = {
    aip34: aip34()(config),
    "tdigest clearing": tdigest()(config),
    "tdigest paid": tdigest({ tiers: paid })(config),
    "tdigest paid, weighted by gas_used": tdigest({ tiers: paid, weightByGasUsed: true })(config),
    calibrated: calibrated()(config),
    // Two learners side by side (replicas that agree), from height 500 on.
    "calibrated, anchorBlocks 500": calibrated({ anchorBlocks: 500 })(config),
  };
  const window = [];
  const byValue = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  let sink = 0n;
  const exactSort = (b) => {
    window.push(b.gasUnitPrices);
    if (window.length > 120) window.shift();
    const all = window.flat().sort(byValue);
    sink += all[all.length >> 1];
  };
  const { steps, sink: strategySink } = ingestSteps(strategies, RISING_HEIGHTS);
  steps["exact sort of the window (baseline)"] = exactSort;
  let i = 0;
  const hz = await runCases(
    Object.fromEntries(
      Object.entries(steps).map(([name, step]) => [name, () => step(blocks[i++ % blocks.length])]),
    ),
    { quick },
  );
  const cpu = Object.fromEntries(
    Object.entries(steps).map(([name, step]) => [
      name,
      cpuRate(name.startsWith("exact") ? blocks.slice(0, 100) : blocks, step),
    ]),
  );
  if (sink === -1n || strategySink() === -1n) console.log(sink);
  const base = "exact sort of the window (baseline)";
  const rate = (name) => hz[name].hz * 250;
  return {
    title: "Ingest per strategy (250-transaction blocks)",
    rows: [
      {
        name: "calibrated vs aip34: ingest + estimate",
        ours: rate("calibrated"),
        baseline: rate("aip34"),
        unit: "samples/s",
        ratio: rate("calibrated") / rate("aip34"),
        note: `baseline: aip34 on the same blocks; <1 = calibrated is slower; by CPU time ${(cpu.calibrated / 1e6).toFixed(2)} M/s vs ${(cpu.aip34 / 1e6).toFixed(2)} M/s; target: calibrated >= 2 M/s`,
      },
      {
        name: "calibrated with anchorBlocks vs without: ingest + estimate",
        ours: rate("calibrated, anchorBlocks 500"),
        baseline: rate("calibrated"),
        unit: "samples/s",
        ratio: rate("calibrated, anchorBlocks 500") / rate("calibrated"),
        note: `baseline: calibrated alone on the same blocks; <1 = slower (two learners); by CPU time ${(cpu["calibrated, anchorBlocks 500"] / 1e6).toFixed(2)} M/s vs ${(cpu.calibrated / 1e6).toFixed(2)} M/s; target: >= 2 M/s`,
      },
      ...Object.keys(strategies).map((name) => ({
        name: `${name}: ingest + estimate`,
        ours: rate(name),
        baseline: rate(base),
        unit: "samples/s",
        ratio: rate(name) / rate(base),
        note: `>1 = faster than the exact sort; by CPU time ${(cpu[name] / 1e6).toFixed(2)} M/s vs ${(cpu[base] / 1e6).toFixed(3)} M/s; ±${hz[name].rme.toFixed(1)} %; targets: aip34 >= 5 M/s, tdigest paid >= 3 M/s, calibrated >= 2 M/s`,
      })),
    ],
  };
}
