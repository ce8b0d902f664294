// Vitest global setup of every suite (vitest*.config.ts): one temporary folder per run, removed
// when the run ends. The tests make their files and folders with `mkdtempSync(tmpdir())`, and
// the servers, CLIs and runtimes they start write theirs under `os.tmpdir()` too; with TMPDIR
// pointing here, all of it goes with the run, where each `npm test` used to leave about 65
// folders and 290 MB in /tmp. GASDIGEST_KEEP_TEST_FILES=1 keeps the folder to look at (its path
// is printed).
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Make the run's folder, send every later `tmpdir()` there; returns the teardown. */
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), "gasdigest-test-"));
  // Traversable by others: a test runs the CLI as another user (setpriv) in a folder of its own.
  chmodSync(root, 0o755);
  // Workers and the processes they start inherit it; `os.tmpdir()` reads it on every call.
  process.env.TMPDIR = root;
  return () => {
    if (process.env.GASDIGEST_KEEP_TEST_FILES) {
      console.log(`test files kept in ${root}`);
      return;
    }
    remove(root);
  };
}

/** Remove `dir`, giving back write access to folders a test took it from where needed. */
function remove(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    openUp(dir);
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch (err) {
      console.warn(`could not remove the tests' temporary folder ${dir}: ${String(err)}`);
    }
  }
}

/** Make every folder under `dir` readable, writable and searchable by its owner. */
function openUp(dir: string): void {
  try {
    chmodSync(dir, 0o700);
    for (const entry of readdirSync(dir, { withFileTypes: true }))
      if (entry.isDirectory()) openUp(join(dir, entry.name));
  } catch {
    // Not ours to open (another user's folder): the retry's error names the path.
  }
}
