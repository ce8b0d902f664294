import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { firstValueFrom, lastValueFrom, take, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { parseBlockSample, serializeBlockSample } from "../../src/core/blockSample.js";
import { InvalidConfigError } from "../../src/core/errors.js";
import { parseJsonLossless } from "../../src/core/parseJsonLossless.js";
import { type InvalidLineError, ndjsonFile } from "../../src/sources/ndjsonFile.js";
import { block } from "../helpers/blocks.js";
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
function timed(path: string, speed?: number) {
  return new Promise<{ height: bigint; ms: number }[]>((resolve, reject) => {
    const out: { height: bigint; ms: number }[] = [];
    let start = 0;
    ndjsonFile(path, { speed }).subscribe({
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
    // Seconds 0, 1, (none), 2, 1.5 (earlier than its predecessor), 4 at 20x: 0, 50, -, 100, -, 200 ms.
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

  it("does not pace without speed or at Infinity, even for a file spanning hours", async () => {
    const path = file([at(1, 0n), at(2, 3_600_000_000n), at(3, 7_200_000_000n)]);
    for (const speed of [undefined, Number.POSITIVE_INFINITY]) {
      const got = await timed(path, speed);
      expect(got.map((g) => g.height)).toEqual([1n, 2n, 3n]);
    }
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

  it("cancels the pacing timer when unsubscribed", async () => {
    const path = file([at(1, 0n), at(2, 3_600_000_000n)]);
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const before = timers();
    const first = await firstValueFrom(ndjsonFile(path, { speed: 1 }).pipe(take(1)));
    expect(first.height).toBe(1n);
    let delivered = 0;
    const sub = ndjsonFile(path, { speed: 1 }).subscribe(() => delivered++);
    // The first block comes at once, the second waits an hour on the pacing timer. Polled, not
    // slept on: on a busy machine reading the file can take longer than any fixed pause.
    await until(() => delivered === 1 && timers() > before, 10_000, "the pacing timer");
    sub.unsubscribe();
    expect(delivered).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(timers()).toBe(before);
  });
});
