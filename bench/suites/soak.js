// Issue 13's soak: `gasdigest serve` (the built binary, in a child process) on the simulated
// chain, a block arriving every 250 ms, under 100 autocannon connections on
// GET /v1/estimate_gas_price for 60 s (3 s with --quick). Reports requests/s, every error
// (connection errors, timeouts, non-2xx answers), latency percentiles, and the server's resident
// memory (VmRSS of /proc/PID/status) before the load, at its peak and at the end: memory
// that grows with time under steady load is a leak.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import autocannon from "autocannon";

const bin = new URL("../../bin/gasdigest.js", import.meta.url).pathname;

function startServe() {
  const child = spawn(
    process.execPath,
    [bin, "serve", "--port", "0", "--interval-ms", "250", "--log-level", "info"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: child.stdout });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return new Promise((resolve, reject) => {
    let url;
    child.once("exit", (code) => reject(new Error(`gasdigest serve exited early (${code})`)));
    lines.on("line", (line) => {
      url ??= /"estimate":"([^"]+)"/.exec(line)?.[1];
      if (url && line.includes("first block ingested"))
        resolve({
          child,
          url,
          stop: () => {
            child.kill("SIGTERM");
            return exited;
          },
        });
    });
  });
}

const rssMb = (pid) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

export default async function run({ quick }) {
  const seconds = quick ? 3 : 60;
  const connections = 100;
  const target = await startServe();
  try {
    // Warm-up (JIT, connection setup), then memory at rest before the soak.
    await autocannon({ url: target.url, connections, duration: 1 });
    await new Promise((r) => setTimeout(r, 500));
    const rssStart = rssMb(target.child.pid);
    let rssPeak = rssStart;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, rssMb(target.child.pid));
    }, 250);
    const result = await autocannon({ url: target.url, connections, duration: seconds });
    clearInterval(sampler);
    const rssEnd = rssMb(target.child.pid);
    const errors = result.errors + result.timeouts + result.non2xx;
    const setup = `gasdigest serve, simulated chain (a block every 250 ms), autocannon ${connections} connections, ${seconds} s, 127.0.0.1`;
    const { p50, p99 } = result.latency;
    return {
      title: "Soak: gasdigest serve under steady load with blocks arriving",
      rows: [
        {
          name: "requests/s",
          ours: result.requests.total / result.duration,
          unit: "req/s",
          note: `${setup}; ${result.requests.total.toLocaleString("en-US")} requests`,
        },
        {
          name: "errors (connection errors + timeouts + non-2xx)",
          ours: errors,
          unit: "count",
          note: `${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx; target 0`,
        },
        {
          name: "latency p99 (p50 as baseline)",
          ours: p99,
          baseline: p50,
          unit: "ms",
          note: `${setup}; max ${result.latency.max} ms`,
        },
        {
          name: "server RSS at the end (at the start as baseline)",
          ours: rssEnd,
          baseline: rssStart,
          unit: "MB",
          ratio: rssStart / rssEnd,
          note: `peak ${rssPeak.toFixed(0)} MB; ratio = start/end, about 1 when memory stays flat`,
        },
      ],
      errors,
    };
  } finally {
    await target.stop();
  }
}
