import { PassThrough } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { createLogLimiter } from "../../src/cli/createLogLimiter.js";
import { logAptosRestEvent } from "../../src/cli/logAptosRestEvent.js";
import { logWaitCut } from "../../src/cli/logInvalidLine.js";
import { logRedisEvent } from "../../src/cli/logRedisEvent.js";
import { RedisFeedError } from "../../src/redis.js";

/** A pino logger writing JSON lines into an array. */
function capture() {
  const lines: Record<string, unknown>[] = [];
  const out = new PassThrough();
  out.on("data", (chunk: Buffer) => {
    for (const l of chunk.toString().split("\n")) if (l) lines.push(JSON.parse(l));
  });
  return { log: pino({ level: "debug" }, out), lines };
}

describe("logRedisEvent", () => {
  it("logs the chain-reset events at warn with their own text, and tells the listener first", async () => {
    const { log, lines } = capture();
    const seen: string[] = [];
    const onEvent = logRedisEvent(log, (e) => seen.push(e.type));
    onEvent({ type: "stream_ahead", stream: "s", height: 100n, top: "520-0" });
    onEvent({ type: "stream_rewound", stream: "s", from: "520-0", to: "15-0" });
    onEvent({ type: "dropped", count: 2, from: 1n, to: 2n });
    onEvent({
      type: "stream_lost",
      stream: "s",
      top: "150-0",
      from: 151n,
      to: 230n,
      rewriteFrom: 151n,
    });
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(["stream_ahead", "stream_rewound", "dropped", "stream_lost"]);
    expect(lines.map((l) => [l.level, l.event, l.msg])).toEqual([
      [
        40,
        "stream_ahead",
        "stream s ends at entry 520-0, above height 100, which it does not hold: Redis refuses the block. A publisher behind the stream (an older file or history, a node lagging by more than the stream keeps) needs nothing done: the stream is fine; if something else wrote 520-0, delete that entry (XDEL) and set the stream's last id back (XSETID); delete the stream key only if you know the chain itself was reset (its heights started again lower), after stopping every publisher: on a healthy stream that throws away the blocks the replicas read",
      ],
      [
        40,
        "stream_rewound",
        "stream s now ends at entry 15-0, below entry 520-0 read before (deleted and written again?): reading it again from its newest entries",
      ],
      [
        40,
        "dropped",
        "Redis did not take the blocks as fast as they came (away, or slower than the source): dropped the 2 oldest waiting blocks (heights 1..2)",
      ],
      [
        40,
        "stream_lost",
        "stream s ends at entry 150-0, below height 230 that Redis had acknowledged to this publisher: Redis lost heights 151..230 (it restarted from an older snapshot, or without persistence); this publisher kept them and writes them again before any newer block. Run Redis with AOF (appendonly yes, appendfsync everysec) so that a restart loses at most about 1 s of writes",
      ],
    ]);
    expect(lines[0]!.height).toBe("100");
  });

  it("logs a warm start at info, or at warn when the stream held fewer blocks than wanted", async () => {
    const { log, lines } = capture();
    const onEvent = logRedisEvent(log);
    onEvent({ type: "warm_start", stream: "s", blocks: 121, wanted: 121, from: 1n, to: 121n });
    onEvent({ type: "warm_start", stream: "s", blocks: 99, wanted: 121, from: 1n, to: 99n });
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => [l.level, l.blocks, l.wanted])).toEqual([
      [30, 121, 121],
      [40, 99, 121],
    ]);
    expect(lines[1]!.msg).toContain("only 99 of the 121 blocks wanted");
  });

  it("logs connected at info the first time and the first time after an outage, at debug otherwise; the listener hears each one", async () => {
    const { log, lines } = capture();
    const seen: string[] = [];
    const onEvent = logRedisEvent(log, (e) => seen.push(e.type));
    const url = "redis://127.0.0.1:6379/0";
    // Redis refusing every write (OOM): the sink connects again after each failed XADD.
    const error = new RedisFeedError(url, "command", { details: "OOM command not allowed" });
    const connected = () => onEvent({ type: "connected", url, stream: "s" });
    const retrying = (attempt: number) =>
      onEvent({ type: "retrying", url, attempt, delayMs: 100, error });
    connected(); // the first connection: info
    retrying(1);
    connected(); // after one failed call: debug
    for (let attempt = 1; attempt <= 3; attempt++) {
      retrying(attempt);
      connected();
    }
    onEvent({ type: "unreachable", url, failures: 3, error });
    connected(); // the first after the outage: info
    for (let attempt = 4; attempt <= 20; attempt++) {
      retrying(attempt);
      connected();
    }
    onEvent({ type: "recovered", url, failures: 20, downMs: 49_000 });
    await new Promise((r) => setImmediate(r));
    const levels = lines.filter((l) => l.event === "connected").map((l) => l.level);
    expect(levels).toEqual([30, 20, 20, 20, 20, 30, ...Array(17).fill(20)]);
    expect(lines.filter((l) => l.level === 30).map((l) => l.event)).toEqual([
      "connected",
      "connected",
      "recovered",
    ]);
    // The metrics' listener still hears every one (its state machine is unchanged).
    expect(seen.filter((t) => t === "connected")).toHaveLength(23);
  });

  it("a replica's resumed that comes with a quiet reconnection is at debug too; a later one at info", async () => {
    const { log, lines } = capture();
    const onEvent = logRedisEvent(log);
    const url = "redis://127.0.0.1:6379/0";
    const error = new RedisFeedError(url, "command", { details: "LOADING Redis is loading" });
    const reconnect = () => {
      onEvent({ type: "connected", url, stream: "s" });
      onEvent({ type: "resumed", stream: "s", afterId: "101-0" }); // same turn, as the source does
    };
    reconnect(); // the first: info
    await Promise.resolve();
    for (let attempt = 1; attempt <= 8; attempt++) {
      onEvent({ type: "retrying", url, attempt, delayMs: 100, error });
      reconnect(); // every read failing: 8 "reading again" lines at info before, now debug
      await Promise.resolve();
    }
    // The stream fell below what was read: found on an idle read, in a later turn: news.
    await new Promise((r) => setImmediate(r));
    onEvent({ type: "resumed", stream: "s", afterId: "99-0" });
    await new Promise((r) => setImmediate(r));
    expect(lines.filter((l) => l.event === "resumed").map((l) => l.level)).toEqual([
      30,
      ...Array(8).fill(20),
      30,
    ]);
  });

  it("rate-limits each event type of a source, whatever its text: 1,000 bad entries cost 11 lines", async () => {
    const { log, lines } = capture();
    const limited = createLogLimiter(log, { perWindow: 10, windowMs: 60_000 });
    const onRedis = logRedisEvent(limited);
    const issues = [{ path: "height", message: "required" }];
    for (let i = 0; i < 1000; i++) onRedis({ type: "rejected", id: `${i}-0`, issues });
    const onNode = logAptosRestEvent(limited);
    for (let e = 1n; e <= 50n; e++)
      onNode({ type: "min_gas_unit_price", epoch: e, height: e, value: 100n, previous: 100n });
    limited.stop();
    await new Promise((r) => setImmediate(r));
    const rejected = lines.filter((l) => l.event === "rejected");
    expect(rejected).toHaveLength(10);
    expect(rejected[9]!.msg).toContain("9-0");
    expect(lines.filter((l) => l.event === "min_gas_unit_price")).toHaveLength(10);
    expect(lines.filter((l) => l.suppressed !== undefined).map((l) => [l.level, l.msg])).toEqual([
      [40, "redis event rejected: 990 more not logged in the last 60 s"],
      [30, "source event min_gas_unit_price: 40 more not logged in the last 60 s"],
    ]);
  });
});

describe("logWaitCut", () => {
  it("says what is coming: the line is written when the cut wait starts", async () => {
    const { log, lines } = capture();
    logWaitCut(log)({ line: 7, height: 12n, gapMs: 7_200_000, waitedMs: 60_000 });
    await new Promise((r) => setImmediate(r));
    expect(lines[0]).toMatchObject({
      level: 40,
      line: 7,
      height: "12",
      askedMs: 7_200_000,
      waitedMs: 60_000,
      msg: "wait cut: line 7's timestamp asked for 2 h after the block before it; it comes 60000 ms after it instead (the longest wait of a paced replay)",
    });
  });
});
