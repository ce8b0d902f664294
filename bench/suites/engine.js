// The engine around a strategy: engine.ingest of a validated BlockSample and of a wire-shape
// object (validated on the way in), against the bare aip34 strategy on the same blocks; and the
// cost of reading the snapshot against reading a plain object property.

import { Observable } from "rxjs";
import { parseGasConfig } from "../../dist/core/config.js";
import { createEngine } from "../../dist/core/createEngine.js";
import { aip34 } from "../../dist/strategies/aip34.js";
import { makeBlocks, runCases } from "../lib.js";

export default async function run({ quick }) {
  const config = parseGasConfig({});
  const blocks = makeBlocks(quick ? 1_000 : 5_000, 7);
  const wire = blocks.map((b) => ({ epoch: "1", gas_unit_prices: b.gasUnitPrices.map(String) }));
  const strategy = aip34()(config);
  let i = 0;
  let j = 0;
  let height = 0n;
  let validated = createEngine({ strategy: aip34(), config });
  const wireEngine = createEngine({ strategy: aip34(), config });
  let sink = 0n;
  const hz = await runCases(
    {
      "aip34 strategy alone (baseline)": () => {
        strategy.ingest(blocks[i++ % blocks.length]);
        sink += strategy.estimate().regular;
      },
      "engine.ingest, validated BlockSample": () => {
        // A fresh engine each time the blocks run out, so heights keep increasing.
        if (j === blocks.length) {
          j = 0;
          validated = createEngine({ strategy: aip34(), config });
        }
        validated.ingest(blocks[j++]);
      },
      "engine.ingest, wire JSON object (validated)": () => {
        height++;
        wireEngine.ingest({ ...wire[i++ % wire.length], height });
      },
    },
    { quick },
  );
  const reader = createEngine({ strategy: aip34(), config });
  reader.ingest(blocks[0]);
  const plain = { estimate: { regular: 1n } };
  const reads = await runCases(
    {
      "engine.snapshot().estimate": () => {
        sink += reader.snapshot().estimate.regular;
      },
      "plain object property (baseline)": () => {
        sink += plain.estimate.regular;
      },
    },
    { quick },
  );
  if (sink === -1n) console.log(sink);
  // Blocks from a source connected inside a snapshot handler (the docs allow it): they queue
  // behind the snapshot being delivered, and must drain as fast as from a source connected
  // directly (Array#shift made it quadratic: 200,000 blocks took 18 s).
  const delivered = quick ? 20_000 : 100_000;
  const many = makeBlocks(delivered + 1, 11);
  const deliver = (reentrant) => {
    const engine = createEngine({ strategy: aip34(), config });
    const source$ = new Observable((o) => {
      for (let k = 1; k < many.length; k++) o.next(many[k]);
      o.complete();
    });
    let n = 0;
    engine.snapshots$.subscribe(() => {
      if (n++ === 0 && reentrant) engine.connect(source$);
    });
    const c0 = process.cpuUsage();
    engine.ingest(many[0]);
    if (!reentrant) engine.connect(source$);
    const c = process.cpuUsage(c0);
    if (n !== delivered + 1) throw new Error(`delivered ${n} of ${delivered + 1}`);
    return delivered / ((c.user + c.system) / 1e6);
  };
  const best = (reentrant) => Math.max(...[0, 1, 2].map(() => deliver(reentrant)));
  const direct = best(false);
  const reentrant = best(true);
  const base = "aip34 strategy alone (baseline)";
  const rate = (name) => hz[name].hz * 250;
  const ns = (name) => 1e9 / reads[name].hz;
  return {
    title: "Engine: ingest overhead and snapshot reads",
    rows: [
      ...[
        "engine.ingest, validated BlockSample",
        "engine.ingest, wire JSON object (validated)",
      ].map((name) => ({
        name,
        ours: rate(name),
        baseline: rate(base),
        unit: "samples/s",
        ratio: rate(name) / rate(base),
        kind: "overhead",
        note: `baseline: the bare aip34 strategy; <1 = the engine's share; ±${hz[name].rme.toFixed(1)} %`,
      })),
      {
        name: `${delivered.toLocaleString("en-US")} blocks from a source connected in a snapshot handler`,
        ours: reentrant,
        baseline: direct,
        unit: "blocks/s",
        ratio: reentrant / direct,
        kind: "overhead",
        note: "baseline: the same source connected directly; ≈1 = queued blocks drain in linear time",
      },
      {
        name: "snapshot read",
        ours: ns("engine.snapshot().estimate"),
        baseline: ns("plain object property (baseline)"),
        unit: "ns/read",
        ratio: ns("plain object property (baseline)") / ns("engine.snapshot().estimate"),
        note: "<1 = slower than a plain property read; target < 1000 ns",
        kind: "overhead",
      },
    ],
  };
}
