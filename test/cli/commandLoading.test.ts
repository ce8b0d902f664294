// The built CLI loads the one command it runs: `--version` and `--help` load none, a command
// its own module and not the others' (each of which brings the HTTP stack, the sources or the
// backtest). A module hook writes down every file of dist/cli the binary loads.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { root } from "../helpers/child.js";

const COMMANDS = ["serve", "replay", "simulate", "backtest", "stats", "record", "publish"];
const dir = mkdtempSync(join(tmpdir(), "gasdigest-command-loading-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(
  join(dir, "hooks.mjs"),
  `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  const m = /\\/dist\\/cli\\/([^/]+)\\.js$/.exec(url);
  if (m) appendFileSync(new URL("./loaded", import.meta.url), m[1] + "\\n");
  return next(url, context);
}
`,
);
writeFileSync(
  join(dir, "register.mjs"),
  'import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n',
);

/** Run the built binary with `argv`: its stdout, exit code and the command modules it loaded. */
function run(argv: string[]) {
  rmSync(join(dir, "loaded"), { force: true });
  const r = spawnSync(
    process.execPath,
    ["--import", join(dir, "register.mjs"), join(root, "bin", "gasdigest.js"), ...argv],
    { encoding: "utf8", timeout: 15_000 },
  );
  const loaded = readFileSync(join(dir, "loaded"), "utf8").split("\n");
  return {
    status: r.status,
    stdout: r.stdout,
    commands: COMMANDS.filter((c) => loaded.includes(c)),
  };
}

describe("the CLI loads the command it runs", () => {
  it("--version prints the package's version and loads no command", () => {
    const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      version: string;
    };
    expect(run(["--version"])).toEqual({ status: 0, stdout: `${version}\n`, commands: [] });
  });

  it("--help lists every command and loads none", () => {
    const r = run(["--help"]);
    expect(r.status).toBe(0);
    for (const c of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^  ${c} +\\S`, "m"));
    expect(r.commands).toEqual([]);
  });

  it("a command loads its own module only; help COMMAND loads that command", () => {
    const simulated = run(["simulate", "--blocks", "1"]);
    expect(simulated.status).toBe(0);
    expect(simulated.stdout).toMatch(/^\{"height":"1"/);
    expect(simulated.commands).toEqual(["simulate"]);
    const help = run(["help", "stats"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: gasdigest stats/);
    expect(help.commands).toEqual(["stats"]);
  });
});
