// Progress lines off a terminal, on a clock the test sets: one when 10 s have gone by since the
// start or the last line, none before.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { PROGRESS_LINE_MS, progressLines } from "../../src/cli/progressLines.js";

describe("progressLines", () => {
  it("writes a line once PROGRESS_LINE_MS have gone by, to the millisecond, and counts from that line", () => {
    const clock = { time: 1_000 };
    const stderr = new PassThrough();
    const lines: string[] = [];
    stderr.on("data", (d) => lines.push(String(d)));
    const progress = progressLines(
      { stdout: new PassThrough(), stderr, now: () => clock.time },
      (ms) => `${ms} ms`,
    );
    expect(PROGRESS_LINE_MS).toBe(10_000);
    for (const [time, expected] of [
      [10_999, []],
      [11_000, ["10000 ms\n"]],
      [20_999, ["10000 ms\n"]],
      [21_000, ["10000 ms\n", "20000 ms\n"]],
    ] as const) {
      clock.time = time;
      progress();
      expect(lines, String(time)).toEqual(expected);
    }
  });
});
