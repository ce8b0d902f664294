// A quick check of a change to the calibrated strategy against the documented results: runs
// calibrated alone, with its frontier, on the real history and on every scenario (20,000
// blocks, seed 1), and scores it against the other strategies' readings recorded in
// docs/backtest/*.json (which only `npm run docs:backtest` rewrites). It prints the same three
// tables as docs/backtest.md: promises kept, median overpayment and mean price paid at equal
// inclusion. About 2.5 minutes on two cores, against about 7 for the docs.
//
//   npm run build && node scripts/calibratedCells.mjs               # every history
//   node scripts/calibratedCells.mjs --only eth-2017-12,congested   # some of them
//
// It compares against the other strategies as documented: when a change touches them too,
// regenerate the docs instead.

import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs, promisify } from "node:util";
import { reachesTarget } from "../dist/backtest/frontierResult.js";
import { promiseTable, winnerTable } from "./backtestSection.mjs";
import { HISTORIES, historyInput, root } from "./histories.mjs";

const { values } = parseArgs({ options: { only: { type: "string" } } });
const only = values.only?.split(",");
const unknown = only?.filter((n) => !HISTORIES.some((h) => h.name === n)) ?? [];
if (unknown.length > 0) {
  console.error(`--only: unknown history ${unknown.join(", ")}`);
  process.exit(1);
}
const histories = HISTORIES.filter((h) => !only || only.includes(h.name));
const run = promisify(execFile);

/** Calibrated's own run on `h`, merged into the documented run of the other strategies. */
async function check(h, work) {
  const input = historyInput(h, work);
  const config = h.config ? ["--config", h.config] : [];
  const cli = [join(root, "bin/gasdigest.js"), "backtest", "--input", input, ...config];
  const { stdout } = await run(
    process.execPath,
    [...cli, "--strategies", "calibrated", "--frontier", "--json"],
    { cwd: root, maxBuffer: 1 << 30 },
  );
  const mine = JSON.parse(stdout);
  const documented = JSON.parse(readFileSync(join(root, `docs/backtest/${h.name}.json`), "utf8"));
  const others = (list) => list.filter((x) => (x.strategy ?? x.name) !== "calibrated");
  return {
    ...h,
    run: {
      ...documented,
      strategies: [...others(documented.strategies), ...mine.strategies],
      frontier: {
        ...documented.frontier,
        curves: [...others(documented.frontier.curves), ...mine.frontier.curves],
        readings: [...others(documented.frontier.readings), ...mine.frontier.readings],
      },
    },
  };
}

const work = mkdtempSync(join(tmpdir(), "gasdigest-calibrated-cells-"));
try {
  const started = Date.now();
  const runs = [];
  const queue = [...histories];
  const workers = Array.from(
    { length: Math.min(availableParallelism(), queue.length) },
    async () => {
      for (let h = queue.shift(); h; h = queue.shift()) runs.push(await check(h, work));
    },
  );
  await Promise.all(workers);
  const order = (r) => histories.findIndex((h) => h.name === r.name);
  runs.sort((a, b) => order(a) - order(b));
  const promises = promiseTable(runs);
  const median = winnerTable(runs, reachesTarget, "overpay");
  const paid = winnerTable(runs, reachesTarget, "cost");
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  process.stdout.write(
    [
      "Promises kept",
      promises.table,
      ...promises.minimumNotes,
      "",
      `Median overpayment at equal inclusion: calibrated lowest in ${median.wins} of ${median.cells}`,
      median.table,
      "",
      `Mean price paid at equal inclusion: calibrated lowest in ${paid.wins} of ${paid.cells}`,
      paid.table,
      "",
      `(${runs.length} histories in ${seconds} s; the other strategies as in docs/backtest/*.json)`,
      "",
    ].join("\n"),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
