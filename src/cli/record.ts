import { once } from "node:events";
import { finished } from "node:stream/promises";
import { parseArgs } from "node:util";
import { MultiBar } from "cli-progress";
import { concatMap, isObservable, lastValueFrom, type Observable, take } from "rxjs";
import { type BlockSample, serializeBlockSample } from "../core/blockSample.js";
import { escapeControls } from "../core/describeValue.js";
import { BaseError, formatIssues, ValidationError } from "../core/errors.js";
import { U64_MAX } from "../core/u64.js";
import { aptosRest, describeAptosRestEvent } from "../sources/aptosRest.js";
import { describeRedisEvent, redisStream } from "../sources/redisStream.js";
import { continuedChain } from "../sources/simulator/continuedChain.js";
import { simulateBlocks } from "../sources/simulator.js";
import { APTOS_FLAGS, APTOS_FLAGS_USAGE, parseAptosFlags } from "./aptosFlags.js";
import { flagError, SOURCE_FLAG_NAMES, withFlagNames } from "./flagErrors.js";
import type { CliIo } from "./io.js";
import { readerGone, UsageError } from "./io.js";
import { newestStart } from "./newestStart.js";
import { requiredFileFlag } from "./outputFile.js";
import {
  cutToLastLine,
  openRecordFile,
  otherWriter,
  readLastBlock,
  sizeOf,
  watchOtherWriters,
} from "./recordFile.js";
import { intFlag, parseSourceSpec, showSource } from "./sourceSpec.js";

export const RECORD_USAGE = `Usage: gasdigest record --source aptos:URL|redis://HOST:PORT|sim --blocks N --out FILE.ndjson [--append] [--force] [--seed S]

Records N blocks to FILE as NDJSON (one block sample per line, written as they come).
  --source aptos:URL  a node's REST API, e.g. aptos:https://fullnode.mainnet.aptoslabs.com/v1:
                      the last N blocks the node has, then new ones as they are committed
  --source redis://HOST:PORT[/DB]  a stream written by gasdigest publish (--stream KEY,
                      default gasdigest:blocks): its newest N blocks, then new ones as they come
  --source sim        the simulator, as fast as possible (--seed S, default 1)
  --append            continue FILE after its last height (FILE is created when missing)
  --force             overwrite an existing FILE (otherwise an existing FILE is an error;
                      a device or FIFO such as /dev/stdout is written in place)

${APTOS_FLAGS_USAGE}

Progress goes to stderr: a bar on a terminal, a line every 10 % otherwise.
Exit code: 0 done, 1 unusable arguments, source or file.`;

/** Progress on stderr: a cli-progress bar on a terminal, a plain line every 10 % otherwise. */
function createProgress(io: CliIo, total: number) {
  if (io.isTTY) {
    const bars = new MultiBar({
      stream: io.stderr as NodeJS.WriteStream,
      noTTYOutput: true,
      gracefulExit: false,
      hideCursor: false,
      format:
        "recording [{bar}] {percentage}% | {value}/{total} blocks | height {height} | ETA {eta}s",
    });
    const bar = bars.create(total, 0, { height: "-" });
    return {
      log: (line: string) => bars.log(`${line}\n`),
      update: (n: number, height: bigint) => bar.update(n, { height: String(height) }),
      stop: () => bars.stop(),
    };
  }
  let nextStep = 1;
  return {
    log: (line: string) => io.stderr.write(`${line}\n`),
    update(n: number, height: bigint) {
      // One line when a block crosses one or more 10 % steps (with under 10 blocks, each
      // block crosses several).
      const step = nextStep;
      while (nextStep <= 10 && n >= Math.ceil((total * nextStep) / 10)) nextStep++;
      if (nextStep === step) return;
      io.stderr.write(
        `recorded ${n}/${total} blocks (${Math.floor((n * 100) / total)}%), height ${height}\n`,
      );
    },
    stop() {},
  };
}

/** `gasdigest record`: returns the exit code. */
export async function record(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      source: { type: "string" },
      blocks: { type: "string", short: "n" },
      out: { type: "string", short: "o" },
      append: { type: "boolean" },
      force: { type: "boolean" },
      seed: { type: "string" },
      stream: { type: "string" },
      help: { type: "boolean", short: "h" },
      ...APTOS_FLAGS,
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    io.stdout.write(`${RECORD_USAGE}\n`);
    return 0;
  }
  if (!values.source)
    throw new UsageError(
      "--source aptos:URL, --source redis://HOST:PORT or --source sim is required",
    );
  if (values.source !== "sim" && !/^(aptos:|rediss?:\/\/)/.test(values.source))
    throw new UsageError(
      `--source must be aptos:URL, redis://HOST:PORT or sim (got "${showSource(values.source)}")`,
    );
  const spec = parseSourceSpec(values.source);
  if (values.stream !== undefined && spec.kind !== "redis")
    throw new UsageError("--stream applies to --source redis://HOST:PORT only");
  const total = intFlag("blocks", values.blocks, 1);
  if (total === undefined) throw new UsageError("--blocks N is required");
  const out = requiredFileFlag("out", values.out, "FILE.ndjson");
  if (values.append && values.force)
    throw new UsageError("--append and --force exclude each other");
  if (values.seed !== undefined && spec.kind !== "sim")
    throw new UsageError("--seed applies to --source sim only");
  const seed = intFlag("seed", values.seed, 0) ?? 1;
  const limits = parseAptosFlags(values, spec);
  const last = values.append ? await readLastBlock(out) : undefined;
  if (last && last.block.height === U64_MAX)
    throw new BaseError(`cannot append to ${out}: its last block is at height ${U64_MAX}`, {
      details: "the largest height there is: no block can follow it",
    });
  // A stream's newest N blocks are read forward from the height N below its newest entry, page
  // by page: the warm start holds them all before the first is written, and stops at its 5
  // million transactions (of 100,000 blocks of 250 transactions it read 29,064, then waited for
  // new blocks that never came).
  const fromTop =
    spec.kind === "redis" && !last ? await newestStart(spec.url, values.stream, total) : undefined;
  const progress = createProgress(io, total);

  // What the source refuses of the flags names them (--stream, not the option `stream`).
  const flagNames = {
    ...SOURCE_FLAG_NAMES,
    backfillBlocks: "blocks",
    warmStartBlocks: "blocks",
    blocks: "blocks",
  };
  let blocks$: Observable<BlockSample> | Iterable<BlockSample>;
  try {
    blocks$ = withFlagNames(flagNames, () => recordSource());
  } catch (e) {
    progress.stop();
    throw e;
  }
  // The simulator is pulled one block at a time, as the file takes them (an iterable, not the
  // timer-paced `simulator()`): that source emits 25 blocks a tick whatever the writer does, and
  // every block the file had not taken yet waited in memory (100,000 blocks peaked at 841 MB;
  // 1,000,000 ran out of memory).
  function recordSource(): Observable<BlockSample> | Iterable<BlockSample> {
    if (spec.kind === "redis")
      return redisStream(spec.url, {
        stream: values.stream,
        warmStartBlocks: total,
        startHeight: last ? last.block.height + 1n : fromTop,
        onEvent: (e) => progress.log(describeRedisEvent(e)),
      });
    if (spec.kind === "aptos")
      return aptosRest(spec.url, {
        ...limits,
        backfillBlocks: total,
        startHeight: last ? last.block.height + 1n : undefined,
        onEvent: (e) => {
          if (e.type !== "min_gas_unit_price") progress.log(describeAptosRestEvent(e));
        },
      });
    if (!last) return simulateBlocks({ seed, intervalMs: 0, blocks: total });
    try {
      return simulateBlocks({ seed, intervalMs: 0, blocks: total, ...continuedChain(last.block) });
    } catch (e) {
      // The start options come from FILE's last block, not from a flag: say so, rather than
      // `invalid configuration: startEpoch: ...` for an option no flag sets.
      if (!(e instanceof ValidationError) || flagError(e, flagNames) !== e) throw e;
      throw new BaseError(
        `cannot append to ${out}: the simulator cannot go on after its last block (height ${last.block.height})`,
        { details: formatIssues(e.issues, "; "), cause: e },
      );
    }
  }

  let stream: Awaited<ReturnType<typeof openRecordFile>>;
  try {
    stream = await openRecordFile(out, {
      append: values.append === true,
      force: values.force === true,
    });
  } catch (e) {
    progress.stop();
    throw e;
  }
  // What the file held before this run: a write error that let nothing in leaves it as it was.
  const before = sizeOf(stream);
  let writeError: Error | undefined;
  stream.on("error", (e) => {
    writeError ??= e;
  });
  const watch = watchOtherWriters(stream, before);
  // Lines added between reading the last one and opening the file are another writer's: going
  // on from the height read would write heights it wrote too.
  // (Smaller is a rotation: nobody's lines are lost by going on.)
  if (last && before > last.size) {
    progress.stop();
    stream.destroy();
    throw otherWriter(out, before - last.size, last.block.height);
  }
  if (last && !last.endsWithNewline) stream.write("\n");
  let written = 0;
  let first: bigint | undefined;
  let newest: bigint | undefined;
  const write = async (block: BlockSample) => {
    const chain = last?.block.chainId;
    if (
      written === 0 &&
      chain !== undefined &&
      block.chainId !== undefined &&
      chain !== block.chainId
    )
      throw new BaseError(`cannot append to ${out}: it holds blocks of chain ${chain}`, {
        details: `the source serves chain ${block.chainId}`,
      });
    // A history file holds one chain, heights increasing: a source that goes back (a
    // Redis stream deleted and written again after a chain reset) ends the recording.
    const after = newest ?? last?.block.height;
    if (after !== undefined && block.height <= after)
      throw new BaseError(
        `the source went back from height ${after} to ${block.height} (a chain reset?); stopped`,
        { details: `${out} holds the blocks up to height ${after}` },
      );
    if (writeError) throw writeError;
    const other = watch.found();
    if (other !== undefined) throw otherWriter(out, other, newest ?? after);
    if (!stream.write(`${serializeBlockSample(block)}\n`, watch.check)) await once(stream, "drain");
    written++;
    first ??= block.height;
    newest = block.height;
    progress.update(written, block.height);
  };
  try {
    if (isObservable(blocks$))
      await lastValueFrom(blocks$.pipe(take(total), concatMap(write)), { defaultValue: undefined });
    else for (const block of blocks$) await write(block);
  } catch (e) {
    if (writeError === undefined || e !== writeError) throw e;
  } finally {
    progress.stop();
    stream.end();
    await finished(stream).catch(() => undefined);
  }
  // Its reader went away (`--out /dev/stdout | head -1`): stop as a Unix tool does, whether
  // a write met it while blocks came or only once the last ones, queued, were written.
  if (writeError) throw readerGone(writeError) ?? (await writeFailed(out, writeError, before));
  // What another writer added after this run's last write (looked at as the stream finished).
  const late = watch.found();
  if (late !== undefined) throw otherWriter(out, late, newest ?? last?.block.height);
  const range = first === undefined ? "" : ` (heights ${first}..${newest})`;
  io.stderr.write(`wrote ${written} blocks${range} to ${escapeControls(out)}\n`);
  return 0;
}

/**
 * The error of a write that failed (a full disk, a file size limit): the file is cut back to its
 * last whole line first, and the error says which height it ends at, so `--append` continues it.
 */
async function writeFailed(out: string, e: Error, before: number): Promise<BaseError> {
  const kept = await cutToLastLine(out, before);
  const left =
    kept === undefined
      ? ""
      : `; ${out} is cut back to its last whole line, height ${kept}: --append continues it`;
  return new BaseError(`cannot write ${out}`, { details: `${e.message}${left}`, cause: e });
}

/** The `record` command for the CLI's command table. */
export const recordCommand = {
  run: record,
  usage: RECORD_USAGE,
};
