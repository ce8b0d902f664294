// Vitest global setup of every suite (vitest*.config.ts): one temporary folder per run, removed
// when the run ends. The tests make their files and folders with `mkdtempSync(tmpdir())`, and
// the servers, CLIs and runtimes they start write theirs under `os.tmpdir()` too; with TMPDIR
// pointing here, all of it goes with the run, where each `npm test` used to leave about 65
// folders and 290 MB in /tmp. GASDIGEST_KEEP_TEST_FILES=1 keeps the folder to look at (its path
// is printed).
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** How the run folders are named. */
export const TEMP_ROOT_PREFIX = "gasdigest-test-";
/** The file in a run folder that holds the pid of the process that made it. */
const OWNER = ".owner-pid";

/** Make the run's folder, send every later `tmpdir()` there; returns the teardown. */
export default function setup(): () => void {
  const { root, teardown } = createTempRoot(
    tmpdir(),
    process.env.GASDIGEST_KEEP_TEST_FILES === "1",
  );
  // Workers and the processes they start inherit it; `os.tmpdir()` reads it on every call.
  process.env.TMPDIR = root;
  return teardown;
}

/**
 * A run folder in `base`, and its removal (or, with `keep`, a line saying where it is), which
 * also runs when the process exits: vitest ends on SIGINT and SIGTERM with `process.exit()`,
 * without a global teardown. Folders of earlier runs whose process is gone (killed outright)
 * are removed first.
 */
export function createTempRoot(base: string, keep: boolean): { root: string; teardown(): void } {
  removeAbandoned(base);
  const root = mkdtempSync(join(base, TEMP_ROOT_PREFIX));
  // Traversable by others: a test runs the CLI as another user (setpriv) in a folder of its own.
  chmodSync(root, 0o755);
  writeFileSync(join(root, OWNER), String(process.pid));
  let done = false;
  const teardown = () => {
    if (done) return;
    done = true;
    process.off("exit", teardown);
    if (keep) console.log(`test files kept in ${root}`);
    else remove(root);
  };
  process.on("exit", teardown);
  return { root, teardown };
}

/** Remove the run folders in `base` whose process no longer runs. */
function removeAbandoned(base: string): void {
  let names: string[];
  try {
    names = readdirSync(base).filter((n) => n.startsWith(TEMP_ROOT_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    let pid: number;
    try {
      pid = Number(readFileSync(join(base, name, OWNER), "utf8"));
    } catch {
      continue; // Not made by this helper, or its run is starting: not ours to judge.
    }
    if (Number.isSafeInteger(pid) && pid > 0 && !running(pid)) remove(join(base, name));
  }
}

/** Whether a process `pid` exists (one of another user's counts). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
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
