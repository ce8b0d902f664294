// Do two replicas of one stream serve the same estimates? One engine reads a chain from its
// start, another is warm-started at START (five eighths of the chain) with the newest 10,001
// blocks (at most half of those before START), as a Redis replica started then would be; both
// then read the next blocks, and the script counts the blocks after which a tier's estimate
// differs between them, and by how much at most (docs/strategies.md, "Replicas of one
// stream"). The chain is a simulated scenario (80,000 blocks at seed 1) or a recorded NDJSON
// file, with its gas config file if it needs one.
//
//   npm run build && node scripts/replicaAgreement.mjs [SCENARIO | FILE.ndjson] [STRATEGY_OPTIONS_JSON] [STRATEGY] [CONFIG.json]
//   node scripts/replicaAgreement.mjs mixed                            # calibrated's defaults
//   node scripts/replicaAgreement.mjs mixed '{"anchorBlocks": 5000}'   # replicas that agree
//   node scripts/replicaAgreement.mjs test/fixtures/eth-2017-12/blocks-4710000-4719999.ndjson \
//     '{"compression": 50, "tiers": {"regular": {"windowBlocks": 2500, "sample": "paid"}}}' \
//     tdigest test/fixtures/eth-2017-12/wei.config.json
//
// A simulated chain: about 15 s.

import { readFileSync } from "node:fs";
import {
  calibrated,
  createEngine,
  parseBlockSample,
  simulateBlocks,
  tdigest,
} from "../dist/index.js";

const scenario = process.argv[2] ?? "busy";
const options = JSON.parse(process.argv[3] ?? "{}");
const strategies = { calibrated, tdigest };
const name = process.argv[4] ?? "calibrated";
if (!Object.hasOwn(strategies, name))
  throw new Error(`strategy ${name}: expected one of ${Object.keys(strategies).join(", ")}`);
const config = process.argv[5] ? JSON.parse(readFileSync(process.argv[5], "utf8")) : undefined;
const strategy = () => strategies[name](options);

const chain = scenario.endsWith(".ndjson")
  ? readFileSync(scenario, "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => parseBlockSample(JSON.parse(line)))
  : [...simulateBlocks({ scenario, seed: 1, blocks: 80_000 })];
const BLOCKS = chain.length;
const START = Math.floor((BLOCKS * 5) / 8);
const WARM_START = Math.min(10_001, Math.floor(START / 2));
const running = createEngine({ strategy: strategy(), config });
for (let i = 0; i < START; i++) running.ingest(chain[i]);
const started = createEngine({ strategy: strategy(), config });
for (let i = START - WARM_START; i < START; i++) started.ingest(chain[i]);

const tiers = ["deprioritized", "regular", "prioritized"];
const differs = [0, 0, 0];
const ratio = [1, 1, 1];
for (let i = START; i < BLOCKS; i++) {
  running.ingest(chain[i]);
  started.ingest(chain[i]);
  const a = running.snapshot().estimate;
  const b = started.snapshot().estimate;
  tiers.forEach((tier, k) => {
    if (a[tier] === b[tier]) return;
    differs[k]++;
    const r = Number(a[tier]) / Number(b[tier]);
    ratio[k] = Math.max(ratio[k], r, 1 / r);
  });
}
console.log(`${scenario}, ${name} ${JSON.stringify(options)}: of ${BLOCKS - START} blocks`);
for (const [k, tier] of tiers.entries())
  console.log(`  ${tier}: ${differs[k]} differ, at most ${ratio[k].toFixed(2)} times apart`);
