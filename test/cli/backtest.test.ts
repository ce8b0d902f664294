import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatTable } from "../../src/backtest/formatTable.js";
import { runBacktest } from "../../src/backtest/runBacktest.js";
import { aip34 } from "../../src/index.js";
import { readNdjson } from "../../src/node.js";
import { geth } from "../../src/strategies/geth.js";
import { lastBlock } from "../../src/strategies/lastBlock.js";
import { runCli } from "../helpers/cli.js";

const fixture = (name: string) => join(import.meta.dirname, "..", "fixtures", name);
const dir = mkdtempSync(join(tmpdir(), "gasdigest-backtest-"));
const SPIKE = fixture("scenario-spike-500.ndjson");
const THREE = ["--strategies", "aip34,geth,last-block"];

async function* blocksOf(path: string) {
  for await (const e of readNdjson(path)) if (e.ok) yield e.block;
}

describe("gasdigest backtest", () => {
  it("names, for each strategy that had no estimate, the first failure and its reason", async () => {
    const throws = join(dir, "throws.mjs");
    writeFileSync(
      throws,
      `export default () => ({ name: "throws", ingest() {}, estimate() { throw new Error("boom ${"x".repeat(5000)}"); }, reset() {} });\n`,
    );
    const unordered = join(dir, "unordered.mjs");
    writeFileSync(
      unordered,
      "export default () => ({ name: 'unordered', ingest() {}, estimate(min) { return { deprioritized: min + 500n, regular: min + 100n, prioritized: min }; }, reset() {} });\n",
    );
    const r = await runCli([
      "backtest",
      "--input",
      SPIKE,
      "--strategies",
      `aip34,${throws},${unordered}`,
    ]);
    expect(r.code).toBe(0);
    const failed = r.stdout.split("\n").filter((l) => l.includes("had no estimate"));
    expect(failed).toHaveLength(2);
    // The header counts the bids of the strategies that made them, whichever is listed first.
    const reversed = await runCli([
      "backtest",
      "--input",
      SPIKE,
      "--strategies",
      `${throws},aip34`,
    ]);
    for (const out of [r.stdout, reversed.stdout])
      expect(out).toMatch(
        /: 490 bids scored each \(fewer for a strategy that failed: see below\), and the last/,
      );
    expect(failed[0]).toMatch(
      new RegExp(
        `^${throws} had no estimate before 499 blocks \\(no bid there\\); the first, before block 2: .*boom x+… \\(\\d+ characters\\)$`,
      ),
    );
    expect(failed[0]!.length).toBeLessThan(throws.length + 400);
    expect(failed[1]).toMatch(
      new RegExp(
        `^${unordered} had no estimate before 499 blocks \\(no bid there\\); the first, before block 2: .*deprioritized`,
      ),
    );
    const json = JSON.parse(
      (await runCli(["backtest", "--input", SPIKE, "--strategies", `aip34,${throws}`, "--json"]))
        .stdout,
    );
    expect(json.strategies[0].firstFailure).toBeUndefined();
    expect(json.strategies[1].firstFailure.height).toBe("2");
  });

  it("prints a strategy × tier table of the metrics", async () => {
    const r = await runCli(["backtest", "--input", SPIKE, ...THREE]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(
      /^500 blocks \(heights 1\.\.500\), \d+ cleared at the minimum price; 3 spikes/,
    );
    const header = lines.find((l) => l.startsWith("strategy"))!;
    expect(header.split(/\s{2,}/)).toEqual([
      "strategy",
      "tier",
      "in 1",
      "in 3",
      "in 10",
      "promise",
      "kept",
      "over p50",
      "over p90",
      "over mean",
      "paid",
      "cover p50",
      "covered",
      "back p50",
      "back",
    ]);
    const rows = lines
      .filter((l) => /^(aip34|geth|last-block) /.test(l))
      .map((l) => l.split(/\s+/));
    expect(rows.map((c) => `${c[0]} ${c[1]}`)).toEqual([
      "aip34 deprioritized",
      "aip34 regular",
      "aip34 prioritized",
      "geth deprioritized",
      "geth regular",
      "geth prioritized",
      "last-block deprioritized",
      "last-block regular",
      "last-block prioritized",
    ]);
    for (const c of rows) {
      expect(c.slice(2, 5).every((v) => /^\d+\.\d\d%$/.test(v))).toBe(true);
      expect(c.slice(5, 7)).toEqual(["-", "-"]); // no promises
      expect(c[10]).toMatch(/^\d+\.\d{3}$/); // mean price paid
      expect(c[12]).toMatch(/^\d+\/3$/);
    }
    // The same numbers as the library computes on the same file.
    const result = await runBacktest(blocksOf(SPIKE), {
      strategies: [
        { name: "aip34", strategy: aip34() },
        { name: "geth", strategy: geth() },
        { name: "last-block", strategy: lastBlock() },
      ],
    });
    expect(r.stdout).toBe(formatTable(result));
  });

  it("--json prints the whole result", async () => {
    const r = await runCli([
      "backtest",
      "--input",
      SPIKE,
      ...THREE,
      "--json",
      "--calm-blocks",
      "20",
    ]);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json).toMatchObject({
      input: SPIKE,
      blocks: 500,
      duplicates: 0,
      scoredBlocks: 499,
      unsettledBids: 9,
      firstHeight: "1",
      lastHeight: "500",
      calmBlocks: 20,
    });
    expect(json.strategies.map((s: { name: string }) => s.name)).toEqual([
      "aip34",
      "geth",
      "last-block",
    ]);
    const tier = json.strategies[1].tiers.regular;
    expect(Object.keys(tier)).toEqual([
      "bids",
      "included",
      "inclusion",
      "overpayment",
      "cost",
      "promise",
      "spikeCover",
      "spikeReturn",
    ]);
    expect(tier.bids).toBe(490);
    expect(tier.inclusion.within1).toBeCloseTo(tier.included.within1 / 490, 12);
    expect(tier.overpayment.median).toBeGreaterThanOrEqual(1);
    expect(json.meanClearingPrice).toBeGreaterThan(0);
    expect(tier.cost).toBeGreaterThan(0);
    expect(Object.keys(tier.spikeCover)).toEqual(["spikes", "hits", "median", "mean", "max"]);
    expect(tier.promise).toBeNull();
  });

  it("--report writes one self-contained HTML file with the chart library inlined", async () => {
    const out = join(dir, "report.html");
    const r = await runCli(["backtest", "--input", SPIKE, ...THREE, "--report", out]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`report written to ${out}\n`);
    const html = readFileSync(out, "utf8");
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).not.toMatch(/https?:\/\/|www\.|github\.com|\.(com|org|io|dev)\//i);
    expect(html).toMatch(/uPlot \d+\.\d+\.\d+ \(MIT licence/);
    expect(html).toContain("var uPlot=");
    expect(html).toContain('id="timeline-2"');
  });

  it("reports bad lines with their numbers, still scores the rest, and exits 2", async () => {
    const good = readFileSync(SPIKE, "utf8").trim().split("\n").slice(0, 40);
    const lines = [
      ...good.slice(0, 10),
      "{not json",
      good[9]!,
      ...good.slice(10, 20),
      good[3]!,
      ...good.slice(20),
    ];
    const path = join(dir, "bad.ndjson");
    writeFileSync(path, `${lines.join("\n")}\n`);
    const r = await runCli(["backtest", "--input", path, ...THREE]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^line 11: not valid JSON \(/),
      "line 12: height: duplicate of the newest height 10, ignored",
      "line 23: height: 4 is below the newest accepted height 20; heights must increase",
    ]);
    expect(r.stdout).toMatch(/^40 blocks \(heights 1\.\.40\)/);
    // A repeated height alone is reported but not a problem: exit 0, as in replay and stats.
    const twice = join(dir, "twice.ndjson");
    writeFileSync(twice, `${[...good.slice(0, 10), good[9]!, ...good.slice(10)].join("\n")}\n`);
    const dup = await runCli(["backtest", "--input", twice, ...THREE]);
    expect(dup.stderr.trim()).toBe("line 11: height: duplicate of the newest height 10, ignored");
    expect(dup.code).toBe(0);
  });

  it("exits 1 naming the problem", async () => {
    const cases: [string[], string][] = [
      [["backtest"], "--input FILE.ndjson is required"],
      [
        ["backtest", "--input", SPIKE, "--strategies", "aip34,nope"],
        'unknown strategy "nope" (known strategies: aip34, ',
      ],
      [
        ["backtest", "--input", SPIKE, "--strategies", "geth,geth"],
        '--strategies names "geth" twice',
      ],
      [
        ["backtest", "--input", SPIKE, "--strategies", ","],
        "--strategies must name at least one strategy",
      ],
      [
        ["backtest", "--input", SPIKE, "--strategies", "aip34,,geth"],
        '--strategies has an empty name (got "aip34,,geth"): names are separated by one comma',
      ],
      [
        ["backtest", "--input", SPIKE, "--calm-blocks", "0"],
        '--calm-blocks must be a whole number from 1 to 1000000 (got "0")',
      ],
      [
        ["backtest", "--input", SPIKE, "--verify-every", "9007199254740993"],
        '--verify-every must be a whole number from 1 to 9007199254740991 (got "9007199254740993")',
      ],
      [
        ["backtest", "--input", SPIKE, "--report="],
        "--report must name a file (got an empty value)",
      ],
      [
        // Found before the run, not after it.
        ["backtest", "--input", SPIKE, "--report", dir],
        `cannot write ${dir}`,
      ],
      [
        ["backtest", "--input", join(dir, "absent.ndjson")],
        `cannot read ${join(dir, "absent.ndjson")}`,
      ],
      [
        ["backtest", "--input", SPIKE, "--config", fixture("bad-lines.ndjson")],
        "is not valid JSON",
      ],
      [
        ["backtest", "--input", SPIKE, ...THREE, "--report", join(dir, "no", "r.html")],
        "cannot write",
      ],
    ];
    for (const [argv, message] of cases) {
      const r = await runCli(argv);
      expect(r.code, argv.join(" ")).toBe(1);
      expect(r.stderr).toContain(message);
    }
    // A directory that passes the access check and takes no new file (/proc): found before the
    // run, so no table was printed.
    const proc = await runCli(["backtest", "--input", SPIKE, ...THREE, "--report", "/proc/r.html"]);
    expect(proc.code).toBe(1);
    expect(proc.stderr).toMatch(/^gasdigest backtest: cannot write \/proc\/r\.html \(/);
    expect(proc.stdout).toBe("");
    // A folder named as the report: said before the run (no table), in those words, not as the
    // EISDIR of a write after the whole run.
    const folder = await runCli(["backtest", "--input", SPIKE, ...THREE, "--report", dir]);
    expect(folder.code).toBe(1);
    expect(folder.stderr).toBe(`gasdigest backtest: cannot write ${dir} (it is a directory)\n`);
    expect(folder.stdout).toBe("");
    // A report named as the history it reads (or its config, or a strategy module it runs) would
    // replace it: refused, the file left as it was.
    const history = join(dir, "own.ndjson");
    writeFileSync(history, readFileSync(SPIKE));
    for (const target of [history, join(dir, ".", "own.ndjson")]) {
      const self = await runCli(["backtest", "--input", history, "--report", target]);
      expect(self.code).toBe(1);
      expect(self.stderr).toContain(
        `cannot write ${target} (it is ${history}, a file this run reads`,
      );
    }
    expect(readFileSync(history)).toEqual(readFileSync(SPIKE));
    const module = join(dir, "floor.mjs");
    const source =
      "export default () => ({ name: 'floor', ingest() {}, reset() {}, estimate: (m) => ({ deprioritized: m, regular: m, prioritized: m }) });\n";
    writeFileSync(module, source);
    const own = await runCli([
      "backtest",
      "--input",
      SPIKE,
      "--strategies",
      module,
      "--report",
      module,
    ]);
    expect(own.code).toBe(1);
    expect(own.stderr).toContain(`cannot write ${module} (it is ${module}, a file this run reads`);
    expect(readFileSync(module, "utf8")).toBe(source);
  });

  it("honours --config for the ground truth and every strategy", async () => {
    const config = join(dir, "config.json");
    writeFileSync(config, JSON.stringify({ skipLatestBlock: false, minGasUnitPrice: 100 }));
    const r = await runCli([
      "backtest",
      "--input",
      SPIKE,
      "--strategies",
      "last-block",
      "--config",
      config,
      "--json",
    ]);
    expect(r.code).toBe(0);
    const expected = await runBacktest(blocksOf(SPIKE), {
      config: { skipLatestBlock: false },
      strategies: [{ name: "last-block", strategy: lastBlock() }],
    });
    expect(JSON.parse(r.stdout).strategies).toEqual(expected.strategies);
    const skipped = JSON.parse(
      (await runCli(["backtest", "--input", SPIKE, "--strategies", "last-block", "--json"])).stdout,
    );
    expect(skipped.strategies[0].tiers.regular.inclusion.within1).not.toBe(
      expected.strategies[0]!.tiers.regular.inclusion.within1,
    );
  });

  it("says so when the config pins every strategy's estimate", async () => {
    // A review found a serve config with staticOverride reused for a backtest: geth and
    // calibrated scored the same fixed bids, row for row, without a word.
    const pinned = join(dir, "pinned.json");
    writeFileSync(
      pinned,
      JSON.stringify({ staticOverride: { low: 100, market: 200, aggressive: 300 } }),
    );
    const off = join(dir, "off.json");
    writeFileSync(off, JSON.stringify({ enabled: false }));
    for (const [config, what] of [
      [pinned, "staticOverride"],
      [off, "enabled: false"],
    ] as const) {
      const r = await runCli(["backtest", "--input", SPIKE, ...THREE, "--config", config]);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(
        `backtest: --config sets ${what}, so every strategy's engine serves`,
      );
      expect(r.stderr).toContain("every row scores those same bids");
    }
    const plain = await runCli(["backtest", "--input", SPIKE, ...THREE]);
    expect(plain.stderr).not.toContain("every row scores");
  });
});

describe("gasdigest backtest: progress off a terminal", () => {
  it("writes a line every 10 s of a long run to stderr, and none in a short one", async () => {
    // A review found a 1.5 GB history silent for 102 s with stderr going to a log. 3.4 MB (read
    // in 1 MiB pieces) on a clock that moves 6 s at each look: a line every second look.
    const lines = readFileSync(SPIKE, "utf8").trim().split("\n");
    // Each copy goes on after the one before it: heights, timestamps and versions.
    const copies = Array.from({ length: 20 }, (_, k) =>
      lines.map((l) =>
        l.replace(
          /^\{"height":"(\d+)","epoch":"1","timestamp_usec":"(\d+)","first_version":"(\d+)","last_version":"(\d+)"/,
          (_, h, t, first, last) =>
            `{"height":"${Number(h) + 500 * k}","epoch":"1","timestamp_usec":"${Number(t) + 125_000_000 * k}","first_version":"${Number(first) + 5000 * k}","last_version":"${Number(last) + 5000 * k}"`,
        ),
      ),
    );
    const long = join(dir, "long.ndjson");
    writeFileSync(long, `${copies.flat().join("\n")}\n`);
    let t = 0;
    const slow = await runCli(["backtest", "--input", long, "--strategies", "aip34"], {
      now: () => (t += 6_000),
    });
    expect(slow.code).toBe(0);
    const progress = slow.stderr.split("\n").filter((l) => l.startsWith("backtest: "));
    expect(progress.length).toBeGreaterThan(0);
    for (const line of progress)
      expect(line).toMatch(/^backtest: [\d,]+ blocks read \(\d+% of the file\), \d+ s$/);
    const quick = await runCli(["backtest", "--input", long, "--strategies", "aip34"]);
    expect(quick.stderr).not.toContain("backtest: ");
  }, 60_000);

  it("writes a line every 10 s while one piece of the file takes longer than that", async () => {
    // A review saw 24 s between two lines: the clock was read once per 1 MiB of the file, and
    // a frontier run on the Ethereum history (321 bytes a block) takes 12-24 s per MiB. Here
    // the whole file is one piece, on a clock that moves 1 s at each look.
    let t = 0;
    const r = await runCli(["backtest", "--input", SPIKE, "--strategies", "aip34"], {
      now: () => (t += 1_000),
    });
    expect(r.code).toBe(0);
    const seconds = r.stderr
      .split("\n")
      .filter((l) => l.startsWith("backtest: "))
      .map((l) => Number(/, (\d+) s$/.exec(l)?.[1]));
    expect(seconds.length).toBeGreaterThan(10);
    for (let i = 1; i < seconds.length; i++)
      expect(seconds[i]! - seconds[i - 1]!).toBeLessThanOrEqual(11);
    expect(r.stderr).toMatch(/^backtest: [\d,]+ blocks read \(100% of the file\), \d+ s$/m);
  });
});

describe("gasdigest backtest --frontier", () => {
  it("sweeps each strategy's knob and prints overpayment at 90/95/99 % inclusion", async () => {
    const r = await runCli([
      "backtest",
      "--input",
      "test/fixtures/scenario-mixed-500.ndjson",
      "--strategies",
      "aip34,last-block,calibrated",
      "--frontier",
    ]);
    expect(r.code).toBe(0);
    const frontier = r.stdout.slice(r.stdout.indexOf("Frontier"));
    const header = frontier.split("\n").find((l) => l.startsWith("strategy"))!;
    expect(header.split(/\s{2,}/)).toEqual([
      "strategy",
      "knob",
      ...[1, 3, 10].flatMap((k) => ["90%", "95%", "99%"].map((t) => `in ${k} @${t}`)),
    ]);
    for (const row of ["aip34 ", "last-block  multiplier", "calibrated  probability", "lowest"])
      expect(frontier).toContain(row);
    // The named strategies' own table is unchanged by the frontier's extra lanes.
    expect(r.stdout).not.toMatch(/^last-block@/m);

    const json = JSON.parse(
      (
        await runCli([
          "backtest",
          "--input",
          "test/fixtures/scenario-mixed-500.ndjson",
          "--strategies",
          "last-block",
          "--frontier",
          "--json",
        ])
      ).stdout,
    );
    expect(json.strategies.map((s: { name: string }) => s.name)).toEqual(["last-block"]);
    const curve = json.frontier.curves.find(
      (c: { horizon: number; strategy: string }) => c.strategy === "last-block" && c.horizon === 1,
    );
    // The bid rises with the multiplier, so inclusion never falls along the curve.
    const inc = curve.points.map((p: { inclusion: number }) => p.inclusion);
    expect(inc).toEqual([...inc].sort((a: number, b: number) => a - b));
  }, 60_000);
});
