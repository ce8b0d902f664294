// `-` means stdin or stdout to most Unix tools; here it would have been a file named `-`
// (`simulate --out -` wrote one and printed nothing). Every flag that names a file refuses it.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

describe('a file flag given "-"', () => {
  it("is a usage error that says which stream to name, and no file called - appears", async () => {
    const cases: [string[], string][] = [
      [
        ["simulate", "--blocks", "3", "--out", "-"],
        '--out - names no file: "-" is not read as stdout here; name /dev/stdout to mean it',
      ],
      [["record", "--source", "sim", "--blocks", "2", "--out", "-"], "--out - names no file"],
      [
        ["replay", "--input", "-"],
        '--input - names no file: "-" is not read as stdin here; name /dev/stdin to mean it',
      ],
      [["stats", "--input", "-"], "--input - names no file"],
      [["backtest", "--input", "-"], "--input - names no file"],
      [["backtest", "--input", "x.ndjson", "--report", "-"], "--report - names no file"],
      [["replay", "--input", "x.ndjson", "--config", "-"], "--config - names no file"],
      // It said "cannot read - (ENOENT: ...)", naming no flag, without the usage.
      [
        ["serve", "--port", "0", "--source", "ndjson:-"],
        '--source ndjson:- names no file: "-" is not read as stdin here; name ndjson:/dev/stdin to mean it',
      ],
      [
        ["publish", "--source", "ndjson:-", "--to", "redis://127.0.0.1:2"],
        "--source ndjson:- names no file",
      ],
    ];
    for (const [argv, message] of cases) {
      const r = await runCli(argv);
      expect(r.code, argv.join(" ")).toBe(1);
      expect(r.stderr, argv.join(" ")).toContain(message);
      expect(r.stdout).toBe("");
    }
    expect(existsSync(join(process.cwd(), "-"))).toBe(false);
  });
});
