import { setTimeout as sleep } from "node:timers/promises";
import { pino } from "pino";
import { Subject, takeUntil, tap } from "rxjs";
import { BaseError, formatIssues } from "../core/errors.js";
import { U64_MAX } from "../core/u64.js";
import {
  type RedisPublishOutcome,
  type RedisSinkEvent,
  redisStreamSink,
} from "../sinks/redisStreamSink.js";
import { parseRedisUrl } from "../sources/redisStream.js";
import { cliMetrics } from "./cliMetrics.js";
import { createLogLimiter } from "./createLogLimiter.js";
import type { CliIo } from "./io.js";
import { logRedisEvent } from "./logRedisEvent.js";
import { PUBLISH_USAGE, parsePublishFlags } from "./publishFlags.js";
import { publishSource } from "./publishSource.js";
import { showSource } from "./sourceSpec.js";
import { STOPPED, waitForStreamTop } from "./waitForStreamTop.js";

/**
 * Blocks of a file read without `--speed` that may wait in the sink at once: ten of its
 * pipelines of 100 `XADD`s, far below the 100,000 past which it drops the oldest.
 */
const FILE_AHEAD = 1_000;

/** A running publisher, for tests and embedding. */
export interface PublishHandle {
  /** Blocks by outcome so far. */
  counts(): Readonly<Record<RedisPublishOutcome, number>>;
  /** Where the metrics are scraped (with --metrics-port), until `stop` resolves. */
  readonly metricsUrl?: string;
  /** Resolves with the exit code when the source ended and every block was written, or after `stop`. */
  readonly done: Promise<number>;
  /**
   * Stop reading the source, write what waits (at most `graceMs`), then resolve `done`; the
   * metrics port, if any, closes too.
   */
  stop(graceMs?: number): Promise<number>;
}

/** Parse the flags, find where the stream stands, and start publishing. */
export async function startPublish(
  argv: string[],
  io: CliIo,
  signal: AbortSignal = new AbortController().signal,
): Promise<PublishHandle> {
  const { values, source, to, spec, stream, retain, keepBlocks, level, sourceFlags } =
    await parsePublishFlags(argv);
  const makeMetrics = await cliMetrics(values);
  const log = pino({ level, base: { name: "gasdigest-publish" } }, io.stdout);
  // Repeated lines (bad source lines, a node changing epoch every block) are rate-limited.
  const limited = createLogLimiter(log);
  const display = parseRedisUrl(to).display;
  // With --metrics-port: the source's and the sink's states, and every block's outcome.
  const metrics = makeMetrics?.({ logger: limited });
  let newestSourceBlockMs: number | undefined;
  const onSourceEvent = metrics?.metrics.source(spec.kind, {
    newestBlockMs: () => newestSourceBlockMs,
  });
  const onRedisEvent = logRedisEvent(limited, metrics?.metrics.sink("redis"));
  const metricsUrl = await metrics?.listen();
  if (metricsUrl !== undefined) log.info({ metrics: metricsUrl }, `metrics at ${metricsUrl}`);

  const stop$ = new Subject<void>();
  let found: Awaited<ReturnType<typeof waitForStreamTop>>;
  try {
    found = await waitForStreamTop(to, stream, onRedisEvent, signal);
  } catch (e) {
    await metrics?.close();
    throw e;
  }
  // Stopped (SIGINT, SIGTERM) before Redis ever answered: nothing was taken from the source.
  if (found === STOPPED) {
    limited.stop();
    log.info({ counts: {} }, "gasdigest publish stopped before Redis answered");
    await metrics?.close();
    return {
      counts: noCounts,
      metricsUrl,
      done: Promise.resolve(0),
      stop: async () => 0,
    };
  }
  const top = found;
  if (top && !top.ok)
    log.error(
      { id: top.id, problems: formatIssues(top.issues, "; ") },
      `the newest entry ${top.id} of stream ${stream} is not a gasdigest block: Redis refuses every XADD at or below its id`,
    );
  // An entry at the largest height (written by something else: no chain gets there) leaves no
  // height to publish: say so by the stream's name, not as a bad option of the source.
  if (top?.ok && top.height === U64_MAX) {
    limited.stop();
    await metrics?.close();
    throw new BaseError(
      `the newest entry ${top.id} of stream ${stream} is at height ${U64_MAX}, the largest there is: no block can follow it`,
      {
        details: `if a publisher did not write it, remove it (XDEL ${stream} ${top.id}) and set the stream's last id back to its newest block (XSETID ${stream} <that id>)`,
      },
    );
  }
  const startHeight = top?.ok ? top.height + 1n : undefined;
  // A file read as fast as possible waits while FILE_AHEAD blocks wait in the sink, rather than
  // have the sink drop the oldest of them past its maxPending (see pulledFile): `wake` is the
  // wait's resolve, called when a result or a drop makes room.
  let wake: (() => void) | undefined;
  const wakeIfRoom = () => {
    if (wake === undefined || waiting() >= FILE_AHEAD) return;
    const w = wake;
    wake = undefined;
    w();
  };
  const room = async (signal: AbortSignal) => {
    while (waiting() >= FILE_AHEAD && !signal.aborted) {
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener("abort", done);
          resolve();
        };
        wake = done;
        signal.addEventListener("abort", done);
      });
    }
  };
  let source$: ReturnType<typeof publishSource>;
  try {
    source$ = publishSource(spec, limited, {
      ...sourceFlags,
      startHeight,
      after: top?.ok ? top.block : undefined,
      onEvent: onSourceEvent,
      room,
    });
  } catch (e) {
    // A simulated chain that cannot go on after the stream's newest block.
    limited.stop();
    await metrics?.close();
    throw e;
  }
  log.info(
    {
      to: display,
      stream,
      retain,
      startHeight: startHeight?.toString(),
      source: showSource(source),
    },
    startHeight === undefined
      ? `publishing to ${display}, stream ${stream}`
      : `publishing to ${display}, stream ${stream}, from height ${startHeight}`,
  );

  const counts = noCounts();
  let resolveDone: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => {
    resolveDone = resolve;
  });
  // Blocks handed to the sink, and dropped by it while Redis stayed away (the rest got a result
  // or are still waiting: what a stop that times out drops).
  let given = 0;
  let overflowed = 0;
  const waiting = () => given - overflowed - Object.values(counts).reduce((sum, n) => sum + n, 0);
  // Blocks dropped by a stop whose grace ran out (they never reached the sink's outcomes).
  let droppedAtStop = 0;
  const finish = (code: number) => {
    limited.stop();
    // The totals name the blocks lost too (while Redis stayed away, or at a stop that timed
    // out), as the metrics' `dropped` outcome does: without them, a stop after an outage read
    // as if every block had been written.
    log.info(
      { counts: { ...counts, dropped: overflowed + droppedAtStop } },
      "gasdigest publish stopped",
    );
    resolveDone(code);
  };
  const subscription = source$
    .pipe(
      takeUntil(stop$),
      tap(() => {
        newestSourceBlockMs = Date.now();
      }),
      tap(() => {
        given++;
      }),
      redisStreamSink(to, {
        stream,
        retain,
        keepBlocks,
        onEvent: (e: RedisSinkEvent) => {
          if (e.type === "dropped") {
            overflowed += e.count;
            wakeIfRoom();
          }
          onRedisEvent(e);
        },
      }),
    )
    .subscribe({
      next(r) {
        counts[r.outcome]++;
        wakeIfRoom();
        metrics?.metrics.published(r);
        if (counts.published === 1 && r.outcome === "published")
          log.info({ height: r.height.toString() }, "first block published");
        log.debug({ height: r.height.toString(), outcome: r.outcome }, "block");
      },
      error(e) {
        log.error({ err: (e as Error)?.message ?? String(e) }, "the source failed");
        finish(1);
      },
      complete() {
        finish(0);
      },
    });

  return {
    counts: () => ({ ...counts }),
    metricsUrl,
    done,
    async stop(graceMs = 5_000) {
      stop$.next();
      const grace = new AbortController();
      const timer = sleep(graceMs, "timeout" as const, { signal: grace.signal }).catch(
        () => "done",
      );
      const outcome = await Promise.race([done, timer]);
      grace.abort(); // a pending timer would keep the process alive for the whole grace time
      if (outcome === "timeout") {
        const dropped = waiting();
        droppedAtStop = dropped;
        log.warn(
          { graceMs, dropped },
          `Redis did not take the waiting blocks in time: ${dropped} dropped (a publisher started again resumes after the stream's newest entry)`,
        );
        subscription.unsubscribe();
        finish(0);
      }
      await metrics?.close();
      return done;
    },
  };
}

/** Every publish outcome, counted 0. */
function noCounts(): Record<RedisPublishOutcome, number> {
  return { published: 0, already_published: 0, refused: 0, skipped: 0 };
}

/** `gasdigest publish`: runs until SIGINT or SIGTERM, or until the source ends. */
export async function publish(argv: string[], io: CliIo): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout.write(`${PUBLISH_USAGE}\n`);
    return 0;
  }
  // Signals are handled from the start: a publisher still waiting for Redis stops too (as PID 1
  // in a container, a signal without a handler is ignored).
  const early = new AbortController();
  const abort = () => early.abort();
  process.once("SIGINT", abort);
  process.once("SIGTERM", abort);
  let handle: PublishHandle;
  try {
    handle = await startPublish(argv, io, early.signal);
  } finally {
    process.off("SIGINT", abort);
    process.off("SIGTERM", abort);
  }
  const stop = () => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    void handle.stop();
  };
  if (early.signal.aborted) stop();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const code = await handle.done;
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);
  await handle.stop(0); // closes the metrics port, if any
  return code;
}

/** The `publish` command for the CLI's command table. */
export const publishCommand = {
  run: publish,
  usage: PUBLISH_USAGE,
};
