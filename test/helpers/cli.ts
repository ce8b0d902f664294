import { PassThrough } from "node:stream";
import { main } from "../../src/cli/main.js";

/** Run the CLI in-process and collect its output (stderr a terminal or not). */
export async function runCli(
  argv: string[],
  { isTTY = false, now }: { isTTY?: boolean; now?: () => number } = {},
) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on("data", (d) => out.push(String(d)));
  stderr.on("data", (d) => err.push(String(d)));
  const code = await main(argv, { stdout, stderr, isTTY, ...(now ? { now } : {}) });
  return { code, stdout: out.join(""), stderr: err.join("") };
}
