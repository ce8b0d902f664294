// How long the built CLI takes to start: a command run to its exit, against `node -e 0` (Node's
// own start, the floor no command goes under), each the best of several runs, alternating.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serializeBlockSample } from "../../dist/core/blockSample.js";
import { makeBlocks } from "../lib.js";

const TITLE = "CLI start: a command run to its exit";
const BIN = new URL("../../bin/gasdigest.js", import.meta.url).pathname;

/** Wall-clock ms of one run of `node ...args` to its exit; throws if it failed. */
function runOnce(args) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`node ${args.join(" ")}: exit ${r.status}: ${r.stderr}`);
  return ms;
}

export default async function run({ quick }) {
  const runs = quick ? 3 : 10;
  const dir = mkdtempSync(join(tmpdir(), "gasdigest-bench-cli-"));
  const file = join(dir, "blocks.ndjson");
  writeFileSync(file, `${makeBlocks(100, 3).map(serializeBlockSample).join("\n")}\n`);
  const cases = [
    ["gasdigest --version", ["--version"]],
    ["gasdigest --help", ["--help"]],
    ["gasdigest simulate --blocks 1", ["simulate", "--blocks", "1"]],
    ["gasdigest stats --input (100 blocks)", ["stats", "--input", file]],
    ["gasdigest replay --input (100 blocks)", ["replay", "--input", file]],
    ["gasdigest serve --help", ["serve", "--help"]],
  ];
  const rows = [];
  try {
    for (const [name, argv] of cases) {
      let ours = Infinity;
      let floor = Infinity;
      for (let i = 0; i < runs; i++) {
        // Alternating, so a busy moment of the machine falls on both.
        floor = Math.min(floor, runOnce(["-e", "0"]));
        ours = Math.min(ours, runOnce([BIN, ...argv]));
      }
      rows.push({
        name,
        ours,
        baseline: floor,
        unit: "ms",
        ratio: floor / ours,
        kind: "overhead",
        note: `best of ${runs} runs each, alternating; baseline = node -e 0 (Node's own start); ratio < 1 = the time the command adds`,
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { title: TITLE, rows };
}
