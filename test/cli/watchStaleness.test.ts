// serve says in its own log when it goes stale (the estimate and health answer 503) and when it
// is fresh again, by the handler's rule.
import { describe, expect, it } from "vitest";
import { watchStaleness } from "../../src/cli/watchStaleness.js";
import { noteArrival } from "../../src/core/blockArrival.js";
import { aip34, createEngine, parseBlockSample } from "../../src/index.js";
import { idleBlock } from "../helpers/blocks.js";
import { until } from "../helpers/until.js";

/** `input` parsed, marked as having arrived at `ms` elsewhere (as a Redis replica's blocks are). */
function arrivedAt(input: unknown, ms: number) {
  const block = parseBlockSample(input);
  noteArrival(block, ms);
  return block;
}

function logger() {
  const lines: { level: string; msg: string }[] = [];
  return {
    lines,
    warn: (_: object, msg: string) => lines.push({ level: "warn", msg }),
    info: (_: object, msg: string) => lines.push({ level: "info", msg }),
  };
}

/**
 * An engine on a clock of its own (`clock.ms`), watched with a threshold of 30 s; `before` gets
 * the engine ahead of the watch (its blocks are not seen by it).
 */
function watched(before?: (engine: ReturnType<typeof createEngine>) => void) {
  const clock = { ms: 1_000_000 };
  const now = () => clock.ms;
  const engine = createEngine({ strategy: aip34(), now, config: { skipLatestBlock: false } });
  before?.(engine);
  const log = logger();
  const stop = watchStaleness(engine, log, 30_000, now, 10);
  return { clock, engine, log, stop };
}

describe("watchStaleness", () => {
  it("warns once when the newest block gets older than the threshold, and tells the recovery at once", async () => {
    const { clock, engine, log, stop } = watched();
    try {
      engine.ingest(idleBlock(1));
      clock.ms += 29_000;
      await new Promise((r) => setTimeout(r, 50));
      expect(log.lines).toEqual([]);
      clock.ms += 2_000;
      await until(() => log.lines.length === 1, 2_000, "the stale warning");
      await new Promise((r) => setTimeout(r, 50)); // told once, not every check
      expect(log.lines).toEqual([
        {
          level: "warn",
          msg: "stale: the newest block (height 1) arrived 31000 ms ago, more than --max-staleness-ms 30000: the estimate and the health check answer 503 until a block arrives",
        },
      ]);
      engine.ingest(idleBlock(2)); // arrives now: fresh, told with the block
      expect(log.lines.at(-1)).toEqual({
        level: "info",
        msg: "fresh again: block 2 arrived; the estimate is served",
      });
    } finally {
      stop();
    }
  });

  it("says so when blocks keep arriving stamped too old (a source's clock behind this one's)", async () => {
    // Block 1 is seen before the watch: not a block seen since.
    const { clock, engine, log, stop } = watched((e) => e.ingest(idleBlock(1)));
    try {
      clock.ms += 31_000;
      await until(() => log.lines.length === 1, 2_000, "the stale warning");
      expect(log.lines[0]!.msg).not.toContain("reached this server");
      // A replica's blocks carry their publisher's arrival time: 45 s behind this clock.
      engine.ingest(arrivedAt(idleBlock(2), clock.ms - 45_000));
      await until(() => log.lines.length === 2, 2_000, "the skew warning");
      expect(log.lines[1]).toEqual({
        level: "warn",
        msg: "stale: the newest block (height 2) arrived 45000 ms ago, more than --max-staleness-ms 30000: the estimate and the health check answer 503 until a block arrives. Yet blocks still reach this server (the last 0 ms ago), stamped that old by their source (received_at_ms): a backlog being read (a replica catching up), a source whose clock is behind this one's, or one that sends old blocks",
      });
      engine.ingest(arrivedAt(idleBlock(3), clock.ms - 45_000));
      await new Promise((r) => setTimeout(r, 50)); // said once per stale spell
      expect(log.lines).toHaveLength(2);
    } finally {
      stop();
    }
  });

  it("does not take blocks seen before it went stale (a replica's warm start) for blocks still arriving", async () => {
    // A replica warm-started from a stream whose publisher had stopped: old blocks, all seen at
    // once, then nothing. The warning blamed the publisher's clock.
    const { clock, engine, log, stop } = watched();
    try {
      engine.ingest(arrivedAt(idleBlock(1), clock.ms - 20_000));
      clock.ms += 11_000;
      await until(() => log.lines.length === 1, 2_000, "the stale warning");
      expect(log.lines[0]!.msg).toBe(
        "stale: the newest block (height 1) arrived 31000 ms ago, more than --max-staleness-ms 30000: the estimate and the health check answer 503 until a block arrives",
      );
    } finally {
      stop();
    }
  });

  it("is silent with no threshold, and when the source has completed (a finished replay is not stale)", async () => {
    let clock = 0;
    const now = () => clock;
    const engine = createEngine({ strategy: aip34(), now });
    const log = logger();
    const off = watchStaleness(engine, log, false, now, 10);
    engine.connect({
      subscribe(o: { next(b: unknown): void; complete(): void }) {
        o.next(idleBlock(1));
        o.complete();
        return { unsubscribe() {} };
      },
    } as never);
    const stop = watchStaleness(engine, log, 1_000, now, 10);
    clock += 60_000;
    await new Promise((r) => setTimeout(r, 60));
    stop();
    off();
    expect(log.lines).toEqual([]);
  });
});
