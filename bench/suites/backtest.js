// Issue 7's bench: how fast a backtest reads its history and scores strategies.
// 1. Reading an NDJSON block file: the backtest's reader (readHistory, which is readNdjson: the
//    byte scanner with the general parser as fallback) against the general parser alone
//    (readNdjson with fastPath: false), same file, same run.
// 2. Scoring: the backtest harness (aip34, geth, last-block; lookahead check every 10th block)
//    against replaying the same blocks through the same three engines without any scoring.
// Whole passes are timed with performance.now (they are async and take ~0.1-1 s, which
// benchmark.js cannot time without deferred cases); cases alternate and the best pass counts.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBacktest } from "../../dist/backtest/createBacktest.js";
import { readHistory } from "../../dist/backtest/readHistory.js";
import { serializeBlockSample } from "../../dist/core/blockSample.js";
import { createEngine } from "../../dist/core/createEngine.js";
import { readNdjson } from "../../dist/sources/readNdjson.js";
import { simulateBlocks } from "../../dist/sources/simulator.js";
import { aip34 } from "../../dist/strategies/aip34.js";
import { geth } from "../../dist/strategies/geth.js";
import { lastBlock } from "../../dist/strategies/lastBlock.js";

async function best(passes, cases) {
  const times = Object.fromEntries(Object.keys(cases).map((k) => [k, Number.POSITIVE_INFINITY]));
  for (let p = 0; p < passes; p++)
    for (const [name, fn] of Object.entries(cases)) {
      const t0 = performance.now();
      await fn();
      times[name] = Math.min(times[name], performance.now() - t0);
    }
  return times;
}

export default async function run({ quick }) {
  const count = quick ? 2_000 : 10_000;
  const passes = quick ? 3 : 5;
  const blocks = [...simulateBlocks({ scenario: "mixed", blocks: count, seed: 7 })];
  const dir = mkdtempSync(join(tmpdir(), "gasdigest-bench-"));
  const file = join(dir, "mixed.ndjson");
  writeFileSync(file, `${blocks.map(serializeBlockSample).join("\n")}\n`);
  const txns = blocks.reduce((n, b) => n + b.gasUnitPrices.length, 0);

  let sink = 0;
  const read = await best(passes, {
    readHistory: async () => {
      for await (const e of readHistory(file)) if (e.ok) sink += e.block.gasUnitPrices.length;
    },
    generalParser: async () => {
      for await (const e of readNdjson(file, { fastPath: false }))
        if (e.ok) sink += e.block.gasUnitPrices.length;
    },
  });

  const strategies = () => [{ strategy: aip34() }, { strategy: geth() }, { strategy: lastBlock() }];
  const score = await best(passes, {
    backtest: () => {
      const bt = createBacktest({ strategies: strategies(), verifyEvery: 10 });
      for (const b of blocks) bt.push(b);
      sink += bt.result().blocks;
    },
    replay: () => {
      const engines = strategies().map((s) => createEngine({ strategy: s.strategy }));
      for (const b of blocks) for (const e of engines) e.ingest(b);
      sink += engines.length;
    },
  });
  rmSync(dir, { recursive: true, force: true });
  if (sink === 0) throw new Error("nothing was read");

  const perSecond = (ms) => Math.round((count / ms) * 1000);
  return {
    title: `backtest: reading and scoring a ${count}-block mixed history (${txns} transactions)`,
    rows: [
      {
        name: "read the NDJSON history (readHistory vs the general parser alone)",
        ours: perSecond(read.readHistory),
        baseline: perSecond(read.generalParser),
        unit: "blocks/s",
        ratio: read.generalParser / read.readHistory,
        note: "ratio > 1: the byte scanner reads that many times faster than the general parser (readNdjson with fastPath: false)",
      },
      {
        name: "score aip34+geth+last-block (harness vs bare replay)",
        ours: perSecond(score.backtest),
        baseline: perSecond(score.replay),
        unit: "blocks/s",
        ratio: score.replay / score.backtest,
        kind: "overhead",
        note: "ratio < 1 expected: the share of bare replay speed the scoring keeps (lookahead check every 10th block)",
      },
    ],
  };
}
