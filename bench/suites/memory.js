// Issue 8's memory suite: bytes each strategy retains after N blocks, at window sizes from
// 10^2 to 10^6 blocks (10^5 blocks and windows up to 10^5 in quick mode). aip34 keeps one
// price per block of its window, so it grows with the window; tdigest keeps a fixed number of
// centroids. Blocks are fed straight to the strategy (one estimate at the end: aip34 sorts its
// whole window per estimate, which is what a 10^6-block window makes impractical).
import { parseBlockSample } from "../../dist/core/blockSample.js";
import { parseGasConfig } from "../../dist/core/config.js";
import { aip34 } from "../../dist/strategies/aip34.js";
import { tdigest } from "../../dist/strategies/tdigest.js";
import { prng, retainedBytes } from "../lib.js";

function blockPool() {
  const rand = prng(11);
  return Array.from({ length: 4096 }, (_, h) => {
    const n = h % 10 === 0 ? 2 : 4 + Math.floor(rand() * 5);
    const price = () => String(100 + (rand() < 0.7 ? 0 : Math.floor(rand() * 5000)));
    return parseBlockSample({
      height: String(h + 1),
      epoch: "1",
      gas_unit_prices: Array.from({ length: n }, price),
    });
  });
}

const windowed = (w) => ({
  lowBlockHistory: Math.min(10, w),
  marketBlockHistory: Math.min(30, w),
  aggressiveBlockHistory: w,
  fullBlockTxns: 4,
});
const STRATEGIES = {
  aip34: (w) => aip34(parseGasConfig(windowed(w))),
  "tdigest clearing": (w) =>
    tdigest({
      tiers: {
        low: { windowBlocks: w },
        regular: { windowBlocks: w },
        prioritized: { windowBlocks: w },
      },
    })(parseGasConfig(windowed(w))),
  "tdigest paid": (w) =>
    tdigest({
      tiers: {
        low: { windowBlocks: w, quantile: 0.1, sample: "paid" },
        regular: { windowBlocks: w, quantile: 0.5, sample: "paid" },
        prioritized: { windowBlocks: w, quantile: 0.99, sample: "paid" },
      },
    })(parseGasConfig(windowed(w))),
};

export default async function run({ quick }) {
  const pool = blockPool();
  const blocks = quick ? 100_000 : 1_000_000;
  const windows = quick ? [100, 1_000, 10_000, 100_000] : [100, 1_000, 10_000, 100_000, 1_000_000];
  const feed = (strategy, count) => {
    for (let i = 0; i < count; i++) strategy.ingest(pool[i % pool.length]);
    strategy.estimate();
    return strategy;
  };
  // Warm up every code path (including window eviction) before measuring.
  for (const make of Object.values(STRATEGIES)) feed(make(2_000), 20_000);
  const rows = [];
  const series = {};
  for (const [name, make] of Object.entries(STRATEGIES)) {
    series[name] = [];
    for (const w of windows) {
      const { bytes } = await retainedBytes(() => feed(make(w), blocks));
      // Below ~16 KiB the GC's own noise dominates; negative readings mean "nothing measurable".
      series[name].push({ window: w, bytes: Math.max(0, bytes) });
    }
  }
  for (const w of windows) {
    const base = series.aip34.find((p) => p.window === w).bytes;
    for (const name of ["tdigest clearing", "tdigest paid"]) {
      const ours = series[name].find((p) => p.window === w).bytes;
      rows.push({
        name: `${name} vs aip34, window ${w.toLocaleString("en-US")} blocks`,
        ours: ours / 1024,
        baseline: base / 1024,
        unit: "KiB retained",
        ratio: Math.max(base, 16 * 1024) / Math.max(ours, 16 * 1024),
        note: `after ${blocks.toLocaleString("en-US")} blocks; >1 = tdigest smaller; readings under 16 KiB are GC noise and count as 16 KiB in the ratio`,
      });
    }
  }
  return { title: "Memory retained by each strategy, by window size", rows, series, blocks };
}
