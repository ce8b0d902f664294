import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";

const BIN = join(import.meta.dirname, "..", "..", "bin", "gasdigest.js");

/** A `gasdigest` child process (the built binary) whose JSON log lines are collected. */
export interface CliProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Parsed JSON log lines of stdout, in order. */
  readonly logs: Record<string, unknown>[];
  /** Everything written to stderr. */
  readonly stderr: () => string;
  /** Wall-clock ms at spawn. */
  readonly spawnedAt: number;
  /** Resolves with the exit code (or the signal name). */
  readonly exited: Promise<number | string>;
  /** The first log line matching, waiting up to `ms`. */
  waitForLog(
    match: (line: Record<string, unknown>) => boolean,
    ms?: number,
  ): Promise<Record<string, unknown>>;
  /** Send a signal (by pid) and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/**
 * Spawn `node bin/gasdigest.js ARGS`; the caller stops it with `stop()` (by pid).
 *
 * @example
 * const replica = spawnCli("replica-1", ["serve", "--source", redisUrl, "--port", "0"]);
 * const { url } = await replica.waitForLog((l) => l.msg === "gasdigest serving");
 */
export function spawnCli(name: string, args: string[]): CliProcess {
  const spawnedAt = Date.now();
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const logs: Record<string, unknown>[] = [];
  let err = "";
  let partial = "";
  const waiters = new Set<() => void>();
  child.stdout!.on("data", (d) => {
    const text = partial + String(d);
    const lines = text.split("\n");
    partial = lines.pop()!;
    for (const line of lines) {
      if (!line.trim()) continue;
      try {
        logs.push(JSON.parse(line));
      } catch {
        logs.push({ msg: line, unparsed: true });
      }
    }
    for (const w of waiters) w();
  });
  child.stderr!.on("data", (d) => {
    err += String(d);
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once("exit", (code, signal) => {
      resolve(code ?? signal ?? "unknown");
      for (const w of waiters) w();
    }),
  );
  return {
    name,
    child,
    logs,
    stderr: () => err,
    spawnedAt,
    exited,
    waitForLog(match, ms = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = logs.find(match);
          if (hit) {
            done();
            resolve(hit);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(new Error(`${name} exited before the log line came; stderr: ${err}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${name}: no such log line within ${ms} ms; stderr: ${err}`));
        }, ms);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined)
        process.kill(child.pid, signal);
      return exited;
    },
  };
}
