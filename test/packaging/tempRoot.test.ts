// The suite's temporary files go with the run (test/helpers/tempRoot.ts): every tmpdir() of the
// tests and of the processes they start is the run's folder, which the teardown removes.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTempRoot, TEMP_ROOT_PREFIX } from "../helpers/tempRoot.js";

describe("the tests' temporary folder", () => {
  it("is one folder of this run, for the tests and for the processes they start", () => {
    const root = tmpdir();
    expect(basename(root).startsWith(TEMP_ROOT_PREFIX)).toBe(true);
    const child = spawnSync(process.execPath, ["-p", "require('node:os').tmpdir()"], {
      encoding: "utf8",
    });
    expect(child.stdout.trim()).toBe(root);
  });

  it("is removed by the teardown, or kept when asked; a killed run's folder goes at the next", () => {
    const base = mkdtempSync(join(tmpdir(), "temp-root-"));
    // A folder of a run whose process is gone (an exited child's pid), one of a live process.
    const gonePid = spawnSync(process.execPath, ["-e", ""]).pid;
    const folder = (name: string, pid: number) => {
      mkdirSync(join(base, name));
      writeFileSync(join(base, name, ".owner-pid"), String(pid));
      return join(base, name);
    };
    const abandoned = folder(`${TEMP_ROOT_PREFIX}gone`, gonePid);
    const live = folder(`${TEMP_ROOT_PREFIX}live`, process.pid);

    const run = createTempRoot(base, false);
    expect(dirname(run.root)).toBe(base);
    expect(statSync(run.root).mode & 0o777).toBe(0o755);
    expect(existsSync(abandoned)).toBe(false);
    expect(existsSync(live)).toBe(true);
    writeFileSync(join(run.root, "file"), "x");
    run.teardown();
    expect(existsSync(run.root)).toBe(false);

    const kept = createTempRoot(base, true);
    kept.teardown();
    expect(existsSync(kept.root)).toBe(true);
  });
});
