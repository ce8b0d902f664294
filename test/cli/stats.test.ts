import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const MIXED = "test/fixtures/scenario-mixed-500.ndjson";
const SPIKE = "test/fixtures/scenario-spike-500.ndjson";

describe("gasdigest stats", () => {
  it("prints a history's statistics", async () => {
    const r = await runCli(["stats", "--input", MIXED]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    for (const name of [
      "full blocks (share)",
      "full-block run mean",
      "lag-1 autocorrelation of log clearing",
      "clearing(t)/clearing(t-1) p99",
      "minimum price p50",
    ])
      expect(r.stdout).toContain(name);
    expect(r.stdout).toMatch(/^blocks\s+500$/m);
  });

  it("writes a minimum price near u64's maximum as an approximation, never a number above it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gasdigest-stats-u64-"));
    const file = join(dir, "max.ndjson");
    const lines = [1, 2, 3].map(
      (h) =>
        `{"height":"${h}","epoch":"1","min_gas_unit_price":"18446744073709551615","gas_unit_prices":["18446744073709551615"]}`,
    );
    writeFileSync(file, `${lines.join("\n")}\n`);
    const r = await runCli(["stats", "--input", file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^minimum price p50\s+1\.84467e\+19$/m);
    expect(r.stdout).not.toContain("18446744073709552000");
  });

  it("--compare puts a second history beside the first with the difference", async () => {
    const same = await runCli(["stats", "--input", MIXED, "--compare", MIXED]);
    expect(same.stdout).toMatch(/^full blocks \(share\)\s+\S+\s+\S+\s+0\.0%$/m);
    const other = await runCli(["stats", "--input", MIXED, "--compare", SPIKE, "--json"]);
    const json = JSON.parse(other.stdout);
    expect(json.input).toBe(MIXED);
    expect(json.compare.input).toBe(SPIKE);
    expect(json.fullShare).not.toBe(json.compare.fullShare);
    // A file compared with itself keeps both sides (keyed by path, one was lost).
    const self = JSON.parse(
      (await runCli(["stats", "-i", MIXED, "--compare", MIXED, "--json"])).stdout,
    );
    expect(self.compare.fullShare).toBe(self.fullShare);
  });

  it("--compare's difference has the sign of the side the second lies on, for a negative statistic too", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gasdigest-stats-sign-"));
    // Clearing prices alternating between 100 (not full) and `high` (full): a negative
    // lag-1 autocorrelation, closer to 0 in the second file (its highs vary).
    const write = (name: string, high: (h: number) => number) => {
      const lines = Array.from({ length: 20 }, (_, i) => {
        const h = i + 1;
        const block =
          h % 2 === 1
            ? `"gas_unit_prices":["${high(h)}"],"block_gas_limit_reached":true`
            : `"gas_unit_prices":["100"],"block_gas_limit_reached":false`;
        return `{"height":"${h}","epoch":"1",${block}}`;
      });
      const file = join(dir, name);
      writeFileSync(file, `${lines.join("\n")}\n`);
      return file;
    };
    const a = write("a.ndjson", () => 200);
    const b = write("b.ndjson", (h) => (h % 4 === 1 ? 300 : 100));
    const json = JSON.parse((await runCli(["stats", "-i", a, "--compare", b, "--json"])).stdout);
    const [v, w] = [json.clearingAutocorrelation, json.compare.clearingAutocorrelation];
    expect(v).toBeLessThan(w);
    expect(v).toBeLessThan(0);
    const r = await runCli(["stats", "-i", a, "--compare", b]);
    const expected = `${(((w - v) / -v) * 100).toFixed(1)}%`;
    expect(expected.startsWith("-")).toBe(false);
    expect(r.stdout).toMatch(
      new RegExp(
        `^lag-1 autocorrelation of log clearing\\s+\\S+\\s+\\S+\\s+${expected.replace(".", "\\.")}$`,
        "m",
      ),
    );
  });

  it("reads a gzip-compressed history as the plain one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gasdigest-stats-gz-"));
    const gz = join(dir, "mixed.ndjson.gz");
    writeFileSync(gz, gzipSync(readFileSync(MIXED)));
    const plain = JSON.parse((await runCli(["stats", "--input", MIXED, "--json"])).stdout);
    const zipped = await runCli(["stats", "--input", gz, "--json"]);
    expect(zipped.stderr).toBe("");
    const { input, ...stats } = JSON.parse(zipped.stdout);
    expect(input).toBe(gz);
    const { input: _, ...plainStats } = plain;
    expect(stats).toEqual(plainStats);
    expect(stats.blocks).toBe(500);
  });

  it("a missing --input is a usage error; an unreadable file names itself", async () => {
    expect((await runCli(["stats"])).code).toBe(1);
    const r = await runCli(["stats", "--input", "no/such.ndjson"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot read no/such.ndjson");
  });

  it("refuses a --compare it cannot read before it reads --input", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gasdigest-stats-"));
    const input = join(dir, "bad-line.ndjson");
    writeFileSync(input, `not json\n${readFileSync(MIXED, "utf8")}`);
    const missing = join(dir, "missing.ndjson");
    const r = await runCli(["stats", "--input", input, "--compare", missing]);
    expect(r.code).toBe(1);
    // Only the missing file is named: --input's lines were not read (nor reported) first.
    expect(r.stderr).toMatch(
      new RegExp(`^gasdigest stats: cannot read ${missing} \\(ENOENT: [^\n]*\\)\n$`),
    );
    expect(r.stdout).toBe("");
  });

  it("applies replay's ordering rules: a repeated height is ignored, a lower one rejected", async () => {
    const lines = readFileSync(MIXED, "utf8").trim().split("\n");
    const dir = mkdtempSync(join(tmpdir(), "gasdigest-stats-"));
    const doubled = join(dir, "doubled.ndjson");
    writeFileSync(doubled, `${lines.flatMap((l) => [l, l]).join("\n")}\n`);
    const r = await runCli(["stats", "--input", MIXED, "--compare", doubled]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^blocks\s+500\s+500\s+0\.0%$/m);
    const height = (n: number) => JSON.parse(lines[n]!).height;
    expect(r.stderr.split("\n")[0]).toBe(
      `${doubled}: line 2: height: duplicate of the newest height ${height(0)}, ignored`,
    );
    expect(r.stderr.trim().split("\n")).toHaveLength(500);

    const back = join(dir, "back.ndjson");
    writeFileSync(back, `${[...lines.slice(0, 10), lines[3], ...lines.slice(10)].join("\n")}\n`);
    const b = await runCli(["stats", "--input", back]);
    expect(b.code).toBe(2);
    expect(b.stdout).toMatch(/^blocks\s+500$/m);
    expect(b.stderr).toBe(
      `line 11: height: ${height(3)} is below the newest accepted height ${height(9)}; heights must increase\n`,
    );
    // A line rejected in the --compare file counts as much as one in --input: exit 2.
    const compared = await runCli(["stats", "--input", MIXED, "--compare", back]);
    expect(compared.code).toBe(2);
    expect(compared.stderr).toBe(
      `${back}: line 11: height: ${height(3)} is below the newest accepted height ${height(9)}; heights must increase\n`,
    );
  });
});
