import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAptosFlags } from "../../src/cli/aptosFlags.js";
import { PUBLISH_USAGE, parsePublishFlags, RETAIN_MARGIN } from "../../src/cli/publishFlags.js";
import { speedFlag } from "../../src/cli/sourceSpec.js";
import { runCli } from "../helpers/cli.js";
import { noNodeUrl } from "../helpers/freePort.js";

/** A node URL nothing listens on (not port 1 or 9: Fetch "bad ports" are refused up front). */
const NO_NODE = await noNodeUrl();

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
        ["--source", `aptos:${NO_NODE}/v1`, "--poll-ms", "3600001"],
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
        ["--source", `aptos:${NO_NODE}/v1`, "--poll-ms", "0"],
        '--poll-ms must be a whole number from 1 to 3600000 (got "0")',
      ],
      [["--source", "sim", "--stream", ""], "--stream must not be empty"],
      [
        ["--source", "ndjson:/nonexistent/chain.ndjson"],
        "cannot read /nonexistent/chain.ndjson (ENOENT: no such file or directory, stat '/nonexistent/chain.ndjson')",
      ],
      // A flag of another source is refused, not silently ignored.
      [["--source", "sim", "--poll-ms", "100"], "--poll-ms only applies to --source aptos:URL"],
      [["--source", "sim", "--speed", "2"], "--speed only applies to --source ndjson:PATH"],
      [
        ["--source", "ndjson:/nonexistent/chain.ndjson", "--interval-ms", "5"],
        "--interval-ms only applies to --source sim",
      ],
      [["--source", `aptos:${NO_NODE}/v1`, "--seed", "3"], "--seed only applies to --source sim"],
    ];
    for (const [flags, message] of cases) {
      const r = await runCli(["publish", "--to", NO_REDIS, ...flags]);
      expect(r.code, flags.join(" ")).toBe(1);
      expect(firstLine(r.stderr)).toBe(`gasdigest publish: ${message}`);
      expect(r.stdout, "nothing logged: the command never started").toBe("");
    }
  });

  it("aptos flags at their bounds: --lookahead-blocks may equal --concurrency, --concurrency at most 64, --max-retry-after-ms 0", () => {
    const spec = { kind: "aptos", url: `${NO_NODE}/v1` } as const;
    expect(parseAptosFlags({ concurrency: "64", "max-retry-after-ms": "0" }, spec)).toEqual({
      concurrency: 64,
      maxRetryAfterMs: 0,
    });
    expect(() => parseAptosFlags({ concurrency: "65" }, spec)).toThrow(
      '--concurrency must be a whole number from 1 to 64 (got "65")',
    );
    expect(parseAptosFlags({ concurrency: "8", "lookahead-blocks": "8" }, spec)).toEqual({
      concurrency: 8,
      lookaheadBlocks: 8,
    });
    expect(() => parseAptosFlags({ concurrency: "8", "lookahead-blocks": "7" }, spec)).toThrow(
      "--lookahead-blocks must not be below --concurrency (8), got 7",
    );
  });

  // A hang guard, not a speed claim: the check's regex took quadratic time on a long value that
  // is not a number (100,000 digits and a letter: 12 s; these 300,000 would take about 2 min).
  it("--speed refuses a long value that is not a number at once", { timeout: 10_000 }, () => {
    expect(["2", "0.5", "10.", ".5"].map(speedFlag)).toEqual([2, 0.5, 10, 0.5]);
    expect(() => speedFlag(`${"1".repeat(300_000)}x`)).toThrow(
      "--speed must be a positive decimal number in digits",
    );
  });

  it("--speed is a decimal number as written; a Redis URL needs a real port; help COMMAND is COMMAND --help", async () => {
    for (const speed of ["0x10", "1e3", " 5", "0", "", `1${"0".repeat(400)}`]) {
      const r = await runCli(["serve", "--source", "ndjson:/dev/null", "--speed", speed]);
      expect(r.code, speed).toBe(1);
      expect(firstLine(r.stderr)).toBe(
        `gasdigest serve: --speed must be a positive decimal number in digits, such as 2 or 0.5 (got "${speed}")`,
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

  it("no command at all is an error (the usage on stderr, exit 1); --help asks for it (stdout, exit 0)", async () => {
    const none = await runCli([]);
    expect(none.code).toBe(1);
    expect(none.stdout).toBe("");
    expect(none.stderr).toMatch(/^Usage: gasdigest <command> \[options\]\n/);
    for (const flag of ["--help", "-h", "help"]) {
      const asked = await runCli([flag]);
      expect(asked.code, flag).toBe(0);
      expect(asked.stderr, flag).toBe("");
      expect(asked.stdout, flag).toBe(none.stderr);
    }
  });

  it("an aptos: URL the node source refuses is a bad --source, with the usage: serve, record, publish", async () => {
    const cases: [string, string][] = [
      ["aptos:http://node/v1?x=1", "--source: must not carry a query or fragment"],
      ["aptos:http://node/v1#top", "--source: must not carry a query or fragment"],
      [
        "aptos:http://a%3Ab:s3cret@node/v1",
        "--source: the user name must not contain ':' once percent-decoded (Basic authentication splits user and password at the first ':')",
      ],
      // A Fetch standard "bad port": fetch never connects to it, so the command retried for ever.
      ...[6666, 1, 10080].map((port): [string, string] => [
        `aptos:http://127.0.0.1:${port}/v1`,
        `--source: port ${port} is one of the Fetch standard's "bad ports", which fetch refuses to connect to: no request would reach the node; serve it on another port (or behind a proxy on one)`,
      ]),
      [
        "aptos:https://user:s3cret@node.example:993/v1",
        `--source: port 993 is one of the Fetch standard's "bad ports", which fetch refuses to connect to: no request would reach the node; serve it on another port (or behind a proxy on one)`,
      ],
    ];
    const commands: [string, string[]][] = [
      ["serve", []],
      ["record", ["--blocks", "3", "--out", "/tmp/never-written.ndjson"]],
      ["publish", ["--to", NO_REDIS]],
    ];
    for (const [source, message] of cases)
      for (const [command, rest] of commands) {
        const r = await runCli([command, "--source", source, ...rest]);
        expect(r.code, `${command} ${source}`).toBe(1);
        expect(firstLine(r.stderr)).toBe(`gasdigest ${command}: ${message}`);
        expect(r.stderr).toContain(`\n\nUsage: gasdigest ${command}`);
        expect(r.stderr).not.toContain("s3cret");
        expect(r.stdout, "nothing logged: the command never started").toBe("");
      }
  });

  it("a negative number after a space is Node's ambiguous-argument message, readable on one line", async () => {
    const cases: [string[], string][] = [
      [["simulate", "-n", "3", "--seed", "-1"], "--seed"],
      [["replay", "-i", "f.ndjson", "--max-reported", "-1"], "--max-reported"],
    ];
    for (const [argv, flag] of cases) {
      const r = await runCli(argv);
      expect(r.code, argv.join(" ")).toBe(1);
      expect(firstLine(r.stderr)).toBe(
        `gasdigest ${argv[0]}: Option '${flag}' argument is ambiguous. Did you forget to specify the option argument for '${flag}'? To specify an option argument starting with a dash use '${flag}=-XYZ'.`,
      );
      expect(r.stderr).not.toContain("\\u000a");
      expect(r.stderr).toContain(`\n\nUsage: gasdigest ${argv[0]}`);
    }
    // A line break the user typed into a flag name is still escaped: it starts no line.
    const forged = await runCli(["replay", "--x\ngasdigest replay: all good"]);
    expect(forged.code).toBe(1);
    expect(firstLine(forged.stderr)).toBe(
      "gasdigest replay: Unknown option '--x\\u000agasdigest replay: all good'",
    );
  });

  it("publish: --keep-blocks above --retain is refused naming both, before Redis is asked", async () => {
    const cases: [string[], string][] = [
      [["--keep-blocks", "20000"], "--keep-blocks must be at most --retain (11001), got 20000"],
      [
        ["--retain", "500", "--keep-blocks", "501"],
        "--keep-blocks must be at most --retain (500), got 501",
      ],
    ];
    for (const [flags, message] of cases) {
      const argv = ["--source", "sim", "--to", NO_REDIS, ...flags];
      // Refused by the flags' check itself (a publisher that started would wait for Redis).
      await expect(parsePublishFlags(argv)).rejects.toThrow(message);
      const r = await runCli(["publish", ...argv]);
      expect(r.code, flags.join(" ")).toBe(1);
      expect(firstLine(r.stderr)).toBe(`gasdigest publish: ${message}`);
      expect(r.stderr).toContain("\n\nUsage: gasdigest publish");
      expect(r.stdout, "nothing logged: the command never started").toBe("");
    }
    // Up to --retain is taken as given.
    const same = ["--retain", "20000", "--keep-blocks", "20000"];
    const flags = await parsePublishFlags(["--source", "sim", "--to", NO_REDIS, ...same]);
    expect(flags).toMatchObject({ retain: 20000, keepBlocks: 20000 });
  });

  it("publish: the default --retain leaves room above the largest warm start", async () => {
    // A warm start reads its pages newest first while the publishers write and MAXLEN ~ trims
    // the oldest: a stream kept at exactly a calibrated replica's 10,001 gave replicas started
    // at 40-200 blocks/s 9,724-9,938 blocks.
    const base = ["--source", "sim", "--to", NO_REDIS];
    expect(await parsePublishFlags(base)).toMatchObject({ retain: 10_001 + RETAIN_MARGIN });
    const dir = mkdtempSync(join(tmpdir(), "gasdigest-retain-"));
    try {
      const config = join(dir, "anchored.json");
      // anchorBlocks 8,000: its replicas warm-start with 16,001 blocks.
      writeFileSync(config, JSON.stringify({ calibrated: { anchorBlocks: 8000 } }));
      expect(await parsePublishFlags([...base, "--config", config])).toMatchObject({
        retain: 16_001 + RETAIN_MARGIN,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // An explicit --retain is taken as given.
    expect(await parsePublishFlags([...base, "--retain", "10001"])).toMatchObject({
      retain: 10_001,
    });
    expect(PUBLISH_USAGE.replace(/\s+/g, " ")).toContain("at least 11001");
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

  it("publish --help gives the --backfill default that publish uses", async () => {
    const aptos = ["--source", `aptos:${NO_NODE}/v1`, "--to", NO_REDIS];
    const plain = await parsePublishFlags(aptos);
    // Sized for a default tdigest replica too: one block more than aip34's 121.
    expect(plain.sourceFlags.backfill).toBe(122);
    const usage = PUBLISH_USAGE.replace(/\s+/g, " ");
    expect(usage).toContain(`${plain.sourceFlags.backfill} with the defaults`);
    expect(usage).not.toContain("121 with the defaults");
  });
});
