import { parseArgs } from "node:util";
import { createEngine } from "../core/createEngine.js";
import { BaseError, BlockOrderError, InvalidBlockSampleError } from "../core/errors.js";
import type { GasEstimate } from "../core/types.js";
import { encodeEstimateJson } from "../http/encodeEstimate.js";
import { readNdjson } from "../sources/readNdjson.js";
import { type CliIo, LineWriter, UsageError } from "./io.js";
import { duplicateLine, issueLine } from "./lineMessages.js";
import { loadStrategy } from "./loadStrategy.js";

export const REPLAY_USAGE = `Usage: gasdigest replay --input FILE.ndjson [--strategy aip34] [--config FILE.json]

Replays an NDJSON block file and prints, for every accepted block, the estimate served right
after it: {"height":"<h>","deprioritized_gas_estimate":N,"gas_estimate":N,"prioritized_gas_estimate":N}
Rejected lines go to stderr as "line N: <field path>: <problem>".
Exit code: 0 all lines accepted, 2 some lines rejected, 1 unusable arguments or unreadable file.`;

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
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    io.stdout.write(`${REPLAY_USAGE}\n`);
    return 0;
  }
  if (!values.input) throw new UsageError("--input FILE.ndjson is required");
  const { strategy, config } = await loadStrategy(values.strategy, values.config);
  const engine = createEngine({ strategy, config });
  const out = new LineWriter(io.stdout);
  const err = new LineWriter(io.stderr, 0);
  let problems = 0;
  try {
    for await (const entry of readNdjson(values.input)) {
      if (!entry.ok) {
        problems++;
        for (const issue of entry.issues) await err.line(issueLine(entry.line, issue));
        continue;
      }
      let outcome: string;
      try {
        outcome = engine.ingest(entry.block);
      } catch (e) {
        problems++;
        if (e instanceof BlockOrderError) await err.line(issueLine(entry.line, e.issue));
        else if (e instanceof InvalidBlockSampleError)
          for (const issue of e.issues) await err.line(issueLine(entry.line, issue));
        else throw e;
        continue;
      }
      if (outcome === "duplicate") {
        await err.line(duplicateLine(entry.line, entry.block.height));
        continue;
      }
      const snap = engine.snapshot()!;
      if (snap.estimate) await out.line(estimateLine(snap.ledger.blockHeight, snap.estimate));
      else {
        problems++;
        await err.line(`line ${entry.line}: ${snap.failure?.message ?? "no estimate"}`);
      }
    }
  } catch (e) {
    await out.flush();
    if (e instanceof BaseError) throw e;
    throw new BaseError(`cannot read ${values.input}`, { details: (e as Error).message, cause: e });
  }
  await out.flush();
  return problems > 0 ? 2 : 0;
}
