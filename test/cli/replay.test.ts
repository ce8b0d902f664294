import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const fixture = (name: string) => join(import.meta.dirname, "..", "fixtures", name);

describe("gasdigest replay", () => {
  /*
   * hand.ndjson with windows low 2 / market 3 / aggressive 4, fullBlockTxns 3, newest block skipped.
   * Per-block prices (p): 1 full by count, min 100 -> 150; 2 flag true, 500 -> 1000;
   * 3 majority 0.9 -> not full (min); 4 gas_used 100 >= limit 100, min 700 -> 1000;
   * 5 full by count, min 9007199254740993 (above the buckets) -> itself; 6 gas 5 < 1000 -> min;
   * 7 count 3 is full before the false flag, 250 -> 300; epoch 2 from 8 (min price 120):
   * 8 empty -> min; 9 full, 130 -> 150; 10 flag, 10 -> 150; 12 (gap) empty -> min.
   * After 6: window [p5, 1000, 100, 1000]: low min(p5,1000)=1000, median of [p5,1000,100] = 1000,
   * p90 of all = p5 -> nextBucket(p5) = p5. After 8: epoch reset, nothing usable: 120/120/150.
   */
  it("agrees with the hand computation after every block", async () => {
    const r = await runCli([
      "replay",
      "--input",
      fixture("hand.ndjson"),
      "--config",
      fixture("hand.config.json"),
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(fixture("hand.expected.ndjson"), "utf8"));
  });

  it("reports each bad line with its number and still prints every good block", async () => {
    const r = await runCli(["replay", "--input", fixture("bad-lines.ndjson")]);
    expect(r.code).toBe(2);
    expect(
      r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).height),
    ).toEqual(["1", "5", "8"]);
    expect(r.stderr.trim().split("\n")).toEqual([
      'line 2: gas_unit_prices[1]: must not be negative (got "-5")',
      "line 4: gas_used: must have as many entries as gas_unit_prices (1), got 2",
      expect.stringMatching(/^line 5: not valid JSON \(/),
      "line 7: height: duplicate of the newest height 5, ignored",
      "line 8: height: 2 is below the newest accepted height 5; heights must increase",
      'line 9: height: must be a decimal u64 string of digits only (got "0x7")',
      'line 9: gas_unit_prices[0]: must be a decimal u64 string of digits only (got "1.5")',
    ]);
  });

  it("past --max-reported, counts rejected lines and repeated heights apart; repeats alone keep exit 0", async () => {
    const r = await runCli([
      "replay",
      "--input",
      fixture("bad-lines.ndjson"),
      "--max-reported",
      "2",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n").at(-1)).toBe(
      "3 more rejected lines and 1 more line repeating the newest height not reported one by one (lines 5 to 9); --max-reported 0 reports every one",
    );
    const dir = mkdtempSync(join(tmpdir(), "gasdigest-"));
    const line = readFileSync(fixture("bad-lines.ndjson"), "utf8").split("\n")[0]!;
    const repeats = join(dir, "repeats.ndjson");
    writeFileSync(repeats, `${line}\n${line}\n${line}\n${line}\n`);
    const d = await runCli(["replay", "--input", repeats, "--max-reported", "1"]);
    expect(d.code).toBe(0);
    expect(d.stderr.trim().split("\n")).toEqual([
      "line 2: height: duplicate of the newest height 1, ignored",
      "2 more lines repeating the newest height not reported one by one (lines 3 to 4); --max-reported 0 reports every one",
    ]);
  });

  it("--strategy tdigest replays to exactly the aip34 estimates on default settings", async () => {
    // Windows of 10/30/120 blocks are exact in the t-digest strategy (below exactUpTo), and
    // the simulated prices stay far below 2^53, where the sketch's float64 is exact.
    const input = fixture("scenario-mixed-500.ndjson");
    const exact = await runCli(["replay", "--input", input]);
    const digest = await runCli(["replay", "--input", input, "--strategy", "tdigest"]);
    expect(exact.code).toBe(0);
    expect(digest).toEqual(exact);
    expect(
      new Set(
        exact.stdout
          .trim()
          .split("\n")
          .map((l) => l.replace(/"height":"\d+",/, "")),
      ).size,
    ).toBeGreaterThan(3);
  });

  it("--strategy tdigest reads its block of the config file, every problem listed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gasdigest-"));
    writeFileSync(
      join(dir, "t.json"),
      '{"tdigest": {"tiers": {"deprioritized": {"quantile": 2}}, "compression": "x"}}',
    );
    const bad = await runCli([
      "replay",
      "--input",
      fixture("hand.ndjson"),
      "--strategy",
      "tdigest",
      "--config",
      join(dir, "t.json"),
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      "tdigest.tiers.deprioritized.quantile: must be a number from 0 to 1, got 2",
    );
    expect(bad.stderr).toContain(
      'tdigest.compression: must be a number from 10 to 100000, got "x"',
    );
    writeFileSync(
      join(dir, "p.json"),
      '{"tdigest": {"tiers": {"prioritized": {"windowBlocks": 5000, "quantile": 0.99, "sample": "paid"}}}}',
    );
    const paid = await runCli([
      "replay",
      "--input",
      fixture("scenario-spike-500.ndjson"),
      "--strategy",
      "tdigest",
      "--config",
      join(dir, "p.json"),
    ]);
    expect(paid.code).toBe(0);
    const exact = await runCli(["replay", "--input", fixture("scenario-spike-500.ndjson")]);
    expect(paid.stdout).not.toEqual(exact.stdout);
  });

  it("serves a config file's staticOverride after every block, in the node's names", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gasdigest-replay-"));
    writeFileSync(
      join(dir, "o.json"),
      '{"staticOverride": {"low": 110, "market": "220", "aggressive": 18446744073709551615}}',
    );
    const r = await runCli([
      "replay",
      "--input",
      fixture("hand.ndjson"),
      "--config",
      join(dir, "o.json"),
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines)
      expect(line).toMatch(
        /^\{"height":"\d+","deprioritized_gas_estimate":1[12]0,"gas_estimate":220,"prioritized_gas_estimate":18446744073709551615\}$/,
      );
    // Where a block's minimum (120) is above the override's low tier, that tier is served at it.
    expect(lines.filter((l) => l.includes('"deprioritized_gas_estimate":120'))).toHaveLength(4);
  });

  it("exits 1 on unusable arguments, an unreadable file or a bad config, naming the problem", async () => {
    const none = await runCli(["replay"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("--input FILE.ndjson is required");
    const unknown = await runCli(["replay", "--input", "x", "--speed", "3"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Unknown option '--speed'");
    const missing = await runCli(["replay", "--input", "/nonexistent/h.ndjson"]);
    expect(missing).toMatchObject({ code: 1, stdout: "" });
    expect(missing.stderr).toContain("cannot read /nonexistent/h.ndjson");
    const dir = mkdtempSync(join(tmpdir(), "gasdigest-"));
    writeFileSync(join(dir, "c.json"), '{"lowBlockHistory": 0, "buckets": [5, 1], "nope": true}');
    const bad = await runCli([
      "replay",
      "--input",
      fixture("hand.ndjson"),
      "--config",
      join(dir, "c.json"),
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      "gasdigest replay: invalid configuration:\n  lowBlockHistory: must be at least 1\n  nope: unknown field\n  buckets[1]: buckets must be strictly ascending: 1 follows 5\n",
    );
    // Every strategy block is checked, not only the selected strategy's (aip34 here).
    writeFileSync(
      join(dir, "s.json"),
      '{"lowBlockHistory": 0, "calibrated": {"tiers": {"regular": {"probability": 2}}}, "geth": {"nope": 1}}',
    );
    const blocks = await runCli([
      "replay",
      "--input",
      fixture("hand.ndjson"),
      "--config",
      join(dir, "s.json"),
    ]);
    expect(blocks).toMatchObject({ code: 1, stdout: "" });
    expect(blocks.stderr).toBe(
      "gasdigest replay: invalid configuration:\n  lowBlockHistory: must be at least 1\n  calibrated.tiers.regular.probability: must be a probability above 0 and below 1, got 2\n  geth.nope: unknown field\n",
    );
    const strategy = await runCli([
      "replay",
      "--input",
      fixture("hand.ndjson"),
      "--strategy",
      "magic",
    ]);
    expect(strategy.code).toBe(1);
    expect(strategy.stderr).toContain('unknown strategy "magic"');
  });

  it("runs as the installed binary (bin/gasdigest.js on the built output)", async () => {
    const bin = join(import.meta.dirname, "..", "..", "bin", "gasdigest.js");
    const { stdout } = await promisify(execFile)(process.execPath, [
      bin,
      "replay",
      "--input",
      fixture("hand.ndjson"),
      "--config",
      fixture("hand.config.json"),
    ]);
    expect(stdout).toBe(readFileSync(fixture("hand.expected.ndjson"), "utf8"));
  });
});

describe("replay's stderr lines stay lines", () => {
  const dir = mkdtempSync(join(tmpdir(), "gasdigest-replay-lines-"));

  it("a strategy failure is one escaped, cut line; so is a bad line's JSON error", async () => {
    const thrower = join(dir, "thrower.mjs");
    writeFileSync(
      thrower,
      `export default () => { let k = 0; return { name: "thrower", ingest() { k++; }, estimate(min) { if (k === 2) throw new Error("boom\\u001b[31m\\nsecond line " + "x".repeat(5000)); return { deprioritized: min, regular: min, prioritized: min }; }, reset() {} }; };\n`,
    );
    const input = join(dir, "three.ndjson");
    const line = (h: number) =>
      JSON.stringify({ height: String(h), epoch: "1", gas_unit_prices: ["100"] });
    writeFileSync(input, `${line(1)}\n${line(2)}\n\u001b]0;title\u0007\n${line(3)}\n`);
    const r = await runCli(["replay", "--input", input, "--strategy", thrower]);
    expect(r.code).toBe(2);
    const err = r.stderr.trim().split("\n");
    expect(err).toHaveLength(2);
    expect(err[0]).toMatch(/^line 3: not valid JSON \(.*\\u001b.*\)$/);
    expect(err[1]).toMatch(/^line 4: strategy thrower failed to estimate .*\(\d+ characters\)$/);
    expect(err[1]!.length).toBeLessThan(300);
    // No control character but the newlines that end the lines.
    expect([...r.stderr].filter((c) => c < " " && c !== "\n")).toEqual([]);
  });
});
