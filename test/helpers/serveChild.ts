// `gasdigest serve` (the built binary) in a child process, for tests that measure what a peer
// can make the server hold: resident memory and open file descriptors read from /proc.
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";

const bin = join(import.meta.dirname, "..", "..", "bin", "gasdigest.js");

export interface ServeChild {
  child: ChildProcess;
  port: number;
  /** Resident memory of the child now, in MB (VmRSS of /proc/PID/status). */
  rss(): number;
  /** The largest `rss()` seen by the sampler so far (sampled every 50 ms). */
  peakRss(): number;
  /** Open file descriptors of the child. */
  fds(): number;
  /** Whether the child is still running. */
  alive(): boolean;
  /** Every log line the child wrote so far. */
  logs: string[];
  /** Resolves with the exit code once the child has exited. */
  exited: Promise<number | null>;
  /** SIGKILL it if still running, and wait for it. */
  kill(): Promise<void>;
}

/**
 * Start `gasdigest serve --port 0 ...args` on the simulated chain and wait until it serves.
 * `ulimit` runs it with that open-file limit (through sh).
 */
export async function startServeChild(
  args: readonly string[] = [],
  { ulimit }: { ulimit?: number } = {},
): Promise<ServeChild> {
  const argv = [bin, "serve", "--port", "0", "--interval-ms", "100", ...args];
  const child =
    ulimit === undefined
      ? spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "pipe"] })
      : spawn("sh", ["-c", `ulimit -n ${ulimit} && exec "$0" "$@"`, process.execPath, ...argv], {
          stdio: ["ignore", "pipe", "pipe"],
        });
  const logs: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  child.stderr!.on("data", (d) => logs.push(String(d)));
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`serve did not start: ${logs.join("")}`)),
      15_000,
    );
    lines.on("line", (line) => {
      if (logs.length < 10_000) logs.push(line);
      const m = /"url":"http:\/\/127\.0\.0\.1:(\d+)"/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    exited.then((code) => reject(new Error(`serve exited (${code}): ${logs.join("")}`)));
  });
  // The first block makes the estimate answer 200.
  await new Promise<void>((resolve) => {
    const check = () =>
      logs.some((l) => l.includes("first block ingested")) ? resolve() : setTimeout(check, 20);
    check();
  });
  const rss = () => {
    const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  };
  let peak = rss();
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, rss());
    } catch {
      // exited
    }
  }, 50);
  exited.then(() => clearInterval(sampler));
  let code: number | null | undefined;
  exited.then((c) => {
    code = c;
  });
  return {
    child,
    port,
    rss,
    peakRss: () => peak,
    fds: () => readdirSync(`/proc/${child.pid}/fd`).length,
    alive: () => code === undefined,
    logs,
    exited,
    async kill() {
      clearInterval(sampler);
      if (code === undefined) child.kill("SIGKILL");
      await exited;
    },
  };
}
