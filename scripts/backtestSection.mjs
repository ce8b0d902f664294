// The generated section of docs/backtest.md, from the runs of scripts/backtestDocs.mjs: the
// promises kept, who overpays least at each tier's horizon and target, then every history's
// frontier chart, table and frontier table, and the statistics of the real history next to the
// congested scenario's.

const pct = (v) => (v === null || v === undefined ? "-" : `${(v * 100).toFixed(2)} %`);
const times = (v) => (v === null || v === undefined ? "-" : `${v.toFixed(3)}×`);
const WITHIN = { 1: "within1", 3: "within3", 10: "within10" };
/** Each tier's horizon and target: the promise calibrated makes by default. */
const GOALS = [
  { tier: "prioritized", k: 1, target: 0.99 },
  { tier: "regular", k: 3, target: 0.95 },
  { tier: "deprioritized", k: 10, target: 0.9 },
];

/** The least inclusion any strategy's cheapest setting gets at horizon k (what the floor allows). */
function floorInclusion(frontier, k) {
  const firsts = frontier.curves
    .filter((c) => c.horizon === k && c.knob !== null)
    .map((c) => c.points.find((p) => p.inclusion !== null)?.inclusion)
    .filter((v) => v !== undefined);
  return Math.min(...firsts);
}

export function promiseTable(runs) {
  const rows = [
    "| history | prioritized: 99 % in 1 | regular: 95 % in 3 | deprioritized: 90 % in 10 |",
    "|---|---|---|---|",
  ];
  const notes = [];
  const minimumNotes = [];
  for (const h of runs) {
    const cal = h.run.strategies.find((s) => s.name === "calibrated");
    const cells = GOALS.map(({ tier, k, target }) => {
      const t = cal.tiers[tier];
      const kept = t.inclusion[WITHIN[k]];
      const floor = floorInclusion(h.run.frontier, k);
      const over = kept - target;
      // Where the price was a choice: leaving out the bids at the minimum that got in.
      const chosen = t.promise?.achievedAboveMinimum ?? null;
      let mark = Math.abs(over) <= 0.01 ? "✓" : "✗";
      if (over > 0.01 && floor >= target + 0.01) {
        mark = "✓ (floor)";
        notes.push(
          `${h.name}, ${tier}: the cheapest setting of any strategy already gets ${pct(floor)} in ${k}`,
        );
      } else if (over > 0.01 && chosen !== null && Math.abs(chosen - target) <= 0.01) {
        mark = "✓ (minimum)";
        minimumNotes.push(`${h.name}, ${tier}: ${pct(chosen)} of the bids above the minimum`);
      }
      return `${pct(kept)} at ${times(t.overpayment?.median ?? null)} ${mark}`;
    });
    rows.push(`| ${h.name} | ${cells.join(" | ")} |`);
  }
  return { table: rows.join("\n"), notes, minimumNotes };
}

/** Calibrated against the best of the others at each tier's horizon and target, by `measure` ("overpay" or "cost"). Also used by scripts/calibratedCells.mjs. */
export function winnerTable(runs, reaches, measure) {
  const rows = [
    "| history | prioritized: in 1 at 99 % | regular: in 3 at 95 % | deprioritized: in 10 at 90 % |",
    "|---|---|---|---|",
  ];
  let wins = 0;
  let cells = 0;
  for (const h of runs) {
    const out = GOALS.map(({ k, target }) => {
      const readings = h.run.frontier.readings.filter(
        (r) => r.horizon === k && Math.abs(r.target - target) < 1e-9,
      );
      const cal = readings.find((r) => r.strategy === "calibrated");
      const others = readings
        .filter((r) => r.strategy !== "calibrated" && reaches(r) && r[measure] !== null)
        .sort((a, b) => a[measure] - b[measure]);
      const best = others[0];
      const calValue = cal && reaches(cal) ? cal[measure] : null;
      cells++;
      const bestText = best ? `${best.strategy} ${times(best[measure])}` : "no other reaches it";
      if (calValue === null) return `calibrated unreached; ${bestText}`;
      const won = !best || calValue <= best[measure] + 5e-4;
      if (won) wins++;
      return `${won ? "**calibrated**" : "calibrated"} ${times(calValue)}${cal.kind === "floor" ? "*" : ""} vs ${bestText} ${won ? "✓" : "✗"}`;
    });
    rows.push(`| ${h.name} | ${out.join(" | ")} |`);
  }
  return { table: rows.join("\n"), wins, cells };
}

/**
 * @param {{ name: string, title: string, input?: string, config?: string, scenario?: string, run: any }[]} runs
 * @param {string} stats the text of `gasdigest stats --input <real> --compare <congested>`
 * @param {{ formatTable: (r: any) => string, formatFrontier: (f: any) => string, reachesTarget: (r: any) => boolean }} format
 */
export function generatedSection(runs, stats, { formatTable, formatFrontier, reachesTarget }) {
  // The largest difference between the scenario and the real history, leaving out the block
  // count and the minimum price itself (its scale differs by design: octas against wei).
  const differences = stats
    .split("\n")
    .filter((l) => !/^(blocks|minimum price p)/.test(l))
    .map((l) => /(-?\d+(?:\.\d+)?)%\s*$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => Math.abs(Number(m[1])));
  const worst = Math.max(...differences);
  const promises = promiseTable(runs);
  const winners = winnerTable(runs, reachesTarget, "overpay");
  const payers = winnerTable(runs, reachesTarget, "cost");
  const parts = [
    "### Promises kept",
    "",
    "`calibrated` with its default promises, the share of its bids included within each tier's",
    "horizon and the median overpayment (✓: within 1 point of the promise; *floor*: above it",
    "only because even the cheapest bid of any strategy gets in more often than promised;",
    "*minimum*: above it only by bids at the minimum price that got in, which no bid could make",
    "cheaper: the bids above the minimum, with every miss, keep it within 1 point).",
    "",
    promises.table,
    "",
    ...(promises.notes.length > 0 ? [`Floors: ${promises.notes.join("; ")}.`, ""] : []),
    ...(promises.minimumNotes.length > 0
      ? [`Kept where the price was a choice: ${promises.minimumNotes.join("; ")}.`, ""]
      : []),
    "### Who overpays least at equal inclusion",
    "",
    "Read off the frontiers (each strategy's knob swept; aip34 counts only where its own tier",
    "reaches the target): the median overpayment at each tier's horizon and target, calibrated's",
    `against the best of the others. Calibrated is lowest in ${winners.wins} of ${winners.cells}.`,
    "(*: even its cheapest setting includes more than the target.)",
    "",
    winners.table,
    "",
    "The same cells by the mean price the included bids paid, in mean clearing prices of the",
    `history (see "Price paid" above). Calibrated is lowest in ${payers.wins} of ${payers.cells}.`,
    "",
    payers.table,
    "",
    "### The real history and the congested scenario",
    "",
    "`gasdigest stats` of the real history and of 10,000 blocks of the `congested` scenario",
    "(seed 1), side by side; the last column is how far the scenario lies from the real history.",
    `Apart from the minimum price itself (100 octas against 1 gwei, by design), every statistic of`,
    `the scenario lies within ${worst.toFixed(1)} % of the real history's.`,
    "",
    "```text",
    stats.trimEnd(),
    "```",
  ];
  for (const h of runs) {
    const command = h.scenario
      ? `gasdigest simulate --scenario ${h.scenario} --blocks 20000 --seed 1 --out ${h.name}.ndjson\ngasdigest backtest --input ${h.name}.ndjson --strategies aip34,tdigest,geth,last-block,calibrated --frontier`
      : `gasdigest backtest --input ${h.input} --config ${h.config} \\\n  --strategies aip34,tdigest,geth,last-block,calibrated --frontier`;
    parts.push(
      "",
      `### ${h.title}`,
      "",
      "```sh",
      command,
      "```",
      "",
      `![frontier charts of ${h.name}](backtest/${h.name}.svg)`,
      "",
      "```text",
      formatTable(h.run).trimEnd(),
      "",
      formatFrontier(h.run.frontier).trimEnd(),
      "```",
    );
  }
  return parts.join("\n");
}
