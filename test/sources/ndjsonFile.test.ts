import { constants } from "node:buffer";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { parseBlockSample, serializeBlockSample } from "../../src/core/blockSample.js";
import { InvalidConfigError } from "../../src/core/errors.js";
import { parseJsonLossless } from "../../src/core/parseJsonLossless.js";
import {
  type InvalidLineError,
  type NdjsonFileOptions,
  ndjsonFile,
  type WaitCutEvent,
} from "../../src/sources/ndjsonFile.js";
import { block } from "../helpers/blocks.js";
import { busy, watchTurns } from "../helpers/turns.js";
import { until } from "../helpers/until.js";

const fixture = (name: string) => join(import.meta.dirname, "..", "fixtures", name);

function file(lines: string[]): string {
  const path = join(mkdtempSync(join(tmpdir(), "gasdigest-ndjson-")), "blocks.ndjson");
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

const T0 = 1_700_000_000_000_000n;
const at = (height: number, usec: bigint | null) =>
  JSON.stringify(block(height, { timestamp_usec: usec === null ? null : (T0 + usec).toString() }));

/** Subscribe and note when (ms after the first block) each block arrives. */
function timed(path: string, speed?: number, options: NdjsonFileOptions = {}) {
  return new Promise<{ height: bigint; ms: number }[]>((resolve, reject) => {
    const out: { height: bigint; ms: number }[] = [];
    let start = 0;
    ndjsonFile(path, { speed, ...options }).subscribe({
      next(b) {
        if (out.length === 0) start = performance.now();
        out.push({ height: b.height, ms: performance.now() - start });
      },
      complete: () => resolve(out),
      error: reject,
    });
  });
}

describe("ndjsonFile", () => {
  it("replays every good line in order as fast as possible and reports bad lines", async () => {
    const bad: InvalidLineError[] = [];
    const blocks = await lastValueFrom(
      ndjsonFile(fixture("bad-lines.ndjson"), { onInvalidLine: (e) => bad.push(e) }).pipe(
        toArray(),
      ),
    );
    expect(blocks.map((b) => b.height)).toEqual([1n, 5n, 5n, 2n, 8n]);
    expect(bad.map((e) => e.line)).toEqual([2, 4, 5, 9]);
    const hand = readFileSync(fixture("hand.ndjson"), "utf8").trim().split("\n");
    const all = await lastValueFrom(ndjsonFile(fixture("hand.ndjson")).pipe(toArray()));
    expect(all.map(serializeBlockSample)).toEqual(
      hand.map((l) => serializeBlockSample(parseBlockSample(parseJsonLossless(l)))),
    );
  });

  it("paces blocks at speed × their recorded timestamps", async () => {
    // Seconds 0, 1, (none), 2, 1.5 (earlier than its predecessor: at once; the next block, dated
    // after 2, goes on from the block before it), 4 at 20x: 0, 50, -, 100, 100, 200 ms.
    const path = file([
      at(1, 0n),
      at(2, 1_000_000n),
      at(3, null),
      at(4, 2_000_000n),
      at(5, 1_500_000n),
      at(6, 4_000_000n),
    ]);
    const got = await timed(path, 20);
    expect(got.map((g) => g.height)).toEqual([1n, 2n, 3n, 4n, 5n, 6n]);
    const ms = got.map((g) => g.ms);
    // Never before its due time (3 ms allowed for timer rounding and for this test noting the
    // first block a moment after the source started its clock).
    expect(ms[1]).toBeGreaterThanOrEqual(47);
    expect(ms[3]).toBeGreaterThanOrEqual(97);
    expect(ms[5]).toBeGreaterThanOrEqual(197);
    // The unstamped and the late-stamped blocks wait for nothing: they follow their predecessor.
    expect(ms[2]).toBeLessThan(ms[3]!);
    expect(ms[4]).toBeLessThan(ms[5]!);
  });

  it("cuts a wait longer than maxWaitMs, says so, and paces on from that block", async () => {
    // A first timestamp of 1 µs (1970), a block stamped in the year 584,000, then a normal pace:
    // at speed 1 these asked for waits of 53 years and more, and the replay stood still.
    const u64 = 18_446_744_073_709_551_615n;
    const path = file([
      JSON.stringify(block(1, { timestamp_usec: "1" })),
      at(2, 0n),
      at(3, 20_000n),
      JSON.stringify(block(4, { timestamp_usec: u64.toString() })),
      at(5, 40_000n),
      at(6, 60_000n),
    ]);
    const cut: WaitCutEvent[] = [];
    const got = await timed(path, 1, {
      maxWaitMs: 30,
      onWaitCut: (e) => {
        cut.push(e);
      },
    });
    expect(got.map((g) => g.height)).toEqual([1n, 2n, 3n, 4n, 5n, 6n]);
    expect(cut.map((e) => [e.line, e.height, e.waitedMs])).toEqual([
      [2, 2n, 30],
      [4, 4n, 30],
    ]);
    expect(cut[0]!.gapMs).toBeGreaterThan(1.6e12); // 53 years, in ms
    const ms = got.map((g) => g.ms);
    // Due times from block 1 (a timer fires late, never early: each arrival is at or after
    // its due time, and the next due time counts from the previous due time, not its arrival).
    expect(ms[1]).toBeGreaterThanOrEqual(27); // cut to 30 ms
    expect(ms[2]).toBeGreaterThanOrEqual(47); // the recorded 20 ms, paced from block 2's due time
    expect(ms[3]).toBeGreaterThanOrEqual(77); // cut to 30 ms
    expect(ms[3]! - ms[2]!).toBeLessThan(1_000);
    // Dated before the block before it: at once, and the pace goes on from there.
    expect(ms[5]! - ms[4]!).toBeGreaterThanOrEqual(17);
    expect(ms[5]).toBeLessThan(2_000);
    expect(() => ndjsonFile("x.ndjson", { maxWaitMs: -1 })).toThrow(
      "invalid configuration: maxWaitMs: must be a number of ms, at least 0 (got -1)",
    );
  });

  it("does not hold the block after one dated back (1970) for maxWaitMs, nor blame it", async () => {
    // At 10x, 250 ms apart (25 ms of replay), one block stamped 1 ms after 1970 in the middle:
    // the block after it asked for 5 years after that one, and waited maxWaitMs (the replay
    // stood still for 60 s by default) with a wait cut blamed on its good timestamp.
    const path = file([
      at(1, 0n),
      at(2, 250_000n),
      JSON.stringify(block(3, { timestamp_usec: "1000" })),
      JSON.stringify(block(4, { timestamp_usec: "500" })),
      at(5, 500_000n),
      at(6, 750_000n),
    ]);
    const cut: WaitCutEvent[] = [];
    const got = await timed(path, 10, { maxWaitMs: 5_000, onWaitCut: (e) => cut.push(e) });
    expect(got.map((g) => g.height)).toEqual([1n, 2n, 3n, 4n, 5n, 6n]);
    expect(cut).toEqual([]);
    const ms = got.map((g) => g.ms);
    // On the recorded pace from block 2: 50 and 75 ms after block 1.
    expect(ms[4]).toBeGreaterThanOrEqual(47);
    expect(ms[5]).toBeGreaterThanOrEqual(72);
    expect(ms[5]).toBeLessThan(1_000);
    // A clock that really went back (a second recording after the first) paces on from there.
    const reset = file([at(1, 0n), at(2, 250_000n), at(3, -1_000_000n), at(4, -750_000n)]);
    const again = (await timed(reset, 10, { maxWaitMs: 5_000 })).map((g) => g.ms);
    expect(again[3]! - again[2]!).toBeGreaterThanOrEqual(22);
    expect(again[3]! - again[2]!).toBeLessThan(1_000);
  });

  it("skips the blocks below fromHeight before any pacing: the first one kept comes at once", async () => {
    // Seconds 0, 100, 200, 300 at 1000x: 100 ms apart; resumed at height 3.
    const path = file([at(1, 0n), at(2, 100_000_000n), at(3, 200_000_000n), at(4, 300_000_000n)]);
    const started = performance.now();
    const got = await timed(path, 1_000, { fromHeight: 3n });
    expect(got.map((g) => g.height)).toEqual([3n, 4n]);
    // Height 3 came at once (it waited 200 ms for the two skipped blocks), height 4 on its pace.
    expect(performance.now() - started - got[1]!.ms).toBeLessThan(150);
    expect(got[1]!.ms).toBeGreaterThanOrEqual(97);
  });

  it("reads on when onInvalidLine or onWaitCut throws", async () => {
    const path = file([at(1, 0n), "not json {", at(2, 1_000_000n), at(3, 2_000_000n)]);
    const seen: number[] = [];
    const got = await timed(path, 1_000_000, {
      maxWaitMs: 0,
      onInvalidLine: (e) => {
        seen.push(e.line);
        throw new Error("the application's own bug");
      },
      onWaitCut: () => {
        throw new Error("another");
      },
    });
    expect(got.map((g) => g.height)).toEqual([1n, 2n, 3n]);
    expect(seen).toEqual([2]);
  });

  it("does not pace without speed or at Infinity, even for a file spanning hours", async () => {
    const path = file([at(1, 0n), at(2, 3_600_000_000n), at(3, 7_200_000_000n)]);
    for (const speed of [undefined, Number.POSITIVE_INFINITY]) {
      const got = await timed(path, speed);
      expect(got.map((g) => g.height)).toEqual([1n, 2n, 3n]);
    }
  });

  it("lets the event loop take turns while it replays a file as fast as it goes", async () => {
    // 300 lines, one chunk of the file; each block takes the subscriber 1 ms. Every line of a
    // chunk used to come in one turn: a server fed by the replay answered nothing for 300 ms.
    const path = file(Array.from({ length: 300 }, (_, i) => at(i + 1, BigInt(i))));
    const turns = watchTurns();
    const blocks = await new Promise<number>((resolve, reject) => {
      let n = 0;
      ndjsonFile(path).subscribe({
        next() {
          busy(1);
          turns.block();
          n++;
        },
        complete: () => resolve(n),
        error: reject,
      });
    });
    const { most, turns: count } = turns.stop();
    expect(blocks).toBe(300);
    // About SOURCE_TURN_MS (5) blocks a turn; far fewer than the 300 of one chunk.
    expect(most).toBeLessThanOrEqual(30);
    expect(count).toBeGreaterThanOrEqual(10);
  });

  it("lets the event loop take turns in a run of blank lines too", async () => {
    // 4 MiB of blank lines between two blocks: blank lines yield no entry, so every line of a
    // chunk (a million) was skipped in one turn, and a server fed by the replay waited 150 ms.
    const path = file([at(1, 0n), "\n".repeat(4 << 20), at(2, 1n)]);
    let longest = 0;
    let last = performance.now();
    let ticking = true;
    const tick = () => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const blocks = await lastValueFrom(ndjsonFile(path).pipe(toArray()));
    ticking = false;
    expect(blocks.map((b) => b.height)).toEqual([1n, 2n]);
    expect(longest).toBeLessThan(100);
  });

  it("refuses a speed that is not a positive number, at call time", () => {
    for (const speed of [0, -2, Number.NaN, "2" as unknown as number]) {
      let error: unknown;
      try {
        ndjsonFile("x.ndjson", { speed });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InvalidConfigError);
      expect((error as InvalidConfigError).issues[0]!.path).toBe("speed");
    }
    expect(() => ndjsonFile("x.ndjson", { speed: 0 })).toThrow(
      "invalid configuration: speed: must be a number above 0 (got 0)",
    );
  });

  it("refuses an unknown option, a callback that is not a function and a bad maxLineBytes, all at once", () => {
    let error: unknown;
    try {
      ndjsonFile("x.ndjson", { onInvalidLine: "log", maxLineBytes: 0, sped: 2 } as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidConfigError);
    expect((error as InvalidConfigError).issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      `maxLineBytes: must be a whole number of bytes from 1 to ${constants.MAX_STRING_LENGTH} (the longest string), got 0`,
      "onInvalidLine: must be a function taking an InvalidLineError",
      "sped: unknown field (did you mean speed?)",
    ]);
    expect(() => ndjsonFile("", {})).toThrow('path: must be a file path (got "")');
    // A bad path and bad options: every problem in one error, the path's first.
    expect(() => ndjsonFile("", { speed: -1 })).toThrow(
      'invalid configuration: path: must be a file path (got ""); speed: ',
    );
    // Infinity: as fast as the subscriber takes them.
    expect(() => ndjsonFile("x.ndjson", { speed: Number.POSITIVE_INFINITY })).not.toThrow();
  });

  it("cancels the pacing timer when unsubscribed: nothing is left to keep the process alive", async () => {
    // The second block is an hour after the first: at speed 1 the source waits an hour for it.
    // Run in a child against the built package, so "cancelled" is what a user sees (the process
    // exits), not a count of timers that other tests' leftovers can disturb.
    const path = file([at(1, 0n), at(2, 3_600_000_000n)]);
    const child = (unsubscribe: boolean) => {
      const script = `
        import { ndjsonFile } from ${JSON.stringify(new URL("../../dist/node.js", import.meta.url).href)};
        const sub = ndjsonFile(${JSON.stringify(path)}, { speed: 1, maxWaitMs: Infinity }).subscribe((b) => {
          process.stdout.write("block " + b.height + "\\n");
          ${unsubscribe ? "setImmediate(() => sub.unsubscribe());" : ""}
        });`;
      const proc = spawn(process.execPath, ["--input-type=module", "-e", script], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      let stdout = "";
      proc.stdout.on("data", (d) => {
        stdout += String(d);
      });
      const exited = new Promise<number | null>((r) => proc.on("close", r));
      return { proc, exited, stdout: () => stdout };
    };
    const cancelled = child(true);
    const held = child(false);
    let deadline: NodeJS.Timeout | undefined;
    const late = new Promise<string>((r) => {
      deadline = setTimeout(() => r("still running 20 s after unsubscribing"), 20_000);
    });
    try {
      expect(await Promise.race([cancelled.exited, late])).toBe(0);
      expect(cancelled.stdout()).toBe("block 1\n");
      // The control: still subscribed, the same source holds the process open for its hour.
      await until(() => held.stdout() === "block 1\n", 30_000, "the first block");
      await new Promise((r) => setTimeout(r, 1_000));
      expect(held.proc.exitCode).toBeNull();
    } finally {
      clearTimeout(deadline);
      for (const { proc } of [cancelled, held]) if (proc.exitCode === null) proc.kill("SIGKILL");
    }
  }, 60_000);

  it("stopped the moment after it starts on a FIFO no writer has opened, the process still exits", async () => {
    // The open of the FIFO was still queued for a pool thread when the signal came: no reader
    // waited yet, so opening the write end to release it failed, and the open then blocked for
    // ever (a SIGTERM soon after `serve --source ndjson:FIFO` started, on a busy machine).
    const dir = mkdtempSync(join(tmpdir(), "gasdigest-fifo-"));
    const fifo = join(dir, "blocks.fifo");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    const script = `
      import { readNdjson } from ${JSON.stringify(new URL("../../dist/node.js", import.meta.url).href)};
      const stop = new AbortController();
      const first = readNdjson(${JSON.stringify(fifo)}, { signal: stop.signal }).next();
      stop.abort();
      await first.catch((e) => process.stdout.write(e.name));`;
    const proc = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    proc.stdout.on("data", (d) => {
      stdout += String(d);
    });
    let deadline: NodeJS.Timeout | undefined;
    const late = new Promise<string>((r) => {
      deadline = setTimeout(() => r("still running 10 s after the abort"), 10_000);
    });
    try {
      expect(await Promise.race([new Promise((r) => proc.on("close", r)), late])).toBe(0);
      expect(stdout).toBe("AbortError");
    } finally {
      clearTimeout(deadline);
      if (proc.exitCode === null) proc.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
