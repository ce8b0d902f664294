// The suite's temporary files go with the run (test/helpers/tempRoot.ts): every tmpdir() of the
// tests and of the processes they start is the run's folder, which the teardown removes.
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { basename, dirname } from "node:path";
import { describe, expect, it } from "vitest";

describe("the tests' temporary folder", () => {
  it("is one folder of this run, for the tests and for the processes they start", () => {
    const root = tmpdir();
    expect(basename(root)).toMatch(/^gasdigest-test-/);
    // Not the system's folder itself: removing the run's folder removes only the run's files.
    expect(dirname(root)).not.toBe(root);
    const child = execFileSync(process.execPath, ["-p", "require('node:os').tmpdir()"], {
      encoding: "utf8",
    });
    expect(child.trim()).toBe(root);
  });
});
