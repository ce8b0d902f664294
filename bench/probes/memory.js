// One memory measurement in a fresh process (run by bench/suites/memory.js):
//   node --expose-gc bench/probes/memory.js <strategy> <windowBlocks> <blocks>
// prints {"bytes": N}: heap + array buffers retained by the strategy after <blocks> blocks.
import { parseBlockSample } from "../../dist/core/blockSample.js";
import { MAX_BLOCK_HISTORY, parseGasConfig } from "../../dist/core/config.js";
import { aip34 } from "../../dist/strategies/aip34.js";
import { tdigest } from "../../dist/strategies/tdigest.js";
import { prng, retainedBytes } from "../lib.js";

const [name, windowArg, blocksArg] = process.argv.slice(2);
const w = Number(windowArg);
const blocks = Number(blocksArg);
// Windows past the config's bound (100 000 blocks) are measured as a reference only: the
// validated config is made at the bound and the window set afterwards.
const config = {
  ...parseGasConfig({
    lowBlockHistory: Math.min(10, w),
    marketBlockHistory: Math.min(30, w),
    aggressiveBlockHistory: Math.min(w, MAX_BLOCK_HISTORY),
    fullBlockTxns: 4,
  }),
  aggressiveBlockHistory: w,
};
const paid = (q) => ({ windowBlocks: w, quantile: q, sample: "paid" });
const makers = {
  aip34: () => aip34()(config),
  "tdigest clearing": () =>
    tdigest({
      tiers: {
        deprioritized: { windowBlocks: w },
        regular: { windowBlocks: w },
        prioritized: { windowBlocks: w },
      },
    })(config),
  "tdigest paid": () =>
    tdigest({ tiers: { deprioritized: paid(0.1), regular: paid(0.5), prioritized: paid(0.99) } })(
      config,
    ),
};
if (!makers[name] || !(w > 0) || !(blocks > 0)) {
  process.stderr.write("usage: memory.js aip34|'tdigest clearing'|'tdigest paid' WINDOW BLOCKS\n");
  process.exit(1);
}
// Small blocks (2-8 transactions, 1 in 10 idle), reused from a pool.
const rand = prng(11);
const pool = Array.from({ length: 4096 }, (_, h) => {
  const n = h % 10 === 0 ? 2 : 4 + Math.floor(rand() * 5);
  const price = () => String(100 + (rand() < 0.7 ? 0 : Math.floor(rand() * 5000)));
  return parseBlockSample({
    height: String(h + 1),
    epoch: "1",
    gas_unit_prices: Array.from({ length: n }, price),
  });
});
const feed = (strategy, count) => {
  for (let i = 0; i < count; i++) strategy.ingest(pool[i % pool.length]);
  strategy.estimate();
  return strategy;
};
// Warm up every code path (eviction included) so compiled code is not counted.
feed(makers[name](), Math.min(blocks, 3 * w + 20_000));
const { bytes, kept } = await retainedBytes(() => feed(makers[name](), blocks));
process.stdout.write(`${JSON.stringify({ bytes, estimate: String(kept.estimate().regular) })}\n`);
