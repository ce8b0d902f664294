import { parseArgs } from "node:util";
import {
  createHistoryStats,
  type HistoryStats,
  type Quantiles,
  STATS_QUANTILES,
} from "../backtest/createHistoryStats.js";
import { readHistory } from "../backtest/readHistory.js";
import { type GasConfig, parseGasConfig } from "../core/config.js";
import { createBlockOrder } from "../core/createBlockOrder.js";
import { escapeControls } from "../core/describeValue.js";
import { BaseError, BlockOrderError } from "../core/errors.js";
import type { CliIo } from "./io.js";
import { createLineReport, duplicateLine, issueLine } from "./lineMessages.js";
import { loadConfigFile } from "./loadConfigFile.js";
import { fileFlag, requiredFileFlag } from "./outputFile.js";
import { checkReadableFile } from "./sourceSpec.js";

export const STATS_USAGE = `Usage: gasdigest stats --input FILE.ndjson [--compare OTHER.ndjson] [--config FILE.json] [--json]

Prints a block history's statistics: the share of full blocks, full-block run lengths, the lag-1
autocorrelation of log clearing price, quantiles of block-to-block clearing ratios, and
quantiles of the minimum price. With --compare, a second history side by side and how far each
statistic of the second lies from the first (to check a simulated chain against a real one);
its stderr lines then start with the file they are about, and --json puts it under "compare".
  --config   fullness and minimum-price settings for the clearing prices (as backtest)
  --json     print the statistics as JSON
Blocks are read as replay reads them: a line that is not a block sample, or a block the ordering
rules reject (a lower height, a jump past maxHeightJump, ...), goes to stderr as
"line N: <field path>: <problem>" and is left out; a repeated newest height is reported and
ignored (not rejected). The first 1000 are reported; the rest are counted in one last line.
Exit code: 0 all lines accepted, 2 some lines rejected, 1 unusable arguments or unreadable file.`;

/** One statistic as a named number (for the side-by-side table and the comparison). */
function rows(s: HistoryStats): [string, number | null][] {
  const q = (name: string, qs: Quantiles, levels = STATS_QUANTILES) =>
    levels.map((l): [string, number | null] => [`${name} p${l * 100}`, qs?.[String(l)] ?? null]);
  const median = s.minimumPrice?.["0.5"];
  const relative: Quantiles =
    s.minimumPrice && median
      ? Object.fromEntries(Object.entries(s.minimumPrice).map(([k, v]) => [k, v / median]))
      : null;
  return [
    ["blocks", s.blocks],
    ["full blocks (share)", s.fullShare],
    ["clearing at the minimum (share)", s.atMinimumShare],
    ["full-block runs", s.fullRuns.count],
    ["full-block run mean", s.fullRuns.mean],
    ...q("full-block run", s.fullRuns.quantiles, [0.5, 0.9]),
    ["full-block run max", s.fullRuns.max],
    ["lag-1 autocorrelation of log clearing", s.clearingAutocorrelation],
    ...q("clearing(t)/clearing(t-1)", s.clearingRatio),
    ...q("clearing/minimum", s.clearingOverMinimum, [0.5, 0.9, 0.99]),
    ...q("minimum price", s.minimumPrice, [0.01, 0.5, 0.99]),
    ...q("minimum price / its median", relative, [0.01, 0.99]),
  ];
}

/**
 * A statistic as text: whole numbers in full while a double holds them exactly, others with 4
 * significant digits (a u64 minimum price near 2^64 is a double here: written in full it would
 * read 18446744073709552000, above u64's maximum).
 */
const show = (v: number | null) =>
  v === null
    ? "-"
    : Number.isSafeInteger(v)
      ? String(v)
      : Number.isInteger(v)
        ? v.toPrecision(6)
        : v.toPrecision(4);

/** Rejected lines reported one by one (as `replay`'s default); the rest are counted in one line. */
const MAX_REPORTED = 1000;

/**
 * Read a history's statistics: lines that are not block samples and blocks the engine's ordering
 * rules reject (a lower height, ...) are reported on stderr and counted; a repeated newest height
 * is reported and ignored, as `replay` does.
 */
async function collect(path: string, io: CliIo, config: GasConfig, named: boolean) {
  const stats = createHistoryStats(config);
  const order = createBlockOrder(config);
  // With --compare, each line says which file it is about.
  const prefix = named ? `${escapeControls(path)}: ` : "";
  const report = createLineReport(
    (text) => void io.stderr.write(`${prefix}${text}\n`),
    MAX_REPORTED,
  );
  let problems = 0;
  try {
    for await (const entry of readHistory(path)) {
      if (!entry.ok) {
        problems++;
        await report(entry.line, () => entry.issues.map((issue) => issueLine(entry.line, issue)));
        continue;
      }
      let place: ReturnType<typeof order.check>;
      try {
        place = order.check(entry.block);
      } catch (e) {
        if (!(e instanceof BlockOrderError)) throw e;
        problems++;
        await report(entry.line, () => [issueLine(entry.line, e.issue)]);
        continue;
      }
      if (place === "duplicate") {
        await report(entry.line, () => [duplicateLine(entry.line, entry.block.height)], true);
        continue;
      }
      order.accept(entry.block);
      stats.push(entry.block);
    }
  } catch (e) {
    await report.finish();
    if (e instanceof BaseError) throw e;
    throw new BaseError(`cannot read ${path}`, { details: (e as Error).message, cause: e });
  }
  await report.finish();
  return { result: stats.result(), problems };
}

/** `gasdigest stats`: returns the exit code. */
export async function stats(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      input: { type: "string", short: "i" },
      compare: { type: "string" },
      config: { type: "string", short: "c" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    io.stdout.write(`${STATS_USAGE}\n`);
    return 0;
  }
  const input = requiredFileFlag("input", values.input, "FILE.ndjson");
  const file = await loadConfigFile(values.config);
  const gas = parseGasConfig(file.gas);
  const compare = fileFlag("compare", values.compare);
  // A second history that cannot be read fails now, not after the first was read whole (a
  // large one took minutes, its rejected lines printed, to end on the missing file).
  if (compare !== undefined) checkReadableFile(compare);
  const named = compare !== undefined;
  const a = await collect(input, io, gas, named);
  const b = compare !== undefined ? await collect(compare, io, gas, named) : undefined;
  if (values.json) {
    // The same shape with or without --compare; the second history under `compare`.
    const out = {
      input: input,
      ...a.result,
      ...(b ? { compare: { input: compare, ...b.result } } : {}),
    };
    io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    const left = rows(a.result);
    const right = b ? rows(b.result) : undefined;
    const table = left.map(([name, v], i) => {
      const cells = [name, show(v)];
      if (right) {
        const w = right[i]![1];
        cells.push(show(w));
        // Relative to the first's size: a negative statistic (an autocorrelation) that the
        // second exceeds lies above it, so the sign is the side the second lies on.
        cells.push(
          v !== null && w !== null && v !== 0
            ? `${(((w - v) / Math.abs(v)) * 100).toFixed(1)}%`
            : "-",
        );
      }
      return cells;
    });
    const header = (
      right ? ["statistic", input, compare!, "difference"] : ["statistic", input]
    ).map(escapeControls);
    const all = [header, ...table];
    const widths = header.map((_, c) => Math.max(...all.map((r) => r[c]!.length)));
    const line = (r: string[]) =>
      r.map((v, c) => (c === 0 ? v.padEnd(widths[c]!) : v.padStart(widths[c]!))).join("  ");
    io.stdout.write(
      `${line(header)}\n${widths.map((w) => "-".repeat(w)).join("  ")}\n${table.map(line).join("\n")}\n`,
    );
  }
  return a.problems + (b?.problems ?? 0) > 0 ? 2 : 0;
}

/** The `stats` command for the CLI's command table. */
export const statsCommand = {
  run: stats,
  usage: STATS_USAGE,
};
