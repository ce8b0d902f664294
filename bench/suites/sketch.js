// Issue 4's bench, side by side in one run on the same reference data (integer prices: 80 % at
// 100, 15 % uniform 100..1000, 5 % log-normal tail capped at 10^6):
// - push throughput and p50/p90/p99 error in value of our t-digest, of the npm `tdigest`
//   package (the design card's baseline) and of an exact sort;
// - merge and quantile query cost;
// (the strategy's ingest throughput is in the ingest suite);
// - the heap held by the strategy with 10^6-block windows (after a forced GC).

import pkg from "tdigest";
import { parseBlockSample } from "../../dist/core/blockSample.js";
import { parseGasConfig } from "../../dist/core/config.js";
import { createTDigest } from "../../dist/sketch/tdigest.js";
import { aip34 } from "../../dist/strategies/aip34.js";
import { tdigest } from "../../dist/strategies/tdigest.js";
import { prng, referencePrice, retainedBytes, runCases } from "../lib.js";

const { TDigest } = pkg;
const COMPRESSION = 500;
const NPM_SAME = `npm tdigest (delta 1/${COMPRESSION})`;

function referenceData(n, seed) {
  const rand = prng(seed);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = referencePrice(rand);
  return out;
}

const relError = (x, exact) => Math.abs(x / exact - 1);
const pct = (x) => Number((100 * x).toPrecision(3));

async function pushRows(data, quick) {
  const batch = quick ? 20_000 : 100_000;
  let offset = 0;
  const next = () => {
    offset = (offset + batch) % (data.length - batch);
    return offset;
  };
  let sink = 0;
  const hz = await runCases(
    {
      ours: () => {
        const d = createTDigest({ compression: COMPRESSION });
        const o = next();
        for (let i = o; i < o + batch; i++) d.add(data[i]);
        sink += d.centroidCount();
      },
      [NPM_SAME]: () => {
        const d = new TDigest(1 / COMPRESSION);
        const o = next();
        for (let i = o; i < o + batch; i++) d.push(data[i]);
        sink += d.size();
      },
      "npm tdigest (defaults)": () => {
        const d = new TDigest();
        const o = next();
        for (let i = o; i < o + batch; i++) d.push(data[i]);
        sink += d.size();
      },
      "exact sort": () => {
        const a = new Float64Array(batch);
        const o = next();
        for (let i = 0; i < batch; i++) a[i] = data[o + i];
        a.sort();
        sink += a[0];
      },
    },
    { quick },
  );
  if (sink === -1) console.log(sink);
  const vps = (name) => hz[name].hz * batch;
  const ours = vps("ours");
  return [
    ...[NPM_SAME, "npm tdigest (defaults)", "exact sort"].map((name) => ({
      name: `push: ours (δ=${COMPRESSION}) vs ${name}`,
      ours,
      baseline: vps(name),
      unit: "values/s",
      ratio: ours / vps(name),
      note: `>1 = ours faster; ${batch.toLocaleString("en-US")} values per op into a fresh digest, ±${hz.ours.rme.toFixed(1)} % / ±${hz[name].rme.toFixed(1)} %${name === "exact sort" ? " (exact: copy + sort, memory grows with n)" : ""}`,
    })),
  ];
}

function accuracyRows(data) {
  const n = data.length;
  const sorted = data.slice().sort();
  const exact = (q) => sorted[Math.min(n - 1, Math.floor(q * n))];
  const ours = createTDigest({ compression: COMPRESSION });
  for (let i = 0; i < n; i++) ours.add(data[i]);
  const npm = new TDigest(1 / COMPRESSION);
  for (let i = 0; i < n; i++) npm.push(data[i]);
  npm.compress();
  const npmDefault = new TDigest();
  for (let i = 0; i < n; i++) npmDefault.push(data[i]);
  npmDefault.compress();
  const rows = [];
  for (const q of [0.5, 0.9, 0.99]) {
    const e = exact(q);
    const o = relError(ours.quantile(q), e);
    const b = relError(npm.percentile(q), e);
    const bd = relError(npmDefault.percentile(q), e);
    rows.push({
      name: `p${Math.round(q * 100)} error in value (${n.toLocaleString("en-US")} values)`,
      ours: pct(o),
      baseline: pct(b),
      unit: "% off exact",
      ratio: o > 0 ? b / o : undefined,
      note: `>1 = ours closer; exact sort = ${e} (0 %); ours ${ours.quantile(q).toFixed(1)}, npm delta 1/${COMPRESSION} ${npm.percentile(q).toFixed(1)}, npm defaults ${npmDefault.percentile(q).toFixed(1)} (${pct(bd)} %)${o === 0 ? "; ours exact" : ""}`,
    });
  }
  rows.push({
    name: "centroids held",
    ours: ours.centroidCount(),
    baseline: npm.size(),
    unit: "centroids",
    ratio: npm.size() / ours.centroidCount(),
    note: `>1 = ours smaller; vs npm tdigest (delta 1/${COMPRESSION}), which holds more centroids at the same nominal compression; exact sort holds ${n.toLocaleString("en-US")} values`,
  });
  return { rows, digest: ours, npm };
}

async function mergeAndQueryRows(data, digest, npmFull, quick) {
  const parts = 32;
  const per = Math.floor(data.length / parts);
  const ourParts = [];
  const npmParts = [];
  for (let p = 0; p < parts; p++) {
    const d = createTDigest({ compression: COMPRESSION });
    const t = new TDigest(1 / COMPRESSION);
    for (let i = p * per; i < (p + 1) * per; i++) {
      d.add(data[i]);
      t.push(data[i]);
    }
    d.centroidCount();
    ourParts.push(d);
    npmParts.push(t.toArray());
  }
  let k = 0;
  let sink = 0;
  const qs = [0.5, 0.9, 0.99, 0.999];
  const hz = await runCases(
    {
      "merge ours": () => {
        const into = createTDigest({ compression: COMPRESSION });
        for (const d of ourParts) into.merge(d);
        sink += into.centroidCount();
      },
      "merge npm": () => {
        // The npm package has no merge: push every centroid of the other digests.
        const into = new TDigest(1 / COMPRESSION);
        for (const cs of npmParts) into.push_centroid(cs);
        into.compress();
        sink += into.size();
      },
      "quantile ours": () => {
        sink += digest.quantile(qs[k++ & 3]);
      },
      "quantile npm": () => {
        sink += npmFull.percentile(qs[k++ & 3]);
      },
    },
    { quick },
  );
  if (sink === -1) console.log(sink);
  const us = (name, per = 1) => 1e6 / hz[name].hz / per;
  return [
    {
      name: `merge ${parts} digests of ${per.toLocaleString("en-US")} values`,
      ours: us("merge ours", parts),
      baseline: us("merge npm", parts),
      unit: "µs per merged digest",
      ratio: us("merge npm", parts) / us("merge ours", parts),
      note: ">1 = ours faster; npm has no merge, so its baseline pushes the other digests' centroids",
    },
    {
      name: "quantile query",
      ours: us("quantile ours") * 1000,
      baseline: us("quantile npm") * 1000,
      unit: "ns per query",
      ratio: us("quantile npm") / us("quantile ours"),
      note: `>1 = ours faster; ours over ${digest.centroidCount()} centroids, npm over ${npmFull.size()}`,
    },
  ];
}

async function heapRows() {
  const config = parseGasConfig({ fullBlockTxns: 4 });
  // A pool of small full blocks (4-8 transactions), reused; 1 in 10 idle.
  const rand = prng(5);
  const pool = Array.from({ length: 4096 }, (_, h) => {
    const n = h % 10 === 0 ? 2 : 4 + Math.floor(rand() * 5);
    return parseBlockSample({
      height: String(h + 1),
      epoch: "1",
      gas_unit_prices: Array.from({ length: n }, () => String(referencePrice(rand))),
    });
  });
  const blocks = 1_050_000;
  const feed = (strategy, count, estimateEvery) => {
    for (let i = 0; i < count; i++) {
      strategy.ingest(pool[i % pool.length]);
      if (i % estimateEvery === 0) strategy.estimate();
    }
    return strategy;
  };
  const measure = async (make, warmUp, estimateEvery) => {
    // Warm up on short windows first (every code path, incl. evictions), so compiled code and
    // type feedback are not counted as the strategy's memory.
    feed(warmUp(config), 100_000, estimateEvery);
    const { bytes, kept } = await retainedBytes(() => feed(make(config), blocks, estimateEvery));
    return { bytes, strategy: kept };
  };
  const tiers = (w) => ({
    deprioritized: { windowBlocks: w, quantile: 0, sample: "clearing" },
    regular: { windowBlocks: w, quantile: 0.5, sample: "paid" },
    prioritized: { windowBlocks: w - 1, quantile: 0.99, sample: "paid" },
  });
  const ours = await measure(
    tdigest({ tiers: tiers(1_000_000) }),
    tdigest({ tiers: tiers(20_000), exactUpTo: 0 }),
    1_000,
  );
  const e = ours.strategy.estimate();
  const windows = (c, w) => ({
    ...c,
    lowBlockHistory: w,
    marketBlockHistory: w,
    aggressiveBlockHistory: w,
  });
  const reference = await measure(
    (c) => aip34()(windows(c, 1_000_000)),
    (c) => aip34()(windows(c, 20_000)),
    Number.POSITIVE_INFINITY,
  );
  const mib = (b) => b / 2 ** 20;
  return [
    {
      name: "strategy heap with 10^6-block windows",
      ours: mib(ours.bytes),
      baseline: mib(reference.bytes),
      unit: "MiB",
      ratio: reference.bytes / ours.bytes,
      note: `>1 = ours smaller; target < 1 MiB; three separate 10^6-block windows (clearing p0, paid p50, paid p99), ${blocks.toLocaleString("en-US")} blocks of 4-8 txns fed; ${ours.strategy.centroidCount()} centroids (bound ${ours.strategy.maxCentroidCount}); estimate ${e.deprioritized}/${e.regular}/${e.prioritized}; measured as heapUsed + arrayBuffers growth after forced GCs (warmed up first); baseline = aip34 holding 10^6 blocks (one price per block)`,
    },
  ];
}

export default async function run({ quick }) {
  // Heap first, before the other cases leave garbage and compiled code behind.
  const heap = await heapRows();
  const data = referenceData(quick ? 200_000 : 2_000_000, 42);
  const rows = [];
  rows.push(...(await pushRows(data, quick)));
  const accuracy = accuracyRows(data);
  rows.push(...accuracy.rows);
  rows.push(...(await mergeAndQueryRows(data, accuracy.digest, accuracy.npm, quick)));
  rows.push(...heap);
  return { title: "t-digest sketch and tdigest strategy", rows };
}
