import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type PublishHandle, startPublish } from "../../src/cli/publish.js";
import { type ServeHandle, startServe } from "../../src/cli/serve.js";
import { serializeBlockSample } from "../../src/core/blockSample.js";
import { simulateBlocks } from "../../src/sources/simulator.js";
import { runCli } from "../helpers/cli.js";
import { FAST_DRAIN } from "../helpers/fastDrain.js";
import { freePort } from "../helpers/freePort.js";
import {
  redisSkipReason,
  startRedis,
  type TestRedis,
  useSharedRedis,
} from "../helpers/redisServer.js";
import { until } from "../helpers/until.js";
import { respServer } from "../sources/respServer.js";

const skip = redisSkipReason();
const STREAM = "gasdigest:blocks";
const fixture = (name: string) => join(import.meta.dirname, "..", "fixtures", name);
const MIXED = fixture("scenario-mixed-500.ndjson");
const fixtureLines = () => readFileSync(MIXED, "utf8").trim().split("\n");

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

function collector() {
  const chunks: string[] = [];
  const stream = new PassThrough();
  stream.on("data", (d) => chunks.push(String(d)));
  return {
    stream,
    text: () => chunks.join(""),
    lines: () =>
      chunks
        .join("")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

async function serve(argv: string[]) {
  const out = collector();
  const handle: ServeHandle = await startServe(["--port", "0", ...FAST_DRAIN, ...argv], {
    stdout: out.stream,
    stderr: new PassThrough(),
  });
  cleanup.push(() => handle.close());
  return { handle, logs: out };
}

async function publisher(argv: string[]) {
  const out = collector();
  const handle: PublishHandle = await startPublish(argv, {
    stdout: out.stream,
    stderr: new PassThrough(),
  });
  cleanup.push(() => handle.stop(1_000));
  return { handle, logs: out };
}

async function estimate(handle: ServeHandle) {
  const res = await fetch(`${handle.url}/v1/estimate_gas_price`);
  return {
    status: res.status,
    body: await res.json(),
    height: res.headers.get("x-aptos-block-height"),
  };
}

/** The last line `gasdigest replay` prints for a file: height and estimate. */
async function replayLast(path: string) {
  const r = await runCli(["replay", "--input", path]);
  const { height, ...body } = JSON.parse(r.stdout.trim().split("\n").pop()!);
  return { height, body };
}

describe.skipIf(skip)("gasdigest publish, serve and record with a real Redis", () => {
  let redis: TestRedis;
  useSharedRedis((r) => {
    redis = r;
  });

  it("publish writes a file once (again: it resumes after height 500, nothing to write); serve warm-starts on the replayed estimate", async () => {
    const first = await runCli(["publish", "--source", `ndjson:${MIXED}`, "--to", redis.url]);
    expect(first.code).toBe(0);
    const stopped = (r: { stdout: string }) =>
      JSON.parse(r.stdout.trim().split("\n").pop()!) as { msg: string; counts: unknown };
    // By default the stream holds what a calibrated replica warm-starts with (10,000 + 1), and
    // room for the blocks written while it reads them.
    expect(JSON.parse(first.stdout.split("\n")[0]!)).toMatchObject({ retain: 11_001 });
    expect(stopped(first)).toMatchObject({
      msg: "gasdigest publish stopped",
      counts: { published: 500, already_published: 0, refused: 0, skipped: 0 },
    });
    const again = await runCli(["publish", "--source", `ndjson:${MIXED}`, "--to", redis.url]);
    expect(again.stdout).toContain(", from height 501");
    expect(stopped(again).counts).toEqual({
      published: 0,
      already_published: 0,
      refused: 0,
      skipped: 0,
      dropped: 0,
    });
    expect(await redis.client.xlen(STREAM)).toBe(500);
    const [entry] = await redis.client.xrange(STREAM, "1-0", "1-0");
    expect(entry?.[1]).toEqual([
      "block",
      fixtureLines()[0],
      "received_at_ms",
      expect.stringMatching(/^[0-9]{13}$/),
    ]);

    const { handle, logs } = await serve(["--source", redis.url]);
    await until(() => handle.engine.snapshot()?.ledger.blockHeight === 500n);
    const expected = await replayLast(MIXED);
    expect(await estimate(handle)).toEqual({ status: 200, body: expected.body, height: "500" });
    expect(handle.engine.counters().accepted).toBe(121);
    expect(logs.text()).toContain(
      "warm start: 121 blocks (heights 380..500) from stream gasdigest:blocks",
    );

    // --warm-start-transactions sets the warm start's budget (its newest block is always read).
    const small = await serve(["--source", redis.url, "--warm-start-transactions", "1"]);
    await until(() => small.handle.engine.snapshot()?.ledger.blockHeight === 500n);
    expect(small.handle.engine.counters().accepted).toBe(1);
    expect(small.logs.text()).toContain(
      "warm start: only 1 of the 121 blocks wanted (heights 500..500) from stream gasdigest:blocks",
    );
  });

  it("publish restarted on the file it was writing resumes after the stream's top: nothing refused, nothing sent twice", async () => {
    // The first run stopped at height 200 (killed), and the stream trimmed what it wrote.
    const lines = fixtureLines();
    const dir = mkdtempSync(join(tmpdir(), "gasdigest-publish-resume-"));
    const head = join(dir, "head.ndjson");
    writeFileSync(head, `${lines.slice(0, 200).join("\n")}\n`);
    const publishFile = (path: string) =>
      runCli(["publish", "--source", `ndjson:${path}`, "--to", redis.url, "--retain", "50"]);
    const first = await publishFile(head);
    expect(first.code).toBe(0);
    expect((await redis.client.xrange(STREAM, "-", "+", "COUNT", 1))[0]?.[0]).not.toBe("1-0");

    const again = await publishFile(MIXED);
    expect(again.code).toBe(0);
    const logged = again.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged[0]).toMatchObject({
      startHeight: "201",
      msg: expect.stringMatching(/, from height 201$/),
    });
    expect(logged.filter((l) => l.event === "stream_ahead")).toEqual([]);
    expect(logged.at(-1)).toMatchObject({
      msg: "gasdigest publish stopped",
      counts: { published: 300, already_published: 0, refused: 0, skipped: 0 },
    });
    // What the stream keeps (at least --retain entries) is the file's lines, up to its last.
    const held = await redis.client.xrange(STREAM, "-", "+");
    expect(held.length).toBeGreaterThanOrEqual(50);
    expect(held.at(-1)?.[0]).toBe("500-0");
    for (const [id, fields] of held) expect(fields[1]).toBe(lines[Number(id.split("-")[0]) - 1]);
  });

  it("a simulated chain's publisher restarted goes on with its ledger versions, not from twice its start height", async () => {
    const stream = "sim-restart";
    const versions = async () =>
      (await redis.client.xrange(stream, "-", "+")).map(([, fields]) =>
        BigInt(JSON.parse(fields[1]!).last_version),
      );
    const run = async (atLeast: number) => {
      const { handle } = await publisher([
        "--source",
        "sim",
        "--interval-ms",
        "0",
        "--to",
        redis.url,
        "--stream",
        stream,
      ]);
      await until(async () => (await redis.client.xlen(stream)) >= atLeast);
      await handle.stop(1_000);
    };
    await run(200);
    await run((await redis.client.xlen(stream)) + 200);
    const seen = await versions();
    // A block's versions follow the one before it: every last_version above the previous one.
    for (let i = 1; i < seen.length; i++) expect(seen[i]! > seen[i - 1]!, `entry ${i}`).toBe(true);
    // The chain goes on in the top's chain and epoch (a fresh simulation's chain 4 and epoch
    // 1 + height / 1000 would be another chain to the replicas), after its versions.
    const far = "sim-restart-far";
    const block = {
      height: "477445097",
      epoch: "12345",
      chain_id: 1,
      first_version: "900000000000000000",
      last_version: "900000000000000010",
      gas_unit_prices: ["100"],
    };
    await redis.client.xadd(far, "477445097-0", "block", JSON.stringify(block));
    const { handle } = await publisher(["--source", "sim", "--to", redis.url, "--stream", far]);
    await until(async () => (await redis.client.xlen(far)) >= 3);
    await handle.stop(1_000);
    const after = (await redis.client.xrange(far, "-", "+")).map(([, f]) => JSON.parse(f[1]!));
    expect(after.map((b) => [b.height, b.epoch, b.chain_id]).slice(0, 3)).toEqual([
      ["477445097", "12345", 1],
      ["477445098", "12345", 1],
      ["477445099", "12345", 1],
    ]);
    expect(after[1].first_version).toBe("900000000000000011");
    // A top whose versions leave no room in u64 to go on is refused, naming the block: starting
    // again at the simulator's default versions wrote blocks every replica refused.
    const high = "sim-restart-high";
    const top = {
      ...block,
      first_version: "18446744073709551600",
      last_version: "18446744073709551610",
    };
    await redis.client.xadd(high, "477445097-0", "block", JSON.stringify(top));
    const refused = startPublish(["--source", "sim", "--to", redis.url, "--stream", high], {
      stdout: new PassThrough(),
      stderr: new PassThrough(),
    });
    await expect(refused).rejects.toThrow(
      /^--source sim cannot go on after the stream's newest block \(height 477445097\)\n\nDetails: startVersion: must be at most /,
    );
    expect(await redis.client.xlen(high)).toBe(1);
  });

  it("a Redis that refuses connections at start: serve answers 503 and retries, publish waits; both work once it is up", async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const replica = await serve(["--source", url]);
    expect((await estimate(replica.handle)).status).toBe(503);
    const pubLogs = collector();
    const starting = startPublish(["--source", `ndjson:${MIXED}`, "--to", url], {
      stdout: pubLogs.stream,
      stderr: new PassThrough(),
    });
    await until(() => replica.logs.text().includes('"event":"unreachable"'), 15_000, "unreachable");
    await until(
      () => pubLogs.text().includes('"event":"unreachable"'),
      15_000,
      "publish unreachable",
    );
    expect(replica.logs.text()).toContain(
      `Redis unusable: 3 attempts in a row failed, last: cannot connect to redis://127.0.0.1:${port}/0 (connect ECONNREFUSED 127.0.0.1:${port})`,
    );
    const late = await startRedis({ port });
    cleanup.push(() => late.close());
    const pub = await starting;
    expect(await pub.done).toBe(0);
    expect(pub.counts().published).toBe(500);
    await until(() => replica.handle.engine.snapshot()?.ledger.blockHeight === 500n);
    expect((await estimate(replica.handle)).body).toEqual((await replayLast(MIXED)).body);
    expect(replica.logs.text()).toContain('"event":"recovered"');
  });

  /**
   * `publish --source sim --to url`, stopped once `waiting(out)` holds: it stops within 3 s,
   * exit 0, saying it stopped before Redis answered.
   */
  async function stopWhileWaiting(
    url: string,
    waiting: (out: ReturnType<typeof collector>) => boolean,
    what: string,
  ) {
    const out = collector();
    const stopping = new AbortController();
    const starting = startPublish(
      ["--source", "sim", "--to", url],
      { stdout: out.stream, stderr: new PassThrough() },
      stopping.signal,
    );
    await until(() => waiting(out), 15_000, what);
    const asked = Date.now();
    stopping.abort();
    const handle = await starting;
    expect(await handle.done).toBe(0);
    // Far below the call's 5 s timeout it used to wait out, with room for a loaded machine.
    expect(Date.now() - asked).toBeLessThan(3_000);
    expect(out.lines().at(-1)).toMatchObject({
      msg: "gasdigest publish stopped before Redis answered",
    });
  }

  it("a publisher stopped while it still waits for Redis at start stops at once, exit 0", async () => {
    const port = await freePort();
    await stopWhileWaiting(
      `redis://127.0.0.1:${port}`,
      (out) => out.text().includes('"event":"unreachable"'),
      "unreachable",
    );
  });

  for (const [name, answers] of [
    ["accepts the connection and answers nothing", false],
    ["answers the handshake but not the stream's type", true],
  ] as const)
    it(`a publisher stopped at start while Redis ${name} stops at once, not after the timeout`, async () => {
      const seen: string[] = [];
      const server = await respServer(() => (args, socket) => {
        const name = args[0]!.toUpperCase();
        seen.push(name);
        if (answers && name === "INFO") socket.write("$0\r\n\r\n");
        else if (answers && name !== "TYPE") socket.write("+OK\r\n");
      });
      cleanup.push(server.close);
      // Stopped 200 ms into the call: it waited out the call's 5 s timeout before.
      let calledAt: number | undefined;
      await stopWhileWaiting(
        server.url,
        () => {
          if (calledAt === undefined && (answers ? seen.includes("TYPE") : seen.length > 0))
            calledAt = Date.now();
          return calledAt !== undefined && Date.now() - calledAt >= 200;
        },
        "a call",
      );
    });

  it("a publisher stopped while Redis answers nothing says how many waiting blocks it dropped", async () => {
    const frozen = await startRedis();
    cleanup.push(() => frozen.close());
    const pub = await publisher(["--source", "sim", "--interval-ms", "20", "--to", frozen.url]);
    await until(() => pub.handle.counts().published >= 5, 10_000, "first blocks published");
    process.kill(frozen.pid!, "SIGSTOP");
    cleanup.push(() => process.kill(frozen.pid!, "SIGCONT"));
    await new Promise((r) => setTimeout(r, 500));
    const started = Date.now();
    expect(await pub.handle.stop(300)).toBe(0);
    expect(Date.now() - started).toBeLessThan(2_000);
    const warning = pub.logs.lines().find((l) => String(l.msg).startsWith("Redis did not take"));
    expect(warning).toMatchObject({ level: 40, graceMs: 300 });
    expect(warning!.dropped).toBeGreaterThan(0);
    expect(String(warning!.msg)).toContain(`${warning!.dropped} dropped`);
    // The totals say so too: the blocks dropped are not left out of them.
    expect(pub.logs.lines().at(-1)).toMatchObject({
      msg: "gasdigest publish stopped",
      counts: { dropped: warning!.dropped },
    });
  });

  it("a file read without --speed waits for Redis: no more than a thousand of its blocks wait in the sink", async () => {
    // Read as fast as the disk goes, a file outran Redis and the sink dropped the oldest blocks
    // past its 100,000: a 1,000,000-block file published 377,100 and exited 0. Here Redis takes
    // no XADD at all, and the stop's count of the blocks waiting says how many were read.
    const dir = mkdtempSync(join(tmpdir(), "gasdigest-publish-pulled-"));
    const path = join(dir, "long.ndjson");
    const lines: string[] = [];
    for (const block of simulateBlocks({ seed: 1, blocks: 5_000, blockCapacity: 5 }))
      lines.push(serializeBlockSample(block));
    writeFileSync(path, `${lines.join("\n")}\n`);
    const server = await respServer(() => (args, socket) => {
      const name = args[0]!.toUpperCase();
      if (name === "INFO") socket.write("$0\r\n\r\n");
      else if (name === "TYPE") socket.write("+none\r\n");
      else if (name === "XREVRANGE") socket.write("*0\r\n");
      else if (name !== "XADD" && name !== "EXEC" && name !== "MULTI") socket.write("+OK\r\n");
    });
    cleanup.push(server.close);
    const pub = await publisher(["--source", `ndjson:${path}`, "--to", server.url]);
    await until(() => pub.logs.text().includes("publishing to"), 10_000, "publishing");
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await pub.handle.stop(200)).toBe(0);
    const warning = pub.logs.lines().find((l) => String(l.msg).startsWith("Redis did not take"));
    expect(warning!.dropped).toBeGreaterThan(0);
    expect(warning!.dropped).toBeLessThanOrEqual(1_000);
  });

  it("a wrong --stream: an absent key is reported and waited for; a key of another type is named with its type", async () => {
    await runCli(["publish", "--source", `ndjson:${MIXED}`, "--to", redis.url]);
    const absent = await serve(["--source", redis.url, "--stream", "gasdigest:blockz"]);
    await until(() => absent.logs.text().includes('"event":"stream_empty"'));
    expect(absent.logs.lines().find((l) => l.event === "stream_empty")).toMatchObject({
      level: 40,
      msg: `stream gasdigest:blockz at redis://127.0.0.1:${redis.port}/0 is empty or absent; waiting for the first entry (is the stream key right? A stream emptied, by a chain reset or a Redis restarted without persistence, waits for its publisher the same way)`,
    });
    expect((await estimate(absent.handle)).status).toBe(503);

    await redis.client.hset("not-a-stream", "a", "1");
    const wrong = await serve(["--source", redis.url, "--stream", "not-a-stream"]);
    await until(() => wrong.logs.text().includes('"event":"unreachable"'));
    expect(wrong.logs.text()).toContain(
      `the key \\"not-a-stream\\" at redis://127.0.0.1:${redis.port}/0 holds a hash, not a stream`,
    );
    const pubLogs = collector();
    const starting = startPublish(
      ["--source", `ndjson:${MIXED}`, "--to", redis.url, "--stream", "not-a-stream"],
      { stdout: pubLogs.stream, stderr: new PassThrough() },
    );
    await until(() => pubLogs.text().includes('"event":"unreachable"'));
    expect(pubLogs.text()).toContain("holds a hash, not a stream");
    expect(await redis.client.type("not-a-stream")).toBe("hash");
    // The key is fixed: both go on by themselves.
    await redis.client.del("not-a-stream");
    const pub = await starting;
    expect(await pub.done).toBe(0);
    expect(pub.counts().published).toBe(500);
    await until(() => wrong.handle.engine.snapshot()?.ledger.blockHeight === 500n);
    expect(wrong.logs.text()).toContain('"event":"recovered"');
  });

  it("a stream holding garbage entries: each is logged with its entry id and field, the valid blocks are served", async () => {
    const lines = fixtureLines();
    const c = redis.client;
    for (let i = 0; i < lines.length; i++) {
      const h = i + 1;
      if (h === 450)
        await c.xadd(STREAM, "450-0", "block", lines[i]!.replace('"epoch":"1"', '"epoch":"x"'));
      else if (h === 460) await c.xadd(STREAM, "460-0", "payload", lines[i]!);
      else if (h === 470) await c.xadd(STREAM, "470-0", "block", lines[i]!.slice(0, 40));
      else await c.xadd(STREAM, `${h}-0`, "block", lines[i]!);
    }
    await c.xadd(STREAM, "500-7", "block", "{}");
    const { handle, logs } = await serve(["--source", redis.url]);
    await until(() => handle.engine.snapshot()?.ledger.blockHeight === 500n);
    const rejected = logs.lines().filter((l) => l.event === "rejected");
    expect(rejected.map((l) => [l.id, l.msg])).toEqual([
      ["450-0", expect.stringMatching(/^entry 450-0 skipped: block\.epoch: /)],
      ["460-0", "entry 460-0 skipped: block: required (the entry has no block field)"],
      ["470-0", expect.stringMatching(/^entry 470-0 skipped: block: not valid JSON \(/)],
      ["500-7", 'entry 500-7 skipped: id: must be <height>-0 (got "500-7")'],
    ]);
    expect(rejected[0]).toMatchObject({ level: 40, issues: [{ path: "block.epoch" }] });
    const valid = join(mkdtempSync(join(tmpdir(), "gasdigest-garbage-")), "valid.ndjson");
    writeFileSync(valid, `${lines.filter((_, i) => ![449, 459, 469].includes(i)).join("\n")}\n`);
    expect((await estimate(handle)).body).toEqual((await replayLast(valid)).body);
    // New entries after the garbage still come through.
    // Height 500's block one height on: its versions and timestamp after 500's.
    const next = lines[499]!
      .replace('"height":"500"', '"height":"501"')
      .replace('"timestamp_usec":"1700000124750000"', '"timestamp_usec":"1700000125000000"')
      .replace(
        '"first_version":"7875","last_version":"7896"',
        '"first_version":"7897","last_version":"7918"',
      );
    expect(next).toContain('"timestamp_usec":"1700000125000000","first_version":"7897"');
    await c.xadd(STREAM, "501-0", "block", next);
    await until(() => handle.engine.snapshot()?.ledger.blockHeight === 501n);
  });

  it("record --blocks N of a stream whose newest N blocks hold more than a warm start takes: all N, then it ends", async () => {
    // 52 blocks of 100,000 transactions: the warm start held 50 of them (its 5 million
    // transactions) and record waited for ever for a 51st that no publisher would write.
    const key = "gasdigest:wide";
    const prices = JSON.stringify(Array.from({ length: 100_000 }, () => "100"));
    for (let h = 1; h <= 52; h++)
      await redis.client.xadd(
        key,
        `${h}-0`,
        "block",
        `{"height":"${h}","epoch":"1","gas_unit_prices":${prices}}`,
      );
    const out = join(mkdtempSync(join(tmpdir(), "gasdigest-record-wide-")), "rec.ndjson");
    const r = await runCli([
      "record",
      "--source",
      redis.url,
      "--stream",
      key,
      "--blocks",
      "51",
      "--out",
      out,
    ]);
    expect(r.code).toBe(0);
    const heights = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => Number(JSON.parse(l).height));
    expect(heights).toEqual(Array.from({ length: 51 }, (_, i) => i + 2));
  }, 60_000);

  it("Redis restarting while record reads from it: every height once, in order; --append resumes after the file", async () => {
    const pub = await publisher(["--source", "sim", "--interval-ms", "10", "--to", redis.url]);
    await until(async () => (await redis.client.xlen(STREAM)) >= 40, 15_000, "40 entries");
    const out = join(mkdtempSync(join(tmpdir(), "gasdigest-record-redis-")), "rec.ndjson");
    const recording = runCli(["record", "--source", redis.url, "--blocks", "300", "--out", out]);
    await until(async () => (await redis.client.xlen(STREAM)) >= 120, 15_000, "120 entries");
    await redis.stop();
    await new Promise((r) => setTimeout(r, 300));
    await redis.start();
    const r = await recording;
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("reconnecting to Redis");
    expect(r.stderr).toContain("reading stream gasdigest:blocks again after entry");
    const heights = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => Number(JSON.parse(l).height));
    expect(heights).toHaveLength(300);
    expect(heights).toEqual(Array.from({ length: 300 }, (_, i) => heights[0]! + i));
    const stream = await redis.client.xrange(STREAM, `${heights[0]}-0`, `${heights[299]}-0`);
    expect(readFileSync(out, "utf8").trim().split("\n")).toEqual(stream.map(([, f]) => f[1]));

    const more = await runCli([
      "record",
      "--source",
      redis.url,
      "--blocks",
      "20",
      "--out",
      out,
      "--append",
    ]);
    expect(more.code).toBe(0);
    const all = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => Number(JSON.parse(l).height));
    expect(all).toEqual(Array.from({ length: 320 }, (_, i) => heights[0]! + i));
    await pub.handle.stop();
    // A block whose XADD reply was lost in the restart is sent again and counted as already published.
    const counts = pub.handle.counts();
    expect(counts.published + counts.already_published).toBeGreaterThanOrEqual(all.at(-1)!);
  });

  it("record stops when the stream goes back to lower heights (a chain reset), keeping what it wrote", async () => {
    const line = (h: number) =>
      JSON.stringify({ height: String(h), epoch: "1", gas_unit_prices: ["100"] });
    for (let h = 500; h <= 520; h++) await redis.client.xadd(STREAM, `${h}-0`, "block", line(h));
    const out = join(mkdtempSync(join(tmpdir(), "gasdigest-record-reset-")), "rec.ndjson");
    const recording = runCli(["record", "--source", redis.url, "--blocks", "100", "--out", out]);
    await until(
      () => existsSync(out) && readFileSync(out, "utf8").split("\n").length > 21,
      15_000,
      "the warm start written",
    );
    await redis.client.del(STREAM);
    for (let h = 1; h <= 5; h++) await redis.client.xadd(STREAM, `${h}-0`, "block", line(h));
    const r = await recording;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("stream gasdigest:blocks now ends at entry 5-0, below entry 520-0");
    expect(r.stderr).toContain(
      "the source went back from height 520 to 1 (a chain reset?); stopped",
    );
    const heights = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => Number(JSON.parse(l).height));
    expect(heights).toEqual(Array.from({ length: 21 }, (_, i) => 500 + i));
    // The fall is taken for a rewrite at the second idle check (blockMs, 5 s, apart): 10 s of the
    // test's time by design, half the default timeout.
  }, 40_000);

  it("compose.yaml: its publisher and replica commands and the replica health check work", async () => {
    const compose = parse(
      readFileSync(join(import.meta.dirname, "..", "..", "compose.yaml"), "utf8"),
      {
        merge: true,
      },
    ) as { services: Record<string, { command: string[]; healthcheck?: { test: string[] } }> };
    // Loopback, and free ports for the metrics (the containers' 9464 would clash here).
    const local = (args: string[]) =>
      args.map((a) =>
        a === "redis://redis:6379"
          ? redis.url
          : a === "0.0.0.0"
            ? "127.0.0.1"
            : a === "9464"
              ? "0"
              : a,
      );
    const pubArgs = compose.services["publisher-b"]!.command;
    expect(pubArgs.slice(0, 3)).toEqual(["node", "bin/gasdigest.js", "publish"]);
    const source = pubArgs.indexOf("--source");
    const simArgs = local(pubArgs.slice(3));
    simArgs.splice(source - 3, 2, "--source", "sim", "--interval-ms", "20");
    const pub = await publisher(simArgs);
    const replicaArgs = local(compose.services["replica-1"]!.command);
    expect(replicaArgs.slice(0, 3)).toEqual(["node", "bin/gasdigest.js", "serve"]);
    const port = await freePort();
    const { handle } = await serve(
      replicaArgs.slice(3).map((a) => (a === "8080" ? String(port) : a)),
    );
    await until(() => (handle.engine.snapshot()?.ledger.blockHeight ?? 0n) > 5n);
    const [, node, flag, script] = compose.services["replica-1"]!.healthcheck!.test;
    // Asynchronously: the replica answering the check runs in this process.
    const check = spawn(node!, [flag!, script!.replace("8080", String(port))], { stdio: "ignore" });
    expect(await new Promise((resolve) => check.once("exit", resolve))).toBe(0);
    // Both serve their metrics on their own port.
    const replicaMetrics = await (await fetch(handle.metricsUrl!)).text();
    expect(replicaMetrics).toMatch(
      /^gasdigest_source_state\{source="redis",state="connected"\} 1$/m,
    );
    const publisherMetrics = await (await fetch(pub.handle.metricsUrl!)).text();
    expect(publisherMetrics).toMatch(
      /^gasdigest_publish_blocks_total\{outcome="published"\} [1-9]/m,
    );
    await pub.handle.stop();
    expect(pub.handle.counts().published).toBeGreaterThan(5);
  });

  it("explains unusable publish arguments", async () => {
    for (const [argv, message] of [
      [["--to", redis.url], "--source aptos:URL, sim or ndjson:PATH is required"],
      [["--source", "sim"], "--to redis://HOST:PORT is required"],
      [["--source", "sim", "--to", "http://x"], '--to: must use redis or rediss (got "http")'],
      [
        ["--source", redis.url, "--to", redis.url],
        `--source must be aptos:URL, sim or ndjson:PATH (got "${redis.url}")`,
      ],
      [
        ["--source", "sim", "--to", redis.url, "--backfill", "5"],
        "--backfill only applies to --source aptos:URL",
      ],
      [
        ["--source", "sim", "--to", redis.url, "--retain", "0"],
        "--retain must be a whole number from 1 to",
      ],
      [
        ["--source", "sim", "--to", redis.url, "--keep-blocks", "1.5"],
        "--keep-blocks must be a whole number from 0 to",
      ],
    ] as const) {
      const r = await runCli(["publish", ...argv]);
      expect(r.code, argv.join(" ")).toBe(1);
      expect(r.stderr).toContain(message);
    }
  });
});
