import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createLogLimiter } from "../../src/cli/createLogLimiter.js";
import { type ServeHandle, startServe } from "../../src/cli/serve.js";
import { block } from "../helpers/blocks.js";
import { runCli } from "../helpers/cli.js";
import { FAST_DRAIN } from "../helpers/fastDrain.js";

const dir = mkdtempSync(join(tmpdir(), "gasdigest-flood-"));
let files = 0;
function write(text: string | Buffer): string {
  const path = join(dir, `f${files++}.ndjson`);
  writeFileSync(path, text);
  return path;
}

/** A pino logger writing JSON lines into an array. */
function capture() {
  const lines: Record<string, unknown>[] = [];
  let bytes = 0;
  const stream = new PassThrough();
  stream.on("data", (d: Buffer) => {
    bytes += d.length;
    for (const l of String(d).split("\n")) if (l) lines.push(JSON.parse(l));
  });
  const log = pino({ level: "info" }, stream);
  return { log, lines, bytes: () => bytes, flush: () => new Promise((r) => setImmediate(r)) };
}

describe("createLogLimiter", () => {
  it("writes the first lines of a message per window and counts the rest in one summary", async () => {
    const { log, lines, flush } = capture();
    const limited = createLogLimiter(log, { perWindow: 3, windowMs: 60_000 });
    for (let i = 0; i < 1000; i++) limited.warn({ line: i }, "bad line skipped");
    limited.error({ n: 1 }, "strategy failed");
    limited.debug({}, "below the level: neither written nor counted");
    limited.stop();
    await flush();
    expect(lines.map((l) => l.msg)).toEqual([
      "bad line skipped",
      "bad line skipped",
      "bad line skipped",
      "strategy failed",
      "bad line skipped: 997 more not logged in the last 60 s",
    ]);
    expect(lines[4]).toMatchObject({ level: 40, suppressed: 997, last: { line: 999 } });
  });

  it("summarises each window when it ends, and starts the next one afresh", async () => {
    const { log, lines, flush } = capture();
    const limited = createLogLimiter(log, { perWindow: 1, windowMs: 50 });
    for (let i = 0; i < 5; i++) limited.warn({}, "block rejected");
    await new Promise((r) => setTimeout(r, 120));
    limited.warn({}, "block rejected");
    limited.stop();
    await flush();
    expect(lines.map((l) => l.msg)).toEqual([
      "block rejected",
      "block rejected: 4 more not logged in the last 0.05 s",
      "block rejected",
    ]);
  });
});

describe("serve and replay on a file of random bytes", () => {
  const handles: ServeHandle[] = [];
  afterEach(async () => {
    await Promise.all(handles.splice(0).map((h) => h.close()));
  });

  // ~8000 lines of garbage between good blocks.
  const garbage = randomBytes(2 << 20);
  const path = write(
    Buffer.concat([
      Buffer.from(`${JSON.stringify(block(1))}\n`),
      garbage,
      Buffer.from(`\n${JSON.stringify(block(2))}\n${JSON.stringify(block(3))}\n`),
    ]),
  );
  const badLines = garbage.toString("latin1").split("\n").length;

  it("serve logs a bounded number of lines, a summary with the count, and keeps the good blocks", async () => {
    const out = new PassThrough();
    let logged = "";
    out.on("data", (d) => {
      logged += String(d);
    });
    const handle = await startServe(
      ["--port", "0", "--source", `ndjson:${path}`, "--log-level", "info"],
      { stdout: out, stderr: new PassThrough() },
    );
    handles.push(handle);
    const end = Date.now() + 15_000;
    while (!handle.engine.sourcesCompleted && Date.now() < end)
      await new Promise((r) => setTimeout(r, 20));
    expect(handle.engine.counters().accepted).toBe(3);
    await handle.close();
    const lines = logged
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const skipped = lines.filter((l) => l.msg === "bad line skipped");
    const summary = lines.filter((l) => /^bad line skipped: \d+ more not logged/.test(l.msg));
    expect(skipped).toHaveLength(10);
    expect(summary.reduce((n, l) => n + l.suppressed, 0)).toBeGreaterThan(badLines - 200);
    // A few kilobytes, where one line per bad line was megabytes.
    expect(logged.length).toBeLessThan(64 * 1024);
  });

  it("replay reports the first 1000 bad lines, then one line with the count and the range", async () => {
    const r = await runCli(["replay", "--input", path]);
    expect(r.code).toBe(2);
    expect(r.stdout.trim().split("\n")).toHaveLength(3);
    const err = r.stderr.trim().split("\n");
    const reported = new Set(err.slice(0, -1).map((l) => /^line (\d+):/.exec(l)?.[1]));
    expect(reported.size).toBe(1000);
    expect(err.at(-1)).toMatch(
      /^\d+ more rejected lines not reported one by one \(lines \d+ to \d+\); --max-reported 0 reports every one$/,
    );
    const all = await runCli(["replay", "--input", path, "--max-reported", "0"]);
    const every = new Set(
      all.stderr
        .trim()
        .split("\n")
        .map((l) => /^line (\d+):/.exec(l)?.[1]),
    );
    expect(every.size).toBeGreaterThan(badLines - 200);
    expect(every.has(undefined)).toBe(false);
    expect((await runCli(["replay", "--input", path, "--max-reported", "-1"])).code).toBe(1);
  });
});

describe("serve with a strategy that fails on every block", () => {
  it("logs the estimate's 500 through the same limit as the other errors", async () => {
    // Fails from height 3 on: every new block a client asks about answers 500.
    const modulePath = join(dir, "failing.mjs");
    writeFileSync(
      modulePath,
      `export default () => { let h = 0n; return { name: "failing", ingest(b) { h = BigInt(b.height); if (h >= 3n) throw new Error("boom " + h); }, estimate(min) { return { deprioritized: min, regular: min, prioritized: min }; }, reset() {} }; };\n`,
    );
    const out = new PassThrough();
    let logged = "";
    out.on("data", (d) => {
      logged += String(d);
    });
    const handle = await startServe(
      [
        "--port",
        "0",
        "--strategy",
        modulePath,
        "--interval-ms",
        "5",
        "--log-level",
        "info",
        ...FAST_DRAIN,
      ],
      { stdout: out, stderr: new PassThrough() },
    );
    let answered500 = 0;
    try {
      // Until 25 answers were 500 (each a block the strategy failed on), not for a set time: a
      // busy CI machine may serve fewer requests in any given second.
      const deadline = Date.now() + 30_000;
      while (answered500 < 25 && Date.now() < deadline) {
        const res = await fetch(`${handle.url}/v1/estimate_gas_price`);
        await res.arrayBuffer();
        if (res.status === 500) answered500++;
        await new Promise((r) => setTimeout(r, 6));
      }
    } finally {
      await handle.close();
    }
    const lines = logged
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const message = "the strategy failed: the estimate answers 500";
    expect(answered500).toBe(25);
    expect(lines.filter((l) => l.msg === message)).toHaveLength(10);
    const summary = lines.find((l) => String(l.msg).startsWith(`${message}: `));
    expect(summary).toMatchObject({ level: 50 });
    expect(summary!.suppressed).toBeGreaterThan(0);
  });
});
