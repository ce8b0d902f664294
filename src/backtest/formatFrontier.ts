import { type FrontierReading, type FrontierResult, reachesTarget } from "./frontierResult.js";
import { HORIZONS } from "./types.js";

/** What the frontier table's marks mean, printed under it. */
export const FRONTIER_LEGEND =
  "Each cell: median overpayment at that inclusion, read off the strategy's curve as its knob is swept (linear between the two knob values around the target).\n" +
  "*: even its cheapest setting includes more than the target; that is the least it overpays. -: no setting reaches the target.\n" +
  "(x%): a strategy without a knob; its tier for that horizon (prioritized in 1, regular in 3, deprioritized in 10) and the inclusion it reached.\n" +
  "lowest: the strategy that overpays least at that inclusion (a point or a * counts only where it reaches the target).";

const pct = (v: number) => `${+(v * 100).toFixed(2)}%`;

function cell(r: FrontierReading | undefined): string {
  if (!r || r.overpay === null) return "-";
  const v = r.overpay.toFixed(3);
  if (r.kind === "floor") return `${v}*`;
  if (r.kind === "point") return `${v} (${r.inclusion === null ? "-" : pct(r.inclusion)})`;
  return v;
}

/**
 * The frontier as a plain-text table: one row per strategy, one column per horizon and
 * inclusion target, each cell the median overpayment at that inclusion; a last row names the
 * strategy that overpays least in each column.
 *
 * @example
 * process.stdout.write(formatFrontier(frontierResult(run.result(), plan)));
 */
export function formatFrontier(frontier: FrontierResult): string {
  const strategies = [...new Set(frontier.curves.map((c) => c.strategy))];
  const columns = HORIZONS.flatMap((k) => frontier.targets.map((t) => ({ k, t })));
  const header = ["strategy", "knob", ...columns.map(({ k, t }) => `in ${k} @${pct(t)}`)];
  const rows = strategies.map((s) => {
    const knob = frontier.curves.find((c) => c.strategy === s)?.knob ?? "-";
    return [
      s,
      knob,
      ...columns.map(({ k, t }) =>
        cell(frontier.readings.find((r) => r.strategy === s && r.horizon === k && r.target === t)),
      ),
    ];
  });
  const lowest = [
    "lowest",
    "",
    ...columns.map(({ k, t }) => {
      const candidates = frontier.readings
        .filter((r) => r.horizon === k && r.target === t && reachesTarget(r))
        .sort((a, b) => a.overpay! - b.overpay!);
      const best = candidates[0];
      if (!best) return "-";
      const tied = candidates
        .filter((r) => r.overpay! - best.overpay! < 5e-4)
        .map((r) => r.strategy);
      return tied.join("=");
    }),
  ];
  const all = [header, ...rows, lowest];
  const widths = header.map((_, c) => Math.max(...all.map((r) => r[c]!.length)));
  const line = (r: string[]) =>
    r.map((v, c) => (c < 2 ? v.padEnd(widths[c]!) : v.padStart(widths[c]!))).join("  ");
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  return `Frontier: median overpayment at equal inclusion\n\n${line(header)}\n${rule}\n${rows.map(line).join("\n")}\n${rule}\n${line(lowest)}\n\n${FRONTIER_LEGEND}\n`;
}
