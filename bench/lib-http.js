// Shared by the HTTP benches (suites/http.js, suites/adapters.js) and the servers they start
// (servers/*.js). The servers under test run in a child process so the load generator
// (autocannon, in the suite's process) does not share their event loop. Protocol: the child
// prints one JSON line (its ports), then answers each line read on stdin with the CPU time
// (µs) it used since the previous one, and exits when stdin closes.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import autocannon from "autocannon";
import { createEngine } from "../dist/core/createEngine.js";
import { aip34 } from "../dist/strategies/aip34.js";

/** Suite side: start `bench/servers/<script>` with `args`; resolves with its first JSON line. */
export function startTarget(script, args = []) {
  const path = new URL(`./servers/${script}`, import.meta.url).pathname;
  const child = spawn(process.execPath, [path, ...args], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout });
  const queue = [];
  let waiting;
  lines.on("line", (line) => {
    if (waiting) {
      const w = waiting;
      waiting = undefined;
      w(line);
    } else queue.push(line);
  });
  const next = () =>
    new Promise((resolve) => {
      if (queue.length > 0) resolve(queue.shift());
      else waiting = resolve;
    });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`bench target exited early (code ${code})`)));
    next().then((line) =>
      resolve({
        child,
        next,
        info: JSON.parse(line),
        /** Close stdin and wait for the child to exit. */
        stop: () => {
          child.stdin.end();
          return exited;
        },
      }),
    );
  });
}

/** CPU µs the target used since the previous call. */
export async function cpu(target) {
  target.child.stdin.write("\n");
  return Number(await target.next());
}

/**
 * One autocannon run (50 connections) of about `seconds` against `url`: requests/s (over the
 * measured duration) and the target's CPU µs per request. Sampling every 100 ms lets runs
 * shorter than a second end on time.
 */
export async function slice(target, url, seconds) {
  await cpu(target);
  const result = await autocannon({ url, connections: 50, duration: seconds, sampleInt: 100 });
  const used = await cpu(target);
  if (result.errors || result.timeouts || result.non2xx)
    throw new Error(
      `${url}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`,
    );
  return {
    rps: result.requests.total / result.duration,
    cpuPerRequest: used / result.requests.total,
  };
}

export const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Measure the servers at `urls` ({ name: url }) in the same run: a warm-up run each, then
 * `slices` rounds in which every server gets one `seconds`-long slice, the order rotating
 * each round so none is always first. Returns { name: { rps, cpu } } (medians over slices).
 */
export async function compareInSlices(target, urls, { slices, seconds, warmup }) {
  const names = Object.keys(urls);
  for (const name of names) await slice(target, urls[name], warmup);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < slices; i++)
    for (let j = 0; j < names.length; j++) {
      const name = names[(i + j) % names.length];
      samples[name].push(await slice(target, urls[name], seconds));
    }
  return Object.fromEntries(
    names.map((n) => [
      n,
      {
        rps: median(samples[n].map((s) => s.rps)),
        cpu: median(samples[n].map((s) => s.cpuPerRequest)),
      },
    ]),
  );
}

/** Server side: an engine holding 200 blocks of a busy chain (every third block full). */
export function createBenchEngine() {
  const engine = createEngine({ strategy: aip34() });
  for (let h = 1; h <= 200; h++) {
    const prices = Array.from({ length: h % 3 === 0 ? 250 : 40 }, (_, i) =>
      String(100 + ((h * 7 + i) % 400)),
    );
    engine.ingest({
      height: String(h),
      epoch: "1",
      chain_id: 4,
      timestamp_usec: String(1_700_000_000_000_000 + h * 250_000),
      first_version: String(h * 1000),
      last_version: String(h * 1000 + 999),
      gas_unit_prices: prices,
    });
  }
  return engine;
}

/** Server side: print `info` as the first line, then answer CPU queries on stdin until it closes. */
export function serveCpuProtocol(info) {
  process.stdout.write(`${JSON.stringify(info)}\n`);
  let last = process.cpuUsage();
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    for (let i = 0; i < chunk.split("\n").length - 1; i++) {
      const used = process.cpuUsage(last);
      last = process.cpuUsage();
      process.stdout.write(`${used.user + used.system}\n`);
    }
  });
  process.stdin.on("end", () => process.exit(0));
}

/**
 * Suite side: the two rows every server comparison reports, requests/s and server CPU per
 * request, each as ours against the baseline (`setup` says how it was measured).
 */
export function throughputRows({ subject, ours, baseline, setup, target, versus }) {
  return [
    {
      name: `requests/s, ${subject}`,
      ours: ours.rps,
      baseline: baseline.rps,
      unit: "req/s",
      ratio: ours.rps / baseline.rps,
      note: `${setup}; ratio = ${versus}, higher is better (target >= ${target})`,
    },
    {
      name: `server CPU per request, ${subject}`,
      ours: ours.cpu,
      baseline: baseline.cpu,
      unit: "µs/req",
      ratio: baseline.cpu / ours.cpu,
      note: `${setup}; ratio = ${versus.split("/").reverse().join("/")}, higher is better`,
    },
  ];
}
