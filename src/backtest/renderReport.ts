import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describeValue } from "../core/describeValue.js";
import { BaseError, InvalidArgumentError } from "../core/errors.js";
import { openOptions, unknownFieldIssues } from "../core/readOptions.js";
import type { RecordedSeries } from "./createSeriesRecorder.js";
import { formatFrontier } from "./formatFrontier.js";
import { describeResult, TABLE_COLUMNS, TABLE_LEGEND, tableRows } from "./formatTable.js";
import type { FrontierResult } from "./frontierResult.js";
import { REPORT_SCRIPT } from "./reportScript.generated.js";
import { type BacktestResult, HORIZONS, TIERS } from "./types.js";

/** Options of {@link renderReport}. */
export interface RenderReportOptions {
  /** What the backtest measured. */
  result: BacktestResult;
  /** The recorded series (`createSeriesRecorder`), for the charts over time. */
  series: RecordedSeries;
  /** Page title. @default "gasdigest backtest" */
  title?: string | undefined;
  /** What was replayed (e.g. the input file name), shown under the title. @default undefined */
  source?: string | undefined;
  /** A frontier run (`--frontier`): adds its tables and two charts per horizon. @default undefined */
  frontier?: FrontierResult | undefined;
}

interface ChartLibrary {
  script: string;
  css: string;
}
let library: ChartLibrary | undefined;

/**
 * uPlot's browser build and stylesheet: the copy the build puts in `dist/uplot/`
 * (scripts/copyReportAssets.mjs, so installing gasdigest installs no uplot), else, from the
 * sources, the installed package (never a CDN). Its banner comment is replaced by one naming
 * version and licence without a link, so the page holds no URL at all.
 */
function chartLibrary(): ChartLibrary {
  if (library) return library;
  const fromBuild = (file: string) => new URL(`../uplot/${file}`, import.meta.url);
  const require = createRequire(import.meta.url);
  const fromPackage = (file: string) => require.resolve(`uplot/${file}`);
  const at = existsSync(fromBuild("package.json"))
    ? (file: string) => fromBuild(file.replace("dist/", ""))
    : fromPackage;
  try {
    const pkg = JSON.parse(readFileSync(at("package.json"), "utf8")) as {
      version: string;
      license: string;
    };
    const read = (file: string) => readFileSync(at(`dist/${file}`), "utf8");
    const banner = `/*! uPlot ${pkg.version} (${pkg.license} licence, (c) Leon Sorokin) */`;
    library = {
      script: `${banner}\n${read("uPlot.iife.min.js").replace(/^\/\*![\s\S]*?\*\/\s*/, "")}`,
      css: read("uPlot.min.css").replace(/^\/\*![\s\S]*?\*\/\s*/, ""),
    };
  } catch (cause) {
    throw new BaseError("cannot load the chart library for the report", {
      details: `its files are copied to dist/uplot/ by the build (${(cause as Error).message})`,
      cause,
    });
  }
  return library;
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
// Inline JSON/JS must not close its <script> element early: JSON escapes every "<".
const jsonSafe = (s: string) => s.replace(/</g, "\\u003c");
const scriptSafe = (s: string) => s.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");

/**
 * The page's policy: nothing loaded from anywhere (the file is the whole report, read offline),
 * no script but its two inline ones, by their hashes. The escaping above keeps what a strategy
 * or a file name says inert; this makes the browser enforce it, should the escaping ever fail.
 */
function contentSecurityPolicy(scripts: readonly string[]): string {
  const hashes = scripts.map((s) => `'sha256-${createHash("sha256").update(s).digest("base64")}'`);
  return `default-src 'none'; script-src ${hashes.join(" ")}; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'`;
}

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1140px; padding: 0 16px; color: #111827; }
h1 { font-size: 22px; margin-bottom: 4px; }
h2 { font-size: 17px; margin-top: 32px; }
p.note { color: #4b5563; white-space: pre-line; }
/* A run with no place to break (heights near 2^64, a long file name) wraps, not widen the page. */
h1, h3, p { overflow-wrap: anywhere; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 10px; border-bottom: 1px solid #e5e7eb; text-align: right; }
th:nth-child(-n+2), td:nth-child(-n+2) { text-align: left; }
.chart { margin: 8px 0 24px; min-height: 300px; }
/* A chart with nothing to draw says so in a line (the script), not in a 300 px gap. */
.chart.empty { min-height: 0; }
/* A table wider than the screen (a phone, the frontier's nine columns) scrolls in its box, not the page. */
.wide, pre { overflow-x: auto; }
`;

const REPORT_FIELDS = ["result", "series", "title", "source", "frontier"];

/** The report's options, checked as far as a misspelt or misplaced one would show. */
function checkReportOptions(options: unknown): void {
  const opened = openOptions(options);
  if (opened.issue) throw new InvalidArgumentError([opened.issue]);
  const o = opened.value;
  const issues = unknownFieldIssues(o, REPORT_FIELDS);
  const isObject = (v: unknown) => typeof v === "object" && v !== null;
  if (!isObject(o.result) || !Array.isArray((o.result as { strategies?: unknown }).strategies))
    issues.push({
      path: "result",
      message: `must be a backtest result, createBacktest()'s result() (got ${describeValue(o.result)})`,
    });
  if (!isObject(o.series) || !Array.isArray((o.series as { strategies?: unknown }).strategies))
    issues.push({
      path: "series",
      message: `must be a recorded series, createSeriesRecorder()'s series() (got ${describeValue(o.series)})`,
    });
  // A series built by hand (its heightLabels may be left out) must still hold what the page
  // draws: without its heights the page's script stopped before the first chart.
  const series = o.series as Record<string, unknown>;
  if (isObject(series) && Array.isArray(series.strategies)) {
    for (const key of ["heights", "clearing"])
      if (!Array.isArray(series[key]))
        issues.push({
          path: `series.${key}`,
          message: `must be an array of numbers, one per point (got ${describeValue(series[key])})`,
        });
    const perPoint = series.blocksPerPoint;
    if (!Number.isInteger(perPoint) || (perPoint as number) < 1)
      issues.push({
        path: "series.blocksPerPoint",
        message: `must be a whole number >= 1 (got ${describeValue(perPoint)})`,
      });
    series.strategies.forEach((s: unknown, i) => {
      const one = s as Record<string, unknown>;
      if (
        !isObject(s) ||
        typeof one.name !== "string" ||
        !TIERS.every((t) => Array.isArray(one[t]))
      )
        issues.push({
          path: `series.strategies[${i}]`,
          message: `must be { name, deprioritized, regular, prioritized } (got ${describeValue(s)})`,
        });
    });
  }
  for (const key of ["title", "source"])
    if (o[key] !== undefined && typeof o[key] !== "string")
      issues.push({ path: key, message: `must be a string (got ${describeValue(o[key])})` });
  if (
    o.frontier !== undefined &&
    (!isObject(o.frontier) || !Array.isArray((o.frontier as { curves?: unknown }).curves))
  )
    issues.push({
      path: "frontier",
      message: `must be a frontier run's result (got ${describeValue(o.frontier)})`,
    });
  if (issues.length > 0) throw new InvalidArgumentError(issues);
}

/**
 * One self-contained HTML page of a backtest: the results table, and charts drawn by uPlot
 * (inlined from the copy of `uplot` the build ships, with its stylesheet; the page loads nothing and
 * contains no URL): each strategy's three tiers against the clearing price over time (log
 * scale when every price is positive), and for 1, 3 and 10 blocks, inclusion against mean
 * overpayment with one point per strategy and tier (the mean separates tiers whose median is 1).
 *
 * @throws {InvalidArgumentError} when the options are not a result and a series as made by
 * `createBacktest` and `createSeriesRecorder` (every problem named), or hold an unknown field.
 * @throws {BaseError} when uPlot's files cannot be read (a build without `dist/uplot/`).
 * @example
 * await writeFile("report.html", renderReport({ result, series: recorder.series(), source: "spike.ndjson" }));
 */
export function renderReport(options: RenderReportOptions): string {
  checkReportOptions(options);
  const { result, series } = options;
  const title = options.title ?? "gasdigest backtest";
  const lib = chartLibrary();
  const points = result.strategies.flatMap((s, strategyIndex) =>
    TIERS.map((tier) => ({
      strategy: s.name,
      strategyIndex,
      tier,
      overpayment: s.tiers[tier].overpayment?.mean ?? null,
      inclusion: s.tiers[tier].inclusion,
    })),
  );
  const frontier = options.frontier;
  // The heights exact, where a number cannot tell them apart (past 2^53): the axis's labels.
  const { heightLabels, ...drawn } = series;
  const labels =
    heightLabels && series.heights.some((h) => !Number.isSafeInteger(h)) ? heightLabels : null;
  const data = {
    horizons: HORIZONS,
    series: { ...drawn, labels },
    points,
    frontier: frontier?.curves ?? null,
  };
  const head = TABLE_COLUMNS.map((c) => `<th>${escapeHtml(c)}</th>`).join("");
  const body = tableRows(result)
    .map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}</tr>`)
    .join("\n");
  const perPoint =
    series.blocksPerPoint === 1
      ? "one point per block"
      : `each point is the highest value over ${series.blocksPerPoint} consecutive blocks`;
  const timelines = series.strategies
    .map((s, i) => `<h3>${escapeHtml(s.name)}</h3>\n<div class="chart" id="timeline-${i}"></div>`)
    .join("\n");
  // One chart per horizon, each under its heading, the chart element's id `${prefix}-${h}`.
  const perHorizon = (prefix: string) =>
    HORIZONS.map(
      (h) =>
        `<h3>within ${h} block${h === 1 ? "" : "s"}</h3>\n<div class="chart" id="${prefix}-${h}"></div>`,
    ).join("\n");
  const scripts = [scriptSafe(lib.script), scriptSafe(REPORT_SCRIPT)];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(scripts)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${lib.css}</style>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${options.source ? `<p>${escapeHtml(options.source)}</p>` : ""}
<p class="note">${escapeHtml(describeResult(result))}</p>
<h2>Scores</h2>
<div class="wide">
<table id="scores">
<thead><tr>${head}</tr></thead>
<tbody>
${body}
</tbody>
</table>
</div>
<p class="note">${escapeHtml(TABLE_LEGEND)}</p>
<h2>Estimates against the clearing price</h2>
<p class="note">Each tier's estimate made before a block, and the block's clearing price; ${perPoint}.</p>
${timelines}
<h2>Inclusion against overpayment</h2>
<p class="note">One point per strategy (colour) and tier (size: deprioritized smallest, prioritized largest): the share of its bids included against the mean of estimate / clearing price over the bids that got in. Up and to the left is better.</p>
${perHorizon("scatter")}
${
  frontier
    ? `<h2>Frontier: inclusion against median overpayment</h2>
<p class="note">Each strategy's own knob swept (calibrated: probability; geth: percentile; tdigest: quantile; last-block: multiplier); a strategy without one shows its three tiers as points. Down and to the right is better: more inclusion for less overpayment.</p>
${perHorizon("frontier")}
<h2>Frontier: inclusion against price paid</h2>
<p class="note">The same curves by the mean price the included bids paid, in mean clearing prices of the history: a cheap bid that waits for a block at the minimum overpays that block many times over, and still costs less.</p>
${perHorizon("frontier-cost")}
<pre id="frontier-table">${escapeHtml(formatFrontier(frontier))}</pre>`
    : ""
}
<script type="application/json" id="backtest-data">${jsonSafe(JSON.stringify(data))}</script>
<script>${scripts[0]}</script>
<script>${scripts[1]}</script>
</body>
</html>
`;
}
