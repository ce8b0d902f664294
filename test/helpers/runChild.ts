import { spawn } from "node:child_process";
import { join } from "node:path";

const BIN = join(import.meta.dirname, "..", "..", "bin", "gasdigest.js");
const REPORT_MAX_RSS = join(import.meta.dirname, "reportMaxRss.cjs");

/** What a child `gasdigest` process did: exit code, output and peak resident memory. */
export interface ChildRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Peak resident set size of the child, in MiB. */
  maxRssMiB: number;
}

/**
 * Run the built `gasdigest` CLI in a child process (so a test can read its peak memory, and a
 * crash cannot take the test runner down), killing it after `timeoutMs`; `nodeFlags` go to node
 * itself (`["--max-old-space-size=64"]`).
 *
 * @example
 * const r = await runGasdigest(["record", "--source", `aptos:${url}`, "--blocks", "5", "--out", file]);
 * expect(r.maxRssMiB).toBeLessThan(512);
 */
export function runGasdigest(
  argv: string[],
  timeoutMs = 60_000,
  nodeFlags: readonly string[] = [],
): Promise<ChildRun> {
  const child = spawn(process.execPath, [...nodeFlags, "--require", REPORT_MAX_RSS, BIN, ...argv], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += String(d);
  });
  child.stderr.on("data", (d) => {
    stderr += String(d);
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      const kb = /max_rss_kb (\d+)/.exec(stderr);
      resolve({ code, stdout, stderr, maxRssMiB: kb ? Number(kb[1]) / 1024 : Number.NaN });
    });
  });
}
