import { parseArgs } from "node:util";
import { createEngine } from "../core/createEngine.js";
import { oneLine } from "../core/describeValue.js";
import { BaseError, BlockOrderError, InvalidBlockSampleError } from "../core/errors.js";
import type { GasEstimate } from "../core/types.js";
import { encodeEstimateJson } from "../http/encodeEstimate.js";
import { readNdjson } from "../sources/readNdjson.js";
import { type CliIo, LineWriter, UsageError } from "./io.js";
import { createLineReport, duplicateLine, issueLine } from "./lineMessages.js";
import { loadStrategy } from "./loadStrategy.js";
import { requiredFileFlag } from "./outputFile.js";

export const REPLAY_USAGE = `Usage: gasdigest replay --input FILE.ndjson [--strategy aip34] [--config FILE.json]
                        [--max-reported 1000]

Replays an NDJSON block file and prints, for every accepted block, the estimate served right
after it: {"height":"<h>","deprioritized_gas_estimate":N,"gas_estimate":N,"prioritized_gas_estimate":N}
  --strategy      aip34 (default), calibrated, tdigest, geth, last-block, or a module file
                  (./mine.js) whose default export is a strategy factory
Rejected lines go to stderr as "line N: <field path>: <problem>" (at most 20 problems a line).
  --max-reported  rejected lines reported one by one; the rest are counted in one last line
                  with the first and last of their numbers (0: report every one) (default 1000)
A block the strategy fails on is accepted but prints no estimate: "line N: strategy NAME failed
to ..." goes to stderr instead, counted with the rejected lines.
Exit code: 0 an estimate for every line, 2 some lines rejected or failed by the strategy,
1 unusable arguments or unreadable file, 141 the reader of the output went away (as with | head).`;

/** Default of `--max-reported`. */
const MAX_REPORTED = 1000;

/**
 * One output line of `replay`: the served estimate object (u64 written exactly from BigInt)
 * with the block's `height` first.
 *
 * @example
 * estimateLine(3n, { deprioritized: 100n, regular: 150n, prioritized: 300n });
 * // '{"height":"3","deprioritized_gas_estimate":100,"gas_estimate":150,"prioritized_gas_estimate":300}'
 */
export function estimateLine(height: bigint, e: GasEstimate): string {
  // encodeEstimateJson always starts with "{" and a key, so the height slots in before it.
  return `{"height":"${height}",${encodeEstimateJson(e).slice(1)}`;
}

/** `gasdigest replay`: returns the exit code. */
export async function replay(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      input: { type: "string", short: "i" },
      strategy: { type: "string", short: "s", default: "aip34" },
      config: { type: "string", short: "c" },
      "max-reported": { type: "string", default: String(MAX_REPORTED) },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    io.stdout.write(`${REPLAY_USAGE}\n`);
    return 0;
  }
  const input = requiredFileFlag("input", values.input, "FILE.ndjson");
  const maxReported = values["max-reported"];
  if (!/^\d+$/.test(maxReported))
    throw new UsageError(`--max-reported must be a whole number >= 0, got "${maxReported}"`);
  const { strategy, config } = await loadStrategy(values.strategy, values.config);
  const engine = createEngine({ strategy, config });
  const out = new LineWriter(io.stdout);
  const err = new LineWriter(io.stderr, 0, true);
  const report = createLineReport(
    (text) => err.line(text),
    Number(maxReported),
    "; --max-reported 0 reports every one",
  );
  let problems = 0;
  try {
    for await (const entry of readNdjson(input)) {
      if (!entry.ok) {
        problems++;
        await report(entry.line, () => entry.issues.map((issue) => issueLine(entry.line, issue)));
        continue;
      }
      let outcome: string;
      try {
        outcome = engine.ingest(entry.block);
      } catch (e) {
        problems++;
        if (e instanceof BlockOrderError)
          await report(entry.line, () => [issueLine(entry.line, e.issue)]);
        else if (e instanceof InvalidBlockSampleError)
          await report(entry.line, () => e.issues.map((issue) => issueLine(entry.line, issue)));
        else throw e;
        continue;
      }
      if (outcome === "duplicate") {
        await report(entry.line, () => [duplicateLine(entry.line, entry.block.height)], true);
        continue;
      }
      const snap = engine.snapshot()!;
      if (snap.estimate) await out.line(estimateLine(snap.ledger.blockHeight, snap.estimate));
      else {
        problems++;
        const failure = oneLine(snap.failure?.message ?? "no estimate");
        await report(entry.line, () => [`line ${entry.line}: ${failure}`]);
      }
    }
  } catch (e) {
    await out.flush();
    await report.finish();
    await err.flush();
    if (e instanceof BaseError) throw e;
    throw new BaseError(`cannot read ${input}`, { details: (e as Error).message, cause: e });
  }
  await out.flush();
  await report.finish();
  await err.flush();
  return problems > 0 ? 2 : 0;
}

/** The `replay` command for the CLI's command table. */
export const replayCommand = { run: replay, usage: REPLAY_USAGE };
