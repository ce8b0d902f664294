import { PassThrough } from "node:stream";
import { main } from "../../src/cli/main.js";

/** Run the CLI in-process and collect its output. */
export async function runCli(argv: string[]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on("data", (d) => out.push(String(d)));
  stderr.on("data", (d) => err.push(String(d)));
  const code = await main(argv, { stdout, stderr, isTTY: false });
  return { code, stdout: out.join(""), stderr: err.join("") };
}
