// bench/run.js's flags, on a copy of bench/ and docs/ (dist/ and node_modules/ linked), so the
// project's docs/benchmarks.md and bench/results are never touched.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../helpers/child.js";

function copy(): string {
  const dir = mkdtempSync(join(tmpdir(), "gasdigest-bench-run-"));
  cpSync(join(root, "bench"), join(dir, "bench"), {
    recursive: true,
    filter: (src) => !src.includes(`${join("bench", "results")}`),
  });
  cpSync(join(root, "docs"), join(dir, "docs"), { recursive: true });
  symlinkSync(join(root, "dist"), join(dir, "dist"));
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  return dir;
}

/** `node --expose-gc bench/run.js ...args` in `dir`; killed after 20 s. */
const run = (dir: string, args: string[]) =>
  spawnSync(process.execPath, ["--expose-gc", join(dir, "bench", "run.js"), ...args], {
    encoding: "utf8",
    timeout: 20_000,
  });

describe("bench/run.js flags", () => {
  it("--only with --docs and no previous run to keep the other suites from: refused before running, docs untouched", () => {
    const dir = copy();
    const page = readFileSync(join(dir, "docs", "benchmarks.md"), "utf8");
    const r = run(dir, ["--quick", "--only", "backtest", "--docs"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      "bench: --docs with --only needs the other suites from a previous --quick run in bench/results/latest.json, which has none of adapters, cli, engine,",
    );
    expect(r.stderr).not.toContain("bench: backtest");
    expect(readFileSync(join(dir, "docs", "benchmarks.md"), "utf8")).toBe(page);
  }, 30_000);

  it('--only "" names no suite (it ran every suite)', () => {
    const r = run(copy(), ["--only", ""]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('bench: no suite named "" in bench/suites (adapters, backtest,');
    expect(r.stderr).not.toContain("bench: adapters");
  }, 30_000);
});
