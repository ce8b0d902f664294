import { parseArgs } from "node:util";
import cliProgress from "cli-progress";
import { serializeBlockSample } from "../core/blockSample.js";
import { escapeControls } from "../core/describeValue.js";
import { BaseError } from "../core/errors.js";
import { SCENARIOS, type Scenario, simulateBlocks } from "../sources/simulator.js";
import { withFlagNames } from "./flagErrors.js";
import { type CliIo, LineWriter, OutputClosedError, readerGone, UsageError } from "./io.js";
import { fileFlag, openOutputFile } from "./outputFile.js";
import { progressLines } from "./progressLines.js";
import { intFlag } from "./sourceSpec.js";

export const SIMULATE_USAGE = `Usage: gasdigest simulate --scenario quiet|busy|spike|mixed|congested --blocks N
                          [--seed S]
                          [--block-capacity 250] [--out FILE.ndjson]

Writes N simulated blocks as NDJSON (one block sample per line) to FILE, or to stdout without
--out. Same scenario, seed and N: the same file, byte for byte.
  --scenario   demand mix: quiet, busy, spike (quiet with periodic spikes), mixed, or
               congested (fitted to real congested-chain statistics; default mixed)
  --blocks     how many blocks (required)
  --seed       seed of every random draw, an integer from 0 to 2^53-1 (default 1)
  --block-capacity
               most user transactions per block, 1 to 100000; a block that takes this many is
               full (default 250). Above 250, read the file with a config whose fullBlockTxns
               is N: replay, backtest and stats count any block of fullBlockTxns (250)
               transactions as full (AIP-34's rule (b))
  --out        output file (default stdout)`;

/** The simulator's options this command sets, and their flags. */
const SIMULATE_FLAG_NAMES = {
  scenario: "scenario",
  blocks: "blocks",
  seed: "seed",
  blockCapacity: "block-capacity",
};

const wholeNumber = (flag: string, value: string): number => {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new UsageError(`${flag} must be a whole number from 0 to 2^53-1, got "${value}"`);
  return Number(value);
};

/** `gasdigest simulate`: returns the exit code. */
export async function simulate(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      scenario: { type: "string", default: "mixed" },
      blocks: { type: "string", short: "n" },
      seed: { type: "string", default: "1" },
      "block-capacity": { type: "string", default: "250" },
      out: { type: "string", short: "o" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    io.stdout.write(`${SIMULATE_USAGE}\n`);
    return 0;
  }
  if (values.blocks === undefined) throw new UsageError("--blocks N is required");
  const blocks = wholeNumber("--blocks", values.blocks);
  const seed = wholeNumber("--seed", values.seed);
  const blockCapacity = intFlag("block-capacity", values["block-capacity"], 1, 100_000)!;
  if (!SCENARIOS.includes(values.scenario as Scenario))
    throw new UsageError(
      `--scenario must be one of ${SCENARIOS.join(", ")}, got "${values.scenario}"`,
    );
  // Validates every option before anything is written; what it refuses (more blocks than fit
  // in u64) names the flag.
  const chain = withFlagNames(SIMULATE_FLAG_NAMES, () =>
    simulateBlocks({
      scenario: values.scenario as Scenario,
      blocks,
      seed,
      blockCapacity,
      intervalMs: 0,
    }),
  );

  const outPath = fileFlag("out", values.out);
  const output = outPath === undefined ? undefined : await openOutputFile(outPath);
  const file = output?.stream;
  const out = new LineWriter(file ?? io.stdout, 1 << 20);
  const bar =
    io.isTTY && file
      ? new cliProgress.SingleBar(
          {
            stream: io.stderr,
            format: "simulate [{bar}] {value}/{total} blocks | {eta_formatted}",
          },
          cliProgress.Presets.shades_classic,
        )
      : undefined;
  bar?.start(blocks, 0);
  // Off a terminal (a log, CI), a plain line every 10 s, as backtest writes: a run of millions
  // of blocks is not silent. None with a terminal on stderr: the bar, or the blocks themselves
  // on the screen.
  let written = 0;
  const progress = io.isTTY
    ? undefined
    : progressLines(
        io,
        (ms) =>
          `simulate: ${written.toLocaleString("en-US")} of ${blocks.toLocaleString("en-US")} blocks written (${Math.floor((written * 100) / blocks)}%), ${Math.round(ms / 1000)} s`,
      );
  try {
    for (const block of chain) {
      await out.line(serializeBlockSample(block));
      if (++written % 1000 === 0) {
        bar?.update(written);
        progress?.();
      }
    }
    await out.flush();
    await output?.commit();
  } catch (e) {
    await output?.abort();
    if (e instanceof OutputClosedError) throw e;
    // The reader of `--out /dev/stdout` (or of a FIFO) went away before the last write ended.
    const closed = readerGone(e);
    if (closed) throw closed;
    throw new BaseError(values.out ? `cannot write ${values.out}` : "cannot write the output", {
      details: e instanceof BaseError ? (e.details ?? e.shortMessage) : (e as Error).message,
      cause: e,
    });
  } finally {
    bar?.update(written);
    bar?.stop();
  }
  if (file)
    io.stderr.write(
      `wrote ${written} blocks (scenario ${values.scenario}, seed ${seed}) to ${escapeControls(values.out!)}\n`,
    );
  return 0;
}

/** The `simulate` command for the CLI's command table. */
export const simulateCommand = {
  run: simulate,
  usage: SIMULATE_USAGE,
};
