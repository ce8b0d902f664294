import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

export const root = join(import.meta.dirname, "..", "..");

/**
 * Run an ES module snippet in a fresh Node process against the built package (`dist/`, which
 * `npm test` builds first) and return what it printed on its last stdout line (JSON), plus the
 * process's peak resident set size in MB. The snippet gets `dist` (the dist folder URL) and
 * `done(value)`, which prints `value` with the peak RSS and exits.
 */
export async function runChild(
  code: string,
  { timeoutMs = 120_000 }: { timeoutMs?: number } = {},
): Promise<{ value: Record<string, unknown>; maxRssMB: number; stderr: string }> {
  if (!existsSync(join(root, "dist/index.js")))
    throw new Error("dist/ is missing: run `npm run build` first (npm test does)");
  const prelude = `
const dist = ${JSON.stringify(`${new URL(`file://${join(root, "dist")}`).href}/`)};
const done = (value) => {
  process.stdout.write("\\n" + JSON.stringify({ ...value, maxRssKB: process.resourceUsage().maxRSS }) + "\\n");
  process.exit(0);
};
`;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--input-type=module", "-e", prelude + code],
      { cwd: root, timeout: timeoutMs, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        if (error)
          return reject(new Error(`child failed: ${error.message}\n${stderr.slice(0, 4000)}`));
        const last = stdout.trim().split("\n").pop() ?? "{}";
        const value = JSON.parse(last) as Record<string, unknown>;
        resolve({ value, maxRssMB: Number(value.maxRssKB) / 1024, stderr });
      },
    );
  });
}
