import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  closeSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseBlockSample } from "../../src/index.js";
import { runCli } from "../helpers/cli.js";
import { until } from "../helpers/until.js";

const fixture = (name: string) => join(import.meta.dirname, "..", "fixtures", name);
const dir = mkdtempSync(join(tmpdir(), "gasdigest-simulate-"));

describe("gasdigest simulate", () => {
  it("reproduces the committed reference histories byte for byte", async () => {
    for (const scenario of ["spike", "mixed"]) {
      const out = join(dir, `${scenario}.ndjson`);
      const r = await runCli([
        "simulate",
        "--scenario",
        scenario,
        "--blocks",
        "500",
        "--seed",
        "1",
        "--block-capacity",
        "20",
        "--out",
        out,
      ]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe(`wrote 500 blocks (scenario ${scenario}, seed 1) to ${out}\n`);
      expect(readFileSync(out, "utf8")).toBe(
        readFileSync(fixture(`scenario-${scenario}-500.ndjson`), "utf8"),
      );
    }
  });

  it("writes to stdout without --out; another seed gives another chain", async () => {
    const a = await runCli(["simulate", "--scenario", "busy", "--blocks", "30", "--seed", "7"]);
    const b = await runCli(["simulate", "--scenario", "busy", "--blocks", "30", "--seed", "7"]);
    const c = await runCli(["simulate", "--scenario", "busy", "--blocks", "30", "--seed", "8"]);
    expect(a.code).toBe(0);
    expect(a.stderr).toBe("");
    expect(a.stdout).toBe(b.stdout);
    expect(c.stdout).not.toBe(a.stdout);
    const lines = a.stdout.trim().split("\n");
    expect(lines).toHaveLength(30);
    const blocks = lines.map((l) => parseBlockSample(JSON.parse(l)));
    expect(blocks.map((x) => x.height)).toEqual(
      Array.from({ length: 30 }, (_, i) => BigInt(i + 1)),
    );
    // Busy: most blocks full (250 transactions, the default capacity).
    expect(blocks.filter((x) => x.gasUnitPrices.length === 250).length).toBeGreaterThan(15);
  });

  it("exits 1 naming the problem", async () => {
    const cases: [string[], string][] = [
      [["simulate", "--scenario", "spike"], "--blocks N is required"],
      [
        ["simulate", "--blocks", "1e3"],
        '--blocks must be a whole number from 0 to 2^53-1, got "1e3"',
      ],
      [
        ["simulate", "--blocks", "5", "--seed=-1"],
        '--seed must be a whole number from 0 to 2^53-1, got "-1"',
      ],
      [
        ["simulate", "--blocks", "5", "--scenario", "calm"],
        '--scenario must be one of quiet, busy, spike, mixed, congested, got "calm"',
      ],
      [
        ["simulate", "--blocks", "5", "--block-capacity", "100001"],
        '--block-capacity must be a whole number from 1 to 100000 (got "100001")',
      ],
      [["simulate", "--blocks", "5", "--out", ""], "--out must name a file (got an empty value)"],
      [["simulate", "--blocks", "5", "--out", join(dir, "missing", "x.ndjson")], "cannot write"],
      [["simulate", "--blocks", "5", "--speed", "2"], "Unknown option '--speed'"],
      // More blocks than u64 timestamps hold: the simulator's refusal names the flag.
      [
        ["simulate", "--blocks", "100000000000000"],
        "gasdigest simulate: --blocks must be at most 73780176294839 for the timestamps to stay within 2^64-1",
      ],
    ];
    for (const [argv, message] of cases) {
      const r = await runCli(argv);
      expect(r.code, argv.join(" ")).toBe(1);
      expect(r.stderr).toContain(message);
      expect(r.stdout).toBe("");
    }
  });

  it("prints its usage with --help", async () => {
    const r = await runCli(["simulate", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "Usage: gasdigest simulate --scenario quiet|busy|spike|mixed|congested --blocks N",
    );
  });

  it("--help says a capacity above 250 is read with fullBlockTxns N, which counts the blocks it filled", async () => {
    const usage = (await runCli(["simulate", "--help"])).stdout.replace(/\s+/g, " ");
    expect(usage).toContain("Above 250, read the file with a config whose fullBlockTxns is N");
    const out = join(dir, "capacity-1000.ndjson");
    const config = join(dir, "capacity-1000.json");
    writeFileSync(config, '{"fullBlockTxns": 1000}');
    const sim = ["simulate", "--scenario", "quiet", "--blocks", "600", "--block-capacity", "1000"];
    expect((await runCli([...sim, "--out", out])).code).toBe(0);
    const filled = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((line) => parseBlockSample(JSON.parse(line)))
      .filter((b) => b.blockGasLimitReached && !(b.majorityUseCaseFraction! > 0.5)).length;
    const share = async (args: string[]) =>
      JSON.parse((await runCli(["stats", "--input", out, "--json", ...args])).stdout).fullShare;
    expect(await share(["--config", config])).toBe(filled / 600);
    // Without it, AIP-34's rule (b) counts every block of 250 transactions or more as full.
    expect(await share([])).toBeGreaterThan(filled / 600 + 0.1);
  });

  it("a write that fails leaves no cut file: the old one stays, no temporary one is left", () => {
    const out = join(dir, "cut.ndjson");
    writeFileSync(out, "the previous file\n");
    const bin = join(import.meta.dirname, "..", "..", "bin", "gasdigest.js");
    // 100 blocks of 512 bytes: far more than the 5,000 blocks below write.
    const r = spawnSync(
      "bash",
      [
        "-c",
        `ulimit -f 100; exec "${process.execPath}" "${bin}" simulate --blocks 5000 --out "${out}"`,
      ],
      { encoding: "utf8" },
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^gasdigest simulate: cannot write .*cut\.ndjson \(EFBIG/);
    expect(readFileSync(out, "utf8")).toBe("the previous file\n");
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("a name longer than its folder takes is refused before the run, named as given", async () => {
    // The temporary file's name is cut to fit, so the run went through and failed at the end,
    // quoting a temporary name (and backtest --report quoted its probe's).
    const long = join(dir, `${"a".repeat(300)}.ndjson`);
    const r = await runCli(["simulate", "--blocks", "2000", "--out", long]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `gasdigest simulate: cannot write ${long} (ENAMETOOLONG: name too long, lstat '${long}')\n`,
    );
    const report = `${long}.html`;
    const b = await runCli([
      "backtest",
      "--input",
      fixture("scenario-spike-500.ndjson"),
      "--report",
      report,
    ]);
    expect(b.code).toBe(1);
    expect(b.stderr).toBe(
      `gasdigest backtest: cannot write ${report} (ENAMETOOLONG: name too long, stat '${report}')\n`,
    );
  });

  it("interrupted (SIGINT, SIGTERM), it leaves the old file and no temporary one, and ends by the signal", async () => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      const sub = mkdtempSync(join(dir, "interrupted-"));
      const out = join(sub, "keep.ndjson");
      writeFileSync(out, "old\n");
      const bin = join(import.meta.dirname, "..", "..", "bin", "gasdigest.js");
      const child = spawn(
        process.execPath,
        [bin, "simulate", "--blocks", "5000000", "--out", out],
        {
          stdio: "ignore",
        },
      );
      const temporary = () => readdirSync(sub).filter((f) => f.endsWith(".tmp"));
      // Wait until the temporary file holds blocks.
      await until(() => temporary().some((f) => statSync(join(sub, f)).size > 100_000), 20_000);
      child.kill(signal);
      const how = await new Promise<NodeJS.Signals | null>((r) =>
        child.on("exit", (_code, sig) => r(sig)),
      );
      expect(how, signal).toBe(signal);
      expect(readFileSync(out, "utf8")).toBe("old\n");
      expect(temporary(), signal).toEqual([]);
    }
  }, 60_000);

  // A container run without an init makes the command PID 1, which the kernel spares every
  // signal it has no handler for: Ctrl-C and `docker stop` did nothing (until the kill), and
  // simulate --out dropped its temporary file, wrote on and failed at the end (ENOENT).
  const pidNamespaces =
    spawnSync("unshare", ["--pid", "--fork", "--mount-proc", "true"], { stdio: "ignore" })
      .status === 0;
  it.skipIf(!pidNamespaces)(
    "as PID 1 (a container without an init), a stop signal still ends it: 128 + the signal",
    async () => {
      const bin = join(import.meta.dirname, "..", "..", "bin", "gasdigest.js");
      const sub = mkdtempSync(join(dir, "pid1-"));
      const out = join(sub, "keep.ndjson");
      writeFileSync(out, "old\n");
      const record = join(sub, "record.ndjson");
      for (const [argv, signal, code] of [
        [["simulate", "--blocks", "5000000", "--out", out], "SIGTERM", 143],
        [["record", "--source", "sim", "--blocks", "5000000", "--out", record], "SIGINT", 130],
      ] as const) {
        const child = spawn(
          "unshare",
          ["--pid", "--fork", "--mount-proc", process.execPath, bin, ...argv],
          {
            stdio: "ignore",
          },
        );
        const grown = () =>
          readdirSync(sub).some(
            (f) => f !== "keep.ndjson" && statSync(join(sub, f)).size > 100_000,
          );
        await until(grown, 20_000);
        // The command is unshare's child, PID 1 of its own namespace.
        const pid = Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8"));
        process.kill(pid, signal);
        const exit = await Promise.race([
          new Promise<number | null>((r) => child.on("exit", (c) => r(c))),
          new Promise<string>((r) =>
            setTimeout(() => r("still running 5 s after the signal"), 5_000),
          ),
        ]);
        if (exit !== code) process.kill(pid, "SIGKILL");
        expect(exit, argv[0]).toBe(code);
        expect(readFileSync(out, "utf8")).toBe("old\n");
        expect(readdirSync(sub).filter((f) => f.endsWith(".tmp"))).toEqual([]);
        rmSync(record, { force: true });
      }
    },
    60_000,
  );

  it("writes through a symbolic link, never over it, and keeps a replaced file's permissions", async () => {
    const bin = join(import.meta.dirname, "..", "..", "bin", "gasdigest.js");
    const expected = (await runCli(["simulate", "--blocks", "3"])).stdout;
    // A link to a file: the target gets the blocks, the link stays a link.
    const target = join(dir, "target.ndjson");
    writeFileSync(target, "old\n");
    const link = join(dir, "link.ndjson");
    symlinkSync(target, link);
    expect((await runCli(["simulate", "--blocks", "3", "--out", link])).code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, "utf8")).toBe(expected);
    // A link to the process's own stdout (what /dev/stdout is), stdout sent to a file: the blocks
    // reach that file, where they used to replace the link with a plain file and reach nothing.
    const stdoutLink = join(dir, "my-stdout");
    symlinkSync("/proc/self/fd/1", stdoutLink);
    const captured = join(dir, "captured.ndjson");
    const fd = openSync(captured, "w");
    try {
      const r = spawnSync(
        process.execPath,
        [bin, "simulate", "--blocks", "3", "--out", stdoutLink],
        {
          stdio: ["ignore", fd, "pipe"],
          encoding: "utf8",
        },
      );
      expect(r.status, r.stderr).toBe(0);
    } finally {
      closeSync(fd);
    }
    expect(lstatSync(stdoutLink).isSymbolicLink()).toBe(true);
    expect(readFileSync(captured, "utf8")).toBe(expected);
    // A file replaced whole keeps its mode (a private file stays private).
    const secret = join(dir, "private.ndjson");
    writeFileSync(secret, "old\n");
    chmodSync(secret, 0o600);
    expect((await runCli(["simulate", "--blocks", "3", "--out", secret])).code).toBe(0);
    expect(statSync(secret).mode & 0o777).toBe(0o600);
    expect(readFileSync(secret, "utf8")).toBe(expected);
  });
});

describe("gasdigest simulate: progress off a terminal", () => {
  it("writes a line every 10 s of a long run to stderr, and none in a short one", async () => {
    // A run of millions of blocks with stderr going to a log was silent until its last line. On a
    // clock that moves 6 s at each look (one per 1,000 blocks): a line every second look.
    const out = join(dir, "progress.ndjson");
    let t = 0;
    const slow = await runCli(["simulate", "--blocks", "5000", "--out", out], {
      now: () => (t += 6_000),
    });
    expect(slow.code).toBe(0);
    const progress = slow.stderr.split("\n").filter((l) => l.startsWith("simulate: "));
    expect(progress).toEqual([
      "simulate: 2,000 of 5,000 blocks written (40%), 12 s",
      "simulate: 4,000 of 5,000 blocks written (80%), 24 s",
    ]);
    const quick = await runCli(["simulate", "--blocks", "5000", "--out", out]);
    expect(quick.code).toBe(0);
    expect(quick.stderr).not.toContain("simulate: ");
    // Standard output is the blocks alone.
    const piped = await runCli(["simulate", "--blocks", "5000"], { now: () => (t += 6_000) });
    expect(piped.stdout.trim().split("\n")).toHaveLength(5000);
    expect(piped.stderr).toContain("simulate: 2,000 of 5,000 blocks written");
  });
});
