import { stat } from "node:fs/promises";
import { parseArgs } from "node:util";
import cliProgress from "cli-progress";
import { type BacktestStrategy, createBacktest } from "../backtest/createBacktest.js";
import { createSeriesRecorder } from "../backtest/createSeriesRecorder.js";
import { formatFrontier } from "../backtest/formatFrontier.js";
import { formatTable } from "../backtest/formatTable.js";
import { planFrontier } from "../backtest/frontierPlan.js";
import { frontierResult } from "../backtest/frontierResult.js";
import { readHistory } from "../backtest/readHistory.js";
import { renderReport } from "../backtest/renderReport.js";
import { escapeControls } from "../core/describeValue.js";
import { BaseError, BlockOrderError } from "../core/errors.js";
import { strategyNames } from "../strategies/registry.js";
import { type CliIo, UsageError } from "./io.js";
import { createLineReport, duplicateLine, issueLine } from "./lineMessages.js";
import { loadConfigFile } from "./loadConfigFile.js";
import { strategyFor } from "./loadStrategy.js";
import { isStrategyPath } from "./loadStrategyModule.js";
import { checkOutputPath, fileFlag, requiredFileFlag, writeOutputFile } from "./outputFile.js";
import { progressLines } from "./progressLines.js";
import { intFlag } from "./sourceSpec.js";

export const BACKTEST_USAGE = `Usage: gasdigest backtest --input FILE.ndjson [--strategies aip34,calibrated,geth,...]
                          [--config FILE.json] [--calm-blocks 10] [--verify-every 10]
                          [--frontier] [--json] [--report out.html]

Replays an NDJSON block file through the strategies and scores, for each tier, how often its
estimate (made before each block) would have got a transaction in within 1, 3 and 10 blocks,
what it overpaid against the clearing price, and how it followed price spikes (docs/backtest.md).
  --strategies   comma-separated names, or module files whose default export is a strategy
                 factory (e.g. aip34,./mine.js) (default: every registered strategy)
  --config       AIP-34 settings for every strategy and the ground truth, and a block of options
                 per strategy ("calibrated", "tdigest", "geth", "last-block")
  --calm-blocks  blocks at the minimum price before a spike and that end it, 1 to 1000000
                 (default 10)
  --verify-every ask every strategy again on every n-th block to catch one that looks ahead
                 (1 = every block; each check costs one more estimate) (default 10)
  --frontier     also sweep each strategy's own knob (calibrated: probability, geth: percentile,
                 tdigest: quantile, last-block: multiplier; aip34: its tiers as points) and print
                 the median overpayment and the mean price paid of each at 90/95/99 % inclusion
                 within 1, 3 and 10 blocks
  --json         print the results as JSON instead of a table
  --report       also write a self-contained HTML report with charts
A strategy that had no estimate before some blocks (it threw or broke the invariants) gets one
line after the table: how many blocks, and the first one's reason (cut to 200 characters).
Rejected lines go to stderr as "line N: <field path>: <problem>" (the first 1000 lines; the rest
are counted in one last line). Progress goes to stderr: a bar on a terminal, otherwise a line
every 10 s of a longer run.
Exit code: 0 all lines accepted, 2 some lines rejected, 1 unusable arguments or unreadable file.`;

/** Rejected lines reported one by one; the rest are counted in one line. */
const MAX_REPORTED = 1000;

/** `gasdigest backtest`: returns the exit code. */
export async function backtest(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      input: { type: "string", short: "i" },
      strategies: { type: "string", short: "s" },
      config: { type: "string", short: "c" },
      "calm-blocks": { type: "string", default: "10" },
      "verify-every": { type: "string", default: "10" },
      json: { type: "boolean", default: false },
      frontier: { type: "boolean", default: false },
      report: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    io.stdout.write(`${BACKTEST_USAGE}\n`);
    return 0;
  }
  const input = requiredFileFlag("input", values.input, "FILE.ndjson");
  const reportPath = fileFlag("report", values.report);
  const calm = intFlag("calm-blocks", values["calm-blocks"], 1, 1_000_000)!;
  const every = intFlag("verify-every", values["verify-every"], 1)!;
  const names = (values.strategies ?? strategyNames().join(",")).split(",").map((n) => n.trim());
  if (names.every((n) => n === ""))
    throw new UsageError("--strategies must name at least one strategy");
  if (names.includes(""))
    throw new UsageError(
      `--strategies has an empty name (got "${values.strategies}"): names are separated by one comma`,
    );
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new UsageError(`--strategies names "${twice}" twice`);

  const file = await loadConfigFile(values.config);
  // The config is every strategy's engine's: one that pins the estimate pins it for all of them,
  // and each row would score the same bids under its own strategy's name.
  const pinned = !file.gas.enabled
    ? "enabled: false, so every strategy's engine serves the default estimate (min, min, nextBucket(min))"
    : file.gas.staticOverride
      ? "staticOverride, so every strategy's engine serves it"
      : undefined;
  if (pinned)
    io.stderr.write(
      `backtest: --config sets ${pinned} instead of the strategy's own estimate: every row scores those same bids (leave it out of a backtest's config to compare strategies)\n`,
    );
  const strategies: BacktestStrategy[] = [];
  for (const name of names)
    strategies.push({
      name,
      strategy: await strategyFor(name, file),
    });
  const plan = values.frontier
    ? planFrontier(
        names,
        Object.fromEntries(strategies.map((s) => [s.name!, s.strategy])),
        file.strategies,
      )
    : undefined;
  // A report that cannot be written fails now, not after the run.
  if (reportPath !== undefined)
    await checkOutputPath(reportPath, [
      input,
      ...(values.config === undefined ? [] : [values.config]),
      ...names.filter(isStrategyPath),
    ]);
  let size: number;
  try {
    size = (await stat(input)).size;
  } catch (e) {
    throw new BaseError(`cannot read ${input}`, { details: (e as Error).message, cause: e });
  }

  const recorder = reportPath ? createSeriesRecorder({ strategies: names }) : undefined;
  const run = createBacktest({
    strategies: [...strategies, ...(plan?.strategies ?? [])],
    config: file.gas,
    calmBlocks: calm,
    verifyEvery: every,
    onBlock: recorder?.record,
  });
  // A pipe or device (`--input /dev/stdin`) has no size to show progress against.
  const bar =
    io.isTTY && size > 0
      ? new cliProgress.SingleBar(
          {
            stream: io.stderr,
            format: "backtest [{bar}] {percentage}% | {blocks} blocks | {eta_formatted}",
            etaBuffer: 50,
          },
          cliProgress.Presets.shades_classic,
        )
      : undefined;
  bar?.start(Math.max(size, 1), 0, { blocks: 0 });
  // Off a terminal (a log, CI), a plain line every 10 s: a long run is not silent.
  let bytes = 0;
  // The clock is read at every line, not only at each 1 MiB of the file: a frontier run takes
  // longer than 10 s over 1 MiB of small blocks.
  const line = bar
    ? undefined
    : progressLines(io, (ms) => {
        const share =
          size > 0 ? ` (${Math.floor((Math.min(bytes, size) * 100) / size)}% of the file)` : "";
        return `backtest: ${run.stats().blocks.toLocaleString("en-US")} blocks read${share}, ${Math.round(ms / 1000)} s`;
      });
  const progress = () => line?.();
  const onBytes = (read: number) => {
    bytes = read;
    if (bar) bar.update(read, { blocks: run.stats().blocks });
    else progress();
  };
  // Rejected lines: streamed to stderr; with a progress bar on the terminal, the first 100 are
  // held until it is done (and the rest counted).
  const errors: string[] = [];
  let hidden = 0;
  const problem = (text: string) => {
    if (bar && errors.length >= 100) hidden++;
    else errors.push(text);
    if (!bar && errors.length >= 100) flushErrors();
  };
  const flushErrors = () => {
    if (hidden > 0) errors.push(`(${hidden} more problems not shown)`);
    if (errors.length > 0) io.stderr.write(`${errors.join("\n")}\n`);
    errors.length = 0;
    hidden = 0;
  };
  // Past MAX_REPORTED rejected lines, the rest are only counted (one summary line at the end).
  const report = createLineReport(problem, MAX_REPORTED);
  let problems = 0;
  try {
    for await (const entry of readHistory(input, {
      onBytes,
    })) {
      progress();
      if (!entry.ok) {
        problems++;
        await report(entry.line, () => entry.issues.map((issue) => issueLine(entry.line, issue)));
        continue;
      }
      try {
        // A repeated newest height (a recording that wrote a block twice) is reported, but it
        // is not a problem: the exit code stays 0 for it, as in replay and stats.
        if (run.push(entry.block) === "duplicate")
          await report(entry.line, () => [duplicateLine(entry.line, entry.block.height)], true);
      } catch (e) {
        if (!(e instanceof BlockOrderError)) throw e;
        problems++;
        await report(entry.line, () => [issueLine(entry.line, e.issue)]);
      }
    }
  } catch (e) {
    bar?.stop();
    await report.finish();
    flushErrors();
    if (e instanceof BaseError) throw e;
    throw new BaseError(`cannot read ${input}`, { details: (e as Error).message, cause: e });
  }
  bar?.update(size, { blocks: run.stats().blocks });
  bar?.stop();
  await report.finish();
  flushErrors();

  const all = run.result();
  // The named strategies make the table; the frontier's lanes only its curves.
  const result = { ...all, strategies: all.strategies.filter((s) => names.includes(s.name)) };
  const frontier = plan ? frontierResult(all, plan) : undefined;
  if (values.json)
    io.stdout.write(`${JSON.stringify({ input: input, ...result, frontier }, null, 2)}\n`);
  else {
    io.stdout.write(formatTable(result));
    if (frontier) io.stdout.write(`\n${formatFrontier(frontier, escapeControls)}`);
  }
  if (reportPath && recorder) {
    const html = renderReport({
      result,
      series: recorder.series(),
      source: input,
      frontier,
    });
    await writeOutputFile(reportPath, html);
    io.stderr.write(`report written to ${escapeControls(reportPath)}\n`);
  }
  return problems > 0 ? 2 : 0;
}

/** The `backtest` command for the CLI's command table. */
export const backtestCommand = {
  run: backtest,
  usage: BACKTEST_USAGE,
};
