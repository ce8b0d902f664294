// Memory retained by each strategy after N blocks (10^6; 10^5 in quick mode), at window sizes
// from 10^2 to 10^6 blocks. Each measurement runs in a fresh process (bench/probes/memory.js)
// so garbage from other cases cannot blur it. aip34 keeps one price per block of its window;
// tdigest keeps centroids, bounded by its compression and chunk count.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const probe = fileURLToPath(new URL("../probes/memory.js", import.meta.url));
const STRATEGIES = ["aip34", "tdigest clearing", "tdigest paid"];

async function measure(name, w, blocks) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--expose-gc", probe, name, String(w), String(blocks)],
    {
      maxBuffer: 1 << 20,
    },
  );
  return Math.max(0, JSON.parse(stdout).bytes);
}

export default async function run({ quick }) {
  const blocks = quick ? 100_000 : 1_000_000;
  const windows = quick ? [100, 1_000, 10_000, 100_000] : [100, 1_000, 10_000, 100_000, 1_000_000];
  const series = Object.fromEntries(STRATEGIES.map((s) => [s, []]));
  for (const w of windows)
    for (const s of STRATEGIES) series[s].push({ window: w, bytes: await measure(s, w, blocks) });
  const rows = [];
  for (const [i, w] of windows.entries())
    for (const name of ["tdigest clearing", "tdigest paid"]) {
      const ours = series[name][i].bytes;
      const base = series.aip34[i].bytes;
      rows.push({
        name: `${name} vs aip34, window ${w.toLocaleString("en-US")} blocks`,
        ours: ours / 1024,
        baseline: base / 1024,
        unit: "KiB retained",
        ratio: Math.max(base, 1024) / Math.max(ours, 1024),
        note: `after ${blocks.toLocaleString("en-US")} blocks, fresh process per reading; >1 = tdigest smaller`,
      });
    }
  return { title: "Memory retained by each strategy, by window size", rows, series, blocks };
}
