// The histories strategies are judged on (docs/backtest.md): the real Ethereum history, then
// every simulator scenario at 20,000 blocks, seed 1. Shared by scripts/backtestDocs.mjs, which
// writes the docs from them, and scripts/calibratedCells.mjs, which checks calibrated against
// those docs.
import { execFileSync } from "node:child_process";
import { join } from "node:path";

export const root = new URL("..", import.meta.url).pathname;
const cli = join(root, "bin/gasdigest.js");
export const SCENARIO_BLOCKS = 20_000;
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

/** Run the CLI from this checkout (its build in dist/) and return what it printed. */
export const gasdigest = (args, cwd = root) =>
  execFileSync(process.execPath, [cli, ...args], {
    cwd,
    encoding: "utf8",
    maxBuffer: 1 << 30,
    stdio: ["ignore", "pipe", "inherit"],
  });

/**
 * The NDJSON file of history `h` (relative to the root for the real one); a scenario is
 * simulated into `dir` first.
 */
export function historyInput(h, dir) {
  if (!h.scenario) return h.input;
  const input = join(dir, `${h.name}-${SCENARIO_BLOCKS}.ndjson`);
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
  return input;
}
