import { showRatio } from "./formatTable.js";
import { type FrontierReading, type FrontierResult, reachesTarget } from "./frontierResult.js";
import { HORIZONS } from "./types.js";

/** What the frontier tables' marks mean, printed under them. */
export const FRONTIER_LEGEND =
  "Each cell: the measure at that inclusion, read off the strategy's curve as its knob is swept (linear between the two knob values around the target).\n" +
  "median overpayment: estimate / clearing price of the block each bid got into. mean price paid: what the included bids paid, in mean clearing prices of the history.\n" +
  "*: even its cheapest setting includes more than the target; that is the least it pays. -: no setting reaches the target (or no bid was scored at that horizon: a history too short).\n" +
  "(x%): a strategy without a knob; its tier for that horizon (prioritized in 1, regular in 3, deprioritized in 10) and the inclusion it reached.\n" +
  "lowest: the strategy that pays least at that inclusion (a point or a * counts only where it reaches the target).";

/** The two measures a frontier is read in: median overpayment and mean price paid. */
const MEASURES = [
  { key: "overpay", title: "median overpayment" },
  { key: "cost", title: "mean price paid" },
] as const;
type Measure = (typeof MEASURES)[number]["key"];

const pct = (v: number) => `${+(v * 100).toFixed(2)}%`;

function cell(r: FrontierReading | undefined, measure: Measure): string {
  const value = r?.[measure];
  if (!r || value === null || value === undefined) return "-";
  const v = showRatio(value);
  if (r.kind === "floor") return `${v}*`;
  if (r.kind === "point") return `${v} (${r.inclusion === null ? "-" : pct(r.inclusion)})`;
  return v;
}

function table(
  frontier: FrontierResult,
  measure: Measure,
  title: string,
  shown: (text: string) => string,
): string {
  const strategies = [...new Set(frontier.curves.map((c) => c.strategy))];
  const columns = HORIZONS.flatMap((k) => frontier.targets.map((t) => ({ k, t })));
  const header = ["strategy", "knob", ...columns.map(({ k, t }) => `in ${k} @${pct(t)}`)];
  const rows = strategies.map((s) => {
    const knob = frontier.curves.find((c) => c.strategy === s)?.knob ?? "-";
    return [
      s,
      knob,
      ...columns.map(({ k, t }) =>
        cell(
          frontier.readings.find((r) => r.strategy === s && r.horizon === k && r.target === t),
          measure,
        ),
      ),
    ];
  });
  const lowest = [
    "lowest",
    "",
    ...columns.map(({ k, t }) => {
      const candidates = frontier.readings
        .filter((r) => r.horizon === k && r.target === t && reachesTarget(r) && r[measure] !== null)
        .sort((a, b) => a[measure]! - b[measure]!);
      const best = candidates[0];
      if (!best) return "-";
      return candidates
        .filter((r) => r[measure]! - best[measure]! < 5e-4)
        .map((r) => r.strategy)
        .join("=");
    }),
  ];
  const all = [header, ...rows, lowest].map((r) => r.map(shown));
  const widths = header.map((_, c) => Math.max(...all.map((r) => r[c]!.length)));
  const line = (r: string[]) =>
    r.map((v, c) => (c < 2 ? v.padEnd(widths[c]!) : v.padStart(widths[c]!))).join("  ");
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  const body = all.slice(1, -1).map(line).join("\n");
  return `Frontier: ${title} at equal inclusion\n\n${line(all[0]!)}\n${rule}\n${body}\n${rule}\n${line(all[all.length - 1]!)}\n`;
}

/**
 * The frontier as two plain-text tables, the median overpayment and then the mean price paid:
 * one row per strategy, one column per horizon and inclusion target, each cell the measure at
 * that inclusion; a last row names the strategy that pays least in each column. `shown` writes
 * each cell: for a terminal, `escapeControls` (a strategy's name is its module's to choose, and
 * nothing in it may move the cursor); an HTML page escapes its own way.
 *
 * @example
 * process.stdout.write(formatFrontier(frontierResult(run.result(), plan), escapeControls));
 */
export function formatFrontier(
  frontier: FrontierResult,
  shown: (text: string) => string = (text) => text,
): string {
  const tables = MEASURES.map((m) => table(frontier, m.key, m.title, shown));
  return `${tables.join("\n")}\n${FRONTIER_LEGEND}\n`;
}
