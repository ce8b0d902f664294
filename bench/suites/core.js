// Issue 2's bench: aip34 ingest throughput (transaction samples/s on 250-transaction blocks)
// against an exact sort of the same window per block, and the cost of a snapshot read against
// reading a plain object property.

import { parseBlockSample } from "../../dist/core/blockSample.js";
import { parseGasConfig } from "../../dist/core/config.js";
import { createEngine } from "../../dist/core/createEngine.js";
import { aip34 } from "../../dist/strategies/aip34.js";
import { prng, runCases } from "../lib.js";

const TXNS = 250;

function makeBlocks(count, seed) {
  const rand = prng(seed);
  const blocks = [];
  for (let h = 1; h <= count; h++) {
    const prices = new Array(TXNS);
    for (let i = 0; i < TXNS; i++)
      prices[i] = String(100 + Math.floor(rand() < 0.8 ? 0 : rand() * 900));
    blocks.push(
      parseBlockSample({ height: String(h), epoch: "1", chain_id: 4, gas_unit_prices: prices }),
    );
  }
  return blocks;
}

export default async function run({ quick }) {
  const config = parseGasConfig({});
  const blocks = makeBlocks(quick ? 2_000 : 20_000, 7);
  const wire = blocks
    .slice(0, 2_000)
    .map((b) => ({ height: b.height, epoch: "1", gas_unit_prices: b.gasUnitPrices.map(String) }));
  let i = 0;
  const strategy = aip34(config);
  const engine = createEngine({ strategy: aip34, config });
  let height = 0n;
  let j = 0;
  let validatedEngine = createEngine({ strategy: aip34, config });
  // Exact baseline: keep every price of the last 120 blocks and sort the window per block.
  const window = [];
  const byValue = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  let sink = 0n;
  const hz = await runCases(
    {
      "aip34 strategy": () => {
        strategy.ingest(blocks[i++ % blocks.length]);
        sink += strategy.estimate().regular;
      },
      "engine.ingest (validated BlockSample)": () => {
        // A fresh engine each time the blocks run out, so heights keep increasing.
        if (j === blocks.length) {
          j = 0;
          validatedEngine = createEngine({ strategy: aip34, config });
        }
        validatedEngine.ingest(blocks[j++]);
      },
      "engine.ingest (wire JSON, validated)": () => {
        height++;
        engine.ingest({ ...wire[i++ % wire.length], height });
      },
      "exact sort of the window (baseline)": () => {
        const b = blocks[i++ % blocks.length];
        window.push(b.gasUnitPrices);
        if (window.length > 120) window.shift();
        const all = window.flat().sort(byValue);
        sink += all[Math.floor(all.length / 2)];
      },
    },
    { quick },
  );
  if (sink < 0n) console.log(sink);

  const snapEngine = createEngine({ strategy: aip34, config });
  snapEngine.ingest(blocks[0]);
  const plain = { estimate: { regular: 1n } };
  let acc = 0n;
  const reads = await runCases(
    {
      "engine.snapshot().estimate": () => {
        acc += snapEngine.snapshot().estimate.regular;
      },
      "plain object property (baseline)": () => {
        acc += plain.estimate.regular;
      },
    },
    { quick },
  );
  if (acc < 0n) console.log(acc);
  const samples = (name) => hz[name].hz * TXNS;
  const base = samples("exact sort of the window (baseline)");
  const ns = (name) => 1e9 / reads[name].hz;
  return {
    title: "Core: aip34 ingest and snapshot reads",
    rows: [
      ...[
        "aip34 strategy",
        "engine.ingest (validated BlockSample)",
        "engine.ingest (wire JSON, validated)",
      ].map((name) => ({
        name: `${name}, 250-txn blocks`,
        ours: samples(name),
        baseline: base,
        unit: "samples/s",
        ratio: samples(name) / base,
        note: `baseline: exact sort of the 120-block window per block; target >= 5,000,000 samples/s; ±${hz[name].rme.toFixed(1)}%`,
      })),
      {
        name: "snapshot read",
        ours: ns("engine.snapshot().estimate"),
        baseline: ns("plain object property (baseline)"),
        unit: "ns/read",
        ratio: ns("plain object property (baseline)") / ns("engine.snapshot().estimate"),
        note: "ratio < 1 means slower than the plain read; target < 1000 ns",
      },
    ],
  };
}
