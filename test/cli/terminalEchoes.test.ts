// What the CLI prints of its inputs (paths, flag values, strategy names) moves no terminal and
// starts no line of its own: an audit printed a screen-clearing escape through a file's path
// and forged a "gasdigest replay: ..." line through a newline in --input.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "gasdigest-echoes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ESC = "\u001b";
const SPIKE = new URL("../fixtures/scenario-spike-500.ndjson", import.meta.url);

/** No control character but the line breaks the command writes itself. */
function clean(text: string) {
  const controls = [...text].filter((c) => {
    const n = c.codePointAt(0)!;
    return (n < 0x20 && n !== 0x0a) || (n >= 0x7f && n <= 0x9f);
  });
  expect(controls, text).toEqual([]);
}

/** A strategy module at `path` named `name`, serving the minimum; returns its path. */
function strategyModule(path: string, name: string): string {
  writeFileSync(
    path,
    `export default () => ({ name: ${JSON.stringify(name)}, ingest() {}, estimate(min) { return { deprioritized: min, regular: min, prioritized: min }; }, reset() {} });\n`,
  );
  return path;
}

describe("the CLI's echoes of its inputs", () => {
  it("an error message is one line, whatever the flag or path holds", async () => {
    const cases: [string[], string][] = [
      [
        ["replay", "--input", `${dir}/missing\ngasdigest replay: all good`],
        `gasdigest replay: cannot read ${dir}/missing\\u000agasdigest replay: all good (`,
      ],
      [
        ["backtest", "--input", "x", "--strategies", "aip34,,\nline 9: forged"],
        'gasdigest backtest: --strategies has an empty name (got "aip34,,\\u000aline 9: forged")',
      ],
      [
        ["serve", "--log-level", `x\n${ESC}[2J`],
        'gasdigest serve: --log-level must be one of fatal, error, warn, info, debug, trace, silent (got "x\\u000a\\u001b[2J")',
      ],
    ];
    for (const [argv, start] of cases) {
      const r = await runCli(argv);
      expect(r.code, argv.join(" ")).toBe(1);
      expect(r.stderr.split("\n")[0]!.startsWith(start), r.stderr).toBe(true);
      clean(r.stderr);
    }
  });

  it("paths in tables and in what was written are escaped: stats, simulate, backtest", async () => {
    // (No backslash: node imports no module whose path holds one, and says so.)
    const odd = join(dir, `x${ESC}]0;title\u0007${ESC}[2J`);
    mkdirSync(odd);
    const history = join(odd, "h.ndjson");
    copyFileSync(SPIKE, history);
    writeFileSync(join(odd, "bad.ndjson"), '{"height": "1"}\n');
    const stats = await runCli(["stats", "--input", history, "--compare", join(odd, "bad.ndjson")]);
    expect(stats.stdout).toContain("x\\u001b]0;title\\u0007\\u001b[2J/h.ndjson");
    expect(stats.stderr).toContain("x\\u001b]0;title\\u0007\\u001b[2J/bad.ndjson: line 1: ");
    clean(stats.stdout);
    clean(stats.stderr);
    const simulate = await runCli(["simulate", "--blocks", "3", "--out", join(odd, "s.ndjson")]);
    expect(simulate.code, simulate.stderr).toBe(0);
    clean(simulate.stderr);
    const module = strategyModule(join(odd, "mine.mjs"), `mine${ESC}[31m`);
    const backtest = await runCli([
      "backtest",
      "--input",
      history,
      "--strategies",
      `aip34,${module}`,
      "--report",
      join(odd, "r.html"),
    ]);
    expect(backtest.code, backtest.stderr).toBe(0);
    clean(backtest.stdout);
    clean(backtest.stderr);
  });

  it("the HTML report shows a name as written (it escapes its own way), the terminal escaped", async () => {
    // (The tables name a module strategy by its path.)
    const module = strategyModule(join(dir, "a\u200db.mjs"), "joined");
    const report = join(dir, "joined.html");
    const history = join(dir, "joined.ndjson");
    copyFileSync(SPIKE, history);
    const r = await runCli([
      "backtest",
      "--input",
      history,
      "--strategies",
      `aip34,${module}`,
      "--frontier",
      "--report",
      report,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("a\\u200db.mjs");
    expect(r.stdout).not.toContain("a\u200db.mjs");
    const html = readFileSync(report, "utf8");
    expect(html).toContain("a\u200db.mjs");
    expect(html).not.toContain("a\\u200db.mjs");
  });
});
