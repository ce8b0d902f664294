import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { runGasdigest } from "../helpers/runChild.js";

const MIXED = "test/fixtures/scenario-mixed-500.ndjson";
const MINE = "./examples/strategies/mine.js";
const dir = mkdtempSync(join(tmpdir(), "gasdigest-strategy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Write a module into the temporary directory and return its path. */
function module(name: string, source: string): string {
  const path = join(dir, name);
  writeFileSync(path, source);
  return path;
}

describe("your own strategy from the command line", () => {
  it("backtest --strategies aip34,./examples/strategies/mine.js scores it beside aip34", async () => {
    const r = await runCli(["backtest", "--input", MIXED, "--strategies", `aip34,${MINE}`]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const rows = r.stdout.split("\n").filter((l) => l.startsWith(MINE));
    expect(rows.map((l) => l.split(/\s+/)[1])).toEqual(["deprioritized", "regular", "prioritized"]);
  });

  it("replay --strategy and the frontier take a module too", async () => {
    const replay = await runCli(["replay", "--input", MIXED, "--strategy", MINE]);
    expect(replay.code).toBe(0);
    expect(replay.stdout.trim().split("\n")).toHaveLength(500);
    const frontier = await runCli([
      "backtest",
      "--input",
      MIXED,
      "--strategies",
      MINE,
      "--frontier",
    ]);
    expect(frontier.code).toBe(0);
    // No knob to sweep: its tiers are the points.
    expect(frontier.stdout).toMatch(new RegExp(`^${MINE.replace(/[./]/g, "\\$&")}\\s+-\\s`, "m"));
  });

  it("a factory that passes the load check and fails when the engine calls it is named by its file", async () => {
    const second = module(
      "second.mjs",
      `let calls = 0;\nexport default () => { if (++calls === 2) return null; return { name: "ns", ingest() {}, estimate(m) { return { deprioritized: m, regular: m, prioritized: m }; }, reset() {} }; };\n`,
    );
    const r = await runCli(["backtest", "--input", MIXED, "--strategies", `aip34,geth,${second}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `cannot use ${second} as a strategy: its factory returned null, which lacks name, ingest, estimate, reset`,
    );
  });

  it.each([
    ["a missing file", () => join(dir, "nope.js"), "no such file"],
    [
      "no default export",
      () => module("named.mjs", "export const s = 1;\n"),
      "it has no default export (it exports s: export default the factory, e.g. export default s)",
    ],
    [
      "a factory whose error is long and on several lines",
      () =>
        module(
          "long.mjs",
          "export default () => { throw new Error('first\\n' + 'z'.repeat(5000)); };\n",
        ),
      `its factory threw: first ${"z".repeat(194)}… (5006 characters)`,
    ],
    [
      "a default export that is not a function",
      () => module("object.mjs", "export default { name: 'x' };\n"),
      "its default export is an object, not a function",
    ],
    [
      "a builder exported uncalled",
      () =>
        module(
          "builder.mjs",
          `export { aip34 as default } from ${JSON.stringify(new URL("../../dist/index.js", import.meta.url).href)};\n`,
        ),
      "its default export is the builder aip34; export aip34() instead",
    ],
    [
      "a factory that returns no strategy",
      () => module("half.mjs", "export default () => ({ name: 'half', ingest() {} });\n"),
      "which lacks estimate, reset",
    ],
    [
      "a module that does not load",
      () => module("broken.mjs", "export default (\n"),
      "it does not load",
    ],
    ["a device, read without end", () => "/dev/zero", "it is not a regular file (/dev/zero)"],
    ["a directory", () => `${dir}/`, "it is not a regular file"],
    [
      "a factory whose strategy cannot be read",
      () =>
        module(
          "getter.mjs",
          "export default () => new Proxy({}, { get() { throw new Error('get ingest'); } });\n",
        ),
      "its factory returned an object that cannot be read: get ingest",
    ],
    [
      "a factory that throws a string",
      () => module("string.mjs", "export default () => { throw 'no'; };\n"),
      'its factory threw: "no"',
    ],
    [
      "a factory whose error writes terminal control sequences",
      () =>
        module(
          "escape.mjs",
          "export default () => { throw new Error('boom\\u001b[2J\\u0007'); };\n",
        ),
      "its factory threw: boom\\u001b[2J\\u0007",
    ],
    [
      "a default export that is a proxy whose get trap throws",
      () =>
        module(
          "trapped.mjs",
          "export default new Proxy(() => undefined, { get() { throw new Error('trap'); } });\n",
        ),
      "its factory returned nothing, which lacks name, ingest, estimate, reset",
    ],
    [
      "a default export that is a revoked proxy",
      () =>
        module(
          "revoked.mjs",
          "const { proxy, revoke } = Proxy.revocable(() => undefined, {});\nrevoke();\nexport default proxy;\n",
        ),
      "its factory threw: Cannot perform 'apply' on a proxy that has been revoked",
    ],
    [
      "an async factory that rejects",
      () => module("async.mjs", "export default async () => { throw new Error('late'); };\n"),
      "its factory returned a promise (an async function)",
    ],
  ])("%s is a clear error", async (_, make, message) => {
    const path = make();
    const r = await runCli(["backtest", "--input", MIXED, "--strategies", `aip34,${path}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot use ${path} as a strategy: `);
    expect(r.stderr).toContain(message);
    const replay = await runCli(["replay", "--input", MIXED, "--strategy", path]);
    expect(replay.code).toBe(1);
    expect(replay.stderr).toContain(message);
    // One line, no stack: nothing escaped the check (a rejection left unhandled prints one).
    expect(replay.stderr).not.toMatch(/\n\s+at /);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character but newlines
    expect(replay.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
  });

  it("replay's line for an estimate of plain numbers says so within its 200 characters", async () => {
    // Large prices print like a good estimate; the reason came last and was cut off.
    const path = module(
      "numbers.mjs",
      "export default () => ({ name: 'percentiles', ingest() {}, reset() {}, estimate() { return { deprioritized: 1000000000n, regular: 1000000000n, prioritized: 1500000000 }; } });\n",
    );
    const r = await runCli(["replay", "--input", MIXED, "--strategy", path]);
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toContain(
      "line 1: strategy percentiles returned an estimate that breaks the invariants Details: got 1000000000/1000000000/1500000000 (prioritized is number, not a BigInt)",
    );
  });

  it("a CommonJS module whose exports.default is the factory (TypeScript's output) says why it is not the default export", async () => {
    // Run by node itself: vitest's loader would hand over exports.default, node gives
    // module.exports, an object, and said only "not a function".
    const path = module(
      "compiled.cjs",
      '"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\nexports.default = () => ({});\n',
    );
    const r = await runGasdigest(["replay", "--input", MIXED, "--strategy", path], 30_000);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `cannot use ${path} as a strategy: its default export is an object, not a function (a CommonJS module's exports.default, as TypeScript compiles export default, is not its default export: import() gives module.exports; assign the factory to module.exports, or make it an ES module)`,
    );
  });

  it("a TypeScript file named without a path is read as a module file, not as an unknown strategy's name", async () => {
    const r = await runCli(["replay", "--input", MIXED, "--strategy", "nope-mine.ts"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot use nope-mine.ts as a strategy: no such file");
    expect(r.stderr).not.toContain("unknown strategy");
  });

  it("a module whose top-level await never settles is named when node gives up on it", async () => {
    // Nothing is left to run, so node exits 13 without a word: the command now says which
    // module it waited for.
    const path = module("forever.mjs", "await new Promise(() => {});\nexport default () => {};\n");
    const r = await runGasdigest(["replay", "--input", MIXED, "--strategy", path], 30_000);
    expect(r.code).toBe(13);
    expect(r.stderr).toContain(
      `gasdigest: cannot use ${path} as a strategy: it never finished loading (a top-level await in it never settled)`,
    );
  });
});
