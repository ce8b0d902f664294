// `gasdigest replay ... | head -1`: when the reader of stdout goes away, a command stops quietly
// with exit code 141 (128 + SIGPIPE), as a Unix tool does; it does not blame its input file.
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { runCli } from "../helpers/cli.js";
import { FAST_DRAIN } from "../helpers/fastDrain.js";

const BIN = join(import.meta.dirname, "..", "..", "bin", "gasdigest.js");
const dir = mkdtempSync(join(tmpdir(), "gasdigest-closed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the binary, reads its first stdout line, closes the pipe; resolves with what it did. */
function headOne(args: string[]): Promise<{ first: string; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let first = "";
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += String(d);
    });
    child.stdout.on("data", (d) => {
      out += String(d);
      if (first === "" && out.includes("\n")) {
        first = out.slice(0, out.indexOf("\n"));
        child.stdout.destroy();
      }
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ first, code, stderr }));
  });
}

/** Runs a bash script (a pipeline with `echo rc=${PIPESTATUS[0]}`); resolves with its stdout. */
function bash(script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", script], { stdio: ["ignore", "pipe", "inherit"] });
    let text = "";
    child.stdout.on("data", (d) => {
      text += String(d);
    });
    child.on("error", reject);
    child.on("close", () => resolve(text));
  });
}

/** A stdout whose every write fails with `code`, as a closed pipe or a broken disk does. */
function failingStdout(code: string): Writable {
  return new Writable({
    write(_chunk, _encoding, done) {
      done(Object.assign(new Error(`write ${code}`), { code }));
    },
  });
}

describe("a command whose output is closed", () => {
  it("replay and simulate stop with exit code 141 and say nothing", async () => {
    const input = join(dir, "spike.ndjson");
    const made = await runCli(["simulate", "--blocks", "4000", "--out", input]);
    expect(made.code).toBe(0);
    // 4,000 estimate lines (about 400 KB) do not fit the pipe's buffer: the writes meet EPIPE.
    const replayed = await headOne(["replay", "--input", input]);
    expect(JSON.parse(replayed.first)).toMatchObject({ height: "1" });
    expect(replayed).toMatchObject({ code: 141, stderr: "" });

    const simulated = await headOne(["simulate", "--blocks", "100000"]);
    expect(JSON.parse(simulated.first)).toMatchObject({ height: "1" });
    expect(simulated).toMatchObject({ code: 141, stderr: "" });
  });

  it("record into /dev/stdout piped to head: written in place, no --force, exit 141", async () => {
    // A shell pipe (a FIFO): node's own child pipes are sockets, which /dev/stdout cannot open.
    // record said "/dev/stdout exists", and with --force exited 1 naming EPIPE.
    const err = join(dir, "record.err");
    const script = `"${process.execPath}" "${BIN}" record --source sim --blocks 100000 --out /dev/stdout 2>"${err}" | head -1; echo "rc=\${PIPESTATUS[0]}"`;
    const out = await bash(script);
    const [first, rc] = out.trim().split("\n");
    expect(JSON.parse(first!)).toMatchObject({ height: "1" });
    expect(rc).toBe("rc=141");
    expect(readFileSync(err, "utf8")).not.toMatch(/cannot write|exists|EPIPE/);
  });

  it("record of a few blocks into /dev/stdout piped to head: exit 141 too, nothing said", async () => {
    // The few lines are queued before the pipe's reader goes: the EPIPE is met only once they
    // are written, after the last block. record said "cannot write /dev/stdout (EPIPE: ...)",
    // exit 1. (When every line got into the pipe before head left, there is nothing to say: 0.)
    const err = join(dir, "record-short.err");
    const script = `"${process.execPath}" "${BIN}" record --source sim --blocks 3 --out /dev/stdout 2>"${err}" | head -1; echo "rc=\${PIPESTATUS[0]}"`;
    for (let run = 0; run < 3; run++) {
      const out = await bash(script);
      const [first, rc] = out.trim().split("\n");
      expect(JSON.parse(first!)).toMatchObject({ height: "1" });
      expect(["rc=141", "rc=0"]).toContain(rc);
      expect(readFileSync(err, "utf8")).not.toMatch(/cannot write|EPIPE/);
    }
  });

  it("a file flag naming /dev/stdout whose reader is already gone: exit 141, nothing said", async () => {
    // The few lines are written at the end, at once: the write meets EPIPE. simulate and
    // backtest --report said "cannot write /dev/stdout (EPIPE: broken pipe, write)", exit 1.
    const spike = join(import.meta.dirname, "..", "fixtures", "scenario-spike-500.ndjson");
    for (const args of [
      ["simulate", "--blocks", "3", "--out", "/dev/stdout"],
      ["record", "--source", "sim", "--blocks", "3", "--out", "/dev/stdout"],
      ["backtest", "--input", spike, "--strategies", "aip34", "--report", "/dev/stdout"],
    ]) {
      const err = join(dir, `${args[0]}-gone.err`);
      const command = [process.execPath, BIN, ...args].map((a) => `"${a}"`).join(" ");
      const script = `(sleep 0.3; exec ${command} 2>"${err}") | true; echo "rc=\${PIPESTATUS[0]}"`;
      const out = await bash(script);
      expect(out.trim(), args[0]).toBe("rc=141");
      expect(readFileSync(err, "utf8"), args[0]).not.toMatch(/cannot write|EPIPE/);
    }
  });

  it("backtest --report /dev/stdout piped to head: exit 141, nothing said", async () => {
    // The report (80 KB) is more than the pipe holds once head has left. backtest said "cannot
    // write /dev/stdout (EPIPE: broken pipe, write)", exit 1.
    const err = join(dir, "backtest.err");
    const spike = join(import.meta.dirname, "..", "fixtures", "scenario-spike-500.ndjson");
    const script = `"${process.execPath}" "${BIN}" backtest --input "${spike}" --strategies aip34 --report /dev/stdout 2>"${err}" | head -1; echo "rc=\${PIPESTATUS[0]}"`;
    const out = await bash(script);
    const [first, rc] = out.trim().split("\n");
    expect(first).toMatch(/^500 blocks/);
    expect(rc).toBe("rc=141");
    expect(readFileSync(err, "utf8")).not.toMatch(/cannot write|EPIPE/);
  });

  it("serve keeps serving when the reader of its log goes away", async () => {
    const child = spawn(
      process.execPath,
      [BIN, "serve", "--port", "0", "--host", "127.0.0.1", "--log-level", "debug", ...FAST_DRAIN],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += String(d);
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    try {
      // The first log line names the URL; then the log's reader goes away, as `| head -1` does.
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d) => {
          out += String(d);
          if (!out.includes("\n")) return;
          child.stdout.destroy();
          resolve((JSON.parse(out.slice(0, out.indexOf("\n"))) as { url: string }).url);
        });
        child.on("error", reject);
      });
      // debug logs every request: each one below writes to the closed pipe.
      for (let i = 0; i < 5; i++) {
        const response = await fetch(`${url}/v1/estimate_gas_price`);
        expect(response.status).toBe(200);
        await response.arrayBuffer();
      }
      expect(child.exitCode).toBe(null);
      expect(stderr).toBe("");
    } finally {
      child.kill("SIGTERM");
    }
    // A stop on SIGTERM is a clean stop, log reader or not: exit 0 (it was 141), nothing said.
    expect(await exited).toBe(0);
    expect(stderr).toBe("");
  });

  it("any other write failure is an error that names the output, not the input", async () => {
    const input = join(dir, "short.ndjson");
    expect((await runCli(["simulate", "--blocks", "3000", "--out", input])).code).toBe(0);
    const stderr: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        stderr.push(String(chunk));
        done();
      },
    });
    const code = await main(["replay", "--input", input], {
      stdout: failingStdout("EIO"),
      stderr: sink,
    });
    expect(code).toBe(1);
    expect(stderr.join("")).toBe("gasdigest replay: cannot write the output (write EIO)\n");

    const closed = await main(["replay", "--input", input], {
      stdout: failingStdout("EPIPE"),
      stderr: sink,
    });
    expect(closed).toBe(141);
  });

  it.skipIf(!existsSync("/dev/full"))(
    "a full disk: each command says it cannot write, with exit code 1",
    async () => {
      const input = join(dir, "full.ndjson");
      expect((await runCli(["simulate", "--blocks", "300", "--out", input])).code).toBe(0);
      const run = (args: string[]) =>
        new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
          const full = openSync("/dev/full", "w");
          const child = spawn(process.execPath, [BIN, ...args], {
            stdio: ["ignore", full, "pipe"],
          });
          closeSync(full);
          let stderr = "";
          child.stderr!.on("data", (d) => {
            stderr += String(d);
          });
          child.on("error", reject);
          child.on("close", (code) => resolve({ code, stderr }));
        });
      // stats writes its table at once; replay and simulate line by line.
      expect(await run(["stats", "--input", input])).toEqual({
        code: 1,
        stderr:
          "gasdigest stats: cannot write the output (ENOSPC: no space left on device, write)\n",
      });
      expect(await run(["replay", "--input", input])).toEqual({
        code: 1,
        stderr:
          "gasdigest replay: cannot write the output (ENOSPC: no space left on device, write)\n",
      });
      expect(await run(["simulate", "--blocks", "10", "--out", "/dev/full"])).toEqual({
        code: 1,
        stderr:
          "gasdigest simulate: cannot write /dev/full (ENOSPC: no space left on device, write)\n",
      });
      expect(await run(["simulate", "--blocks", "10"])).toEqual({
        code: 1,
        stderr:
          "gasdigest simulate: cannot write the output (ENOSPC: no space left on device, write)\n",
      });
      // Help is a product too, serve's and publish's (whose stdout is otherwise their log):
      // it exited 0 with the text lost.
      for (const command of ["serve", "publish", "replay"])
        expect(await run([command, "--help"])).toEqual({
          code: 1,
          stderr: `gasdigest ${command}: cannot write the output (ENOSPC: no space left on device, write)\n`,
        });
      // Named by the path asked for, not the temporary file it is written under.
      const nowhere = join(dir, "no-such-dir", "x.ndjson");
      expect(await run(["simulate", "--blocks", "10", "--out", nowhere])).toEqual({
        code: 1,
        stderr: `gasdigest simulate: cannot write ${nowhere} (ENOENT: no such file or directory, open '${nowhere}')\n`,
      });
    },
    // Eight runs of the built binary, one after another: 20 s and more on a loaded 2-core machine.
    60_000,
  );

  it("stdout sent to a file that fills within the last write: exit code 1, not 0 with the output cut", async () => {
    // Node writes stdout to a file with one writeSync per chunk and took a short write as a whole
    // one: a file size limit (or a full disk) met within a command's last chunk lost the rest
    // of it without an error, and simulate, replay and backtest exited 0 with their output cut.
    const input = join(dir, "limit.ndjson");
    expect((await runCli(["simulate", "--blocks", "200", "--out", input])).code).toBe(0);
    // 8 KiB at most (bash's ulimit -f counts KiB; node ignores SIGXFSZ): each output below is
    // larger (14 to 72 KB), and is written in one chunk.
    const run = (args: string) =>
      bash(
        `ulimit -f 8; "${process.execPath}" "${BIN}" ${args} > "${join(dir, "limit.out")}"; echo "rc=$?"`,
      );
    for (const [command, args] of [
      ["simulate", "simulate --blocks 50"],
      ["replay", `replay --input "${input}"`],
      ["backtest", `backtest --input "${input}" --json`],
    ]) {
      const out = await run(`${args} 2> "${join(dir, "limit.err")}"`);
      expect(out.trim(), command).toBe("rc=1");
      expect(readFileSync(join(dir, "limit.err"), "utf8")).toBe(
        `gasdigest ${command}: cannot write the output (EFBIG: file too large, write)\n`,
      );
    }
  });

  it("replay carries on when the reader of stderr goes away: every accepted block's estimate reaches stdout", async () => {
    // 10,000 good blocks, each followed by a bad line: 10,000 reports on stderr.
    const input = join(dir, "every-other.ndjson");
    const { writeFileSync, readFileSync } = await import("node:fs");
    const lines: string[] = [];
    for (let h = 1; h <= 10_000; h++)
      lines.push(
        `{"height":"${h}","epoch":"1","gas_unit_prices":["100"]}`,
        `{"height":"${h}","epoch":"1","gas_unit_prices":["x"]}`,
      );
    writeFileSync(input, `${lines.join("\n")}\n`);
    const outPath = join(dir, "replay.out");
    const out = openSync(outPath, "w");
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, "replay", "--input", input], {
        stdio: ["ignore", out, "pipe"],
      });
      child.stderr!.once("data", () => child.stderr!.destroy());
      child.on("error", reject);
      child.on("close", resolve);
    });
    closeSync(out);
    // Exit 2: lines were rejected (it used to stop with 141 after the first estimate).
    expect(code).toBe(2);
    expect(readFileSync(outPath, "utf8").trim().split("\n")).toHaveLength(10_000);
  });

  it("stats and backtest carry on when the reader of stderr goes away, and print their table", async () => {
    // Random bytes: thousands of rejected-line reports on stderr, whose reader leaves at once.
    const input = join(dir, "noise.ndjson");
    const { randomBytes } = await import("node:crypto");
    const { writeFileSync, readFileSync } = await import("node:fs");
    writeFileSync(input, randomBytes(300_000));
    for (const args of [["stats"], ["backtest", "--strategies", "aip34"]]) {
      const outPath = join(dir, `${args[0]}.out`);
      const out = openSync(outPath, "w");
      const code = await new Promise<number | null>((resolve, reject) => {
        const child = spawn(process.execPath, [BIN, ...args, "--input", input], {
          stdio: ["ignore", out, "pipe"],
        });
        child.stderr!.once("data", () => child.stderr!.destroy());
        child.on("error", reject);
        child.on("close", resolve);
      });
      closeSync(out);
      // Exit 2: lines were rejected; the table was written all the same (it used to die of EPIPE).
      expect({ args, code }).toEqual({ args, code: 2 });
      expect(readFileSync(outPath, "utf8")).toMatch(/blocks/);
    }
  });
});
