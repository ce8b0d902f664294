import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

// Nothing listens on port 1: a command that waited for Redis there would never finish.
const NO_REDIS = "redis://127.0.0.1:1";

/** The first line of stderr: the error, before the usage text. */
const firstLine = (stderr: string) => stderr.split("\n")[0];

describe("flag errors name the flag, whichever layer finds them", () => {
  it("serve: values its sources and server refuse are reported by flag, in the flag's own range", async () => {
    const cases: [string[], string][] = [
      [
        ["--write-idle-timeout-ms", "99999999999"],
        "--write-idle-timeout-ms must be a whole number of ms from 1 to 2147483647 (got 99999999999)",
      ],
      [
        ["--base-path", "v1"],
        '--base-path must be a path such as "/v1": starts with "/", segments of URL path characters, no "//", "?", "#" or "%" (got "v1")',
      ],
      [["--host", "", "--port", "0"], '--host must be a non-empty string (got "")'],
      [
        ["--interval-ms", "99999999999"],
        '--interval-ms must be a whole number from 0 to 86400000 (got "99999999999")',
      ],
      [
        ["--source", "aptos:http://127.0.0.1:1/v1", "--poll-ms", "3600001"],
        '--poll-ms must be a whole number from 1 to 3600000 (got "3600001")',
      ],
      [["--source", NO_REDIS, "--stream", ""], "--stream must not be empty"],
    ];
    for (const [flags, message] of cases) {
      const r = await runCli(["serve", ...flags]);
      expect(r.code, flags.join(" ")).toBe(1);
      expect(firstLine(r.stderr)).toBe(`gasdigest serve: ${message}`);
    }
  });

  it("publish: every flag and the source are checked before Redis is asked (with Redis away, at once)", async () => {
    const cases: [string[], string][] = [
      [
        ["--source", "sim", "--seed", "1.5"],
        '--seed must be a whole number from 0 to 9007199254740991 (got "1.5")',
      ],
      [
        ["--source", "sim", "--interval-ms", "99999999999"],
        '--interval-ms must be a whole number from 0 to 86400000 (got "99999999999")',
      ],
      [
        ["--source", "aptos:http://127.0.0.1:1/v1", "--poll-ms", "0"],
        '--poll-ms must be a whole number from 1 to 3600000 (got "0")',
      ],
      [["--source", "sim", "--stream", ""], "--stream must not be empty"],
      [
        ["--source", "ndjson:/nonexistent/chain.ndjson"],
        "cannot read /nonexistent/chain.ndjson (ENOENT: no such file or directory, stat '/nonexistent/chain.ndjson')",
      ],
    ];
    for (const [flags, message] of cases) {
      const r = await runCli(["publish", "--to", NO_REDIS, ...flags]);
      expect(r.code, flags.join(" ")).toBe(1);
      expect(firstLine(r.stderr)).toBe(`gasdigest publish: ${message}`);
      expect(r.stdout, "nothing logged: the command never started").toBe("");
    }
  });

  it("--speed is a decimal number as written; a Redis URL needs a real port; help COMMAND is COMMAND --help", async () => {
    for (const speed of ["0x10", "1e3", " 5", "0", ""]) {
      const r = await runCli(["serve", "--source", "ndjson:/dev/null", "--speed", speed]);
      expect(r.code, speed).toBe(1);
      expect(firstLine(r.stderr)).toBe(
        `gasdigest serve: --speed must be a positive number (got "${speed}")`,
      );
    }
    const port0 = await runCli(["serve", "--source", "redis://127.0.0.1:0"]);
    expect(port0.code).toBe(1);
    expect(port0.stderr).toContain("must name a port from 1 to 65535 (got 0)");
    const help = await runCli(["help", "serve"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe((await runCli(["serve", "--help"])).stdout);
    expect(help.stdout).toMatch(/^Usage: gasdigest serve/);
    // A misspelt command after help is the unknown-command error (it printed the usage, exit 0).
    const typo = await runCli(["help", "serv"]);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('gasdigest: unknown command "serv" (did you mean "serve"?)');
    expect((await runCli(["help", "serve", "extra"])).code).toBe(1);
  });

  it("record: what the source refuses names the flag, and --blocks for the count", async () => {
    const r = await runCli([
      "record",
      "--source",
      NO_REDIS,
      "--stream",
      "",
      "--blocks",
      "3",
      "--out",
      "/tmp/never-written.ndjson",
    ]);
    expect(r.code).toBe(1);
    expect(firstLine(r.stderr)).toBe("gasdigest record: --stream must not be empty");
  });
});
