// Regenerates the results of docs/backtest.md from real runs: every strategy with its frontier
// on the real history and on every simulator scenario (20,000 blocks, seed 1), the statistics of
// the real history next to the congested scenario's, one SVG of frontier charts per history,
// and the generated section of docs/backtest.md (between its two `generated` markers).
//
//   npm run docs:backtest                                     # run everything (about 8 min)
//   node scripts/backtestDocs.mjs --only eth-2017-12,spike    # re-run some histories
//   node scripts/backtestDocs.mjs --only stats                # only the stats side by side
//   node scripts/backtestDocs.mjs --render                    # only redraw from docs/backtest/*.json
//
// Every figure in the generated section comes from these runs; nothing is typed in by hand.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { formatFrontier } from "../dist/backtest/formatFrontier.js";
import { formatTable } from "../dist/backtest/formatTable.js";
import { reachesTarget } from "../dist/backtest/frontierResult.js";
import { generatedSection } from "./backtestSection.mjs";
import { frontierSvg } from "./frontierSvg.mjs";

const root = new URL("..", import.meta.url).pathname;
const cli = join(root, "bin/gasdigest.js");
const outDir = join(root, "docs/backtest");
const STRATEGIES = "aip34,tdigest,geth,last-block,calibrated";
const SCENARIO_BLOCKS = 20_000;
const ETH = "test/fixtures/eth-2017-12";

/** The histories, in the order the docs show them. */
export const HISTORIES = [
  {
    name: "eth-2017-12",
    title: "Ethereum mainnet, December 2017 (real)",
    input: `${ETH}/blocks-4710000-4719999.ndjson`,
    config: `${ETH}/wei.config.json`,
  },
  ...["quiet", "busy", "spike", "mixed", "congested"].map((scenario) => ({
    name: scenario,
    title: `simulator: ${scenario}`,
    scenario,
  })),
];

const { values } = parseArgs({
  options: {
    only: { type: "string" },
    render: { type: "boolean", default: false },
  },
});
const only = values.only?.split(",");
const unknown = only?.filter((n) => n !== "stats" && !HISTORIES.some((h) => h.name === n)) ?? [];
if (unknown.length > 0) {
  console.error(`--only: unknown history ${unknown.join(", ")}`);
  process.exit(1);
}

const gasdigest = (args, cwd = root) =>
  execFileSync(process.execPath, [cli, ...args], {
    cwd,
    encoding: "utf8",
    maxBuffer: 1 << 30,
    stdio: ["ignore", "pipe", "inherit"],
  });

mkdirSync(outDir, { recursive: true });
if (!values.render) {
  const work = mkdtempSync(join(tmpdir(), "gasdigest-backtest-docs-"));
  try {
    for (const h of HISTORIES) {
      if (only && !only.includes(h.name)) continue;
      let input = h.input;
      if (h.scenario) {
        input = join(work, `${h.name}-${SCENARIO_BLOCKS}.ndjson`);
        gasdigest([
          "simulate",
          "--scenario",
          h.scenario,
          "--blocks",
          `${SCENARIO_BLOCKS}`,
          "--seed",
          "1",
          "--out",
          input,
        ]);
      }
      const config = h.config ? ["--config", h.config] : [];
      const started = Date.now();
      const run = JSON.parse(
        gasdigest([
          "backtest",
          "--input",
          input,
          ...config,
          "--strategies",
          STRATEGIES,
          "--frontier",
          "--json",
        ]),
      );
      const seconds = (Date.now() - started) / 1000;
      console.error(`${h.name}: backtest with frontier in ${seconds.toFixed(0)} s`);
      run.input =
        h.input ??
        `gasdigest simulate --scenario ${h.scenario} --blocks ${SCENARIO_BLOCKS} --seed 1`;
      writeFileSync(join(outDir, `${h.name}.json`), `${JSON.stringify(run)}\n`);
    }
    // The real history next to the scenario fitted to it, at the same length (10,000 blocks:
    // counts and extremes of runs grow with length). One config (wei) for both: it only sets the
    // minimum price and buckets, and every simulated block carries its own minimum.
    if (!only || only.includes("stats")) {
      symlinkSync(join(root, HISTORIES[0].input), join(work, "eth-2017-12.ndjson"));
      gasdigest([
        "simulate",
        "--scenario",
        "congested",
        "--blocks",
        "10000",
        "--seed",
        "1",
        "--out",
        join(work, "congested.ndjson"),
      ]);
      const table = gasdigest(
        [
          "stats",
          "--input",
          "eth-2017-12.ndjson",
          "--compare",
          "congested.ndjson",
          "--config",
          join(root, HISTORIES[0].config),
        ],
        work,
      );
      writeFileSync(join(outDir, "stats.txt"), table);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const runs = HISTORIES.map((h) => ({
  ...h,
  run: JSON.parse(readFileSync(join(outDir, `${h.name}.json`), "utf8")),
}));
for (const h of runs)
  writeFileSync(join(outDir, `${h.name}.svg`), frontierSvg(h.title, h.run.frontier));
const stats = readFileSync(join(outDir, "stats.txt"), "utf8");

const docPath = join(root, "docs/backtest.md");
const doc = readFileSync(docPath, "utf8");
const START = "<!-- generated by scripts/backtestDocs.mjs: start -->";
const END = "<!-- generated by scripts/backtestDocs.mjs: end -->";
const a = doc.indexOf(START);
const b = doc.indexOf(END);
if (a < 0 || b < a) {
  console.error(`docs/backtest.md has no "${START}" ... "${END}" section`);
  process.exit(1);
}
const section = generatedSection(runs, stats, { formatTable, formatFrontier, reachesTarget });
writeFileSync(docPath, `${doc.slice(0, a + START.length)}\n${section}\n${doc.slice(b)}`);
console.error("docs/backtest.md and docs/backtest/*.svg written");
