// Do two replicas of one stream serve the same estimates? One engine reads a simulated chain
// from its start, another is warm-started with the newest 10,001 blocks at height START, as a
// Redis replica started then would be; both then read the next blocks, and the script counts
// the blocks after which a tier's estimate differs between them, and by how much at most
// (docs/strategies.md, "Replicas of one stream").
//
//   npm run build && node scripts/replicaAgreement.mjs [SCENARIO] [STRATEGY_OPTIONS_JSON]
//   node scripts/replicaAgreement.mjs mixed                            # calibrated's defaults
//   node scripts/replicaAgreement.mjs mixed '{"anchorBlocks": 5000}'   # replicas that agree
//
// 80,000 blocks at seed 1, START 50,000: about 15 s.

import { calibrated, createEngine, simulateBlocks } from "../dist/index.js";

const scenario = process.argv[2] ?? "busy";
const options = JSON.parse(process.argv[3] ?? "{}");
const BLOCKS = 80_000;
const START = 50_000;
const WARM_START = 10_001;

const chain = [...simulateBlocks({ scenario, seed: 1, blocks: BLOCKS })];
const running = createEngine({ strategy: calibrated(options) });
for (let i = 0; i < START; i++) running.ingest(chain[i]);
const started = createEngine({ strategy: calibrated(options) });
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
console.log(`${scenario}, calibrated ${JSON.stringify(options)}: of ${BLOCKS - START} blocks`);
for (const [k, tier] of tiers.entries())
  console.log(`  ${tier}: ${differs[k]} differ, at most ${ratio[k].toFixed(2)} times apart`);
