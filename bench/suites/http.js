// Issue 3's bench: GET /v1/estimate_gas_price through the node server (`createServer` of the
// built adapter) against a bare node:http server writing the same pre-encoded bytes with the
// same headers. autocannon (50 connections, 127.0.0.1) runs in this process; both servers run
// in one child process (bench/servers/http-target.js), so the load generator does not share
// their event loop. The run is cut into 1-second slices alternating between the servers
// (bare, ours, ours, bare, ...) and each figure is the median over its slices, which keeps
// other load on the machine from favouring either side. Two rows: requests/s, and the
// server's CPU time per request (less sensitive to a busy machine).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import autocannon from "autocannon";

function startTarget() {
  const script = new URL("../servers/http-target.js", import.meta.url).pathname;
  const child = spawn(process.execPath, [script], { stdio: ["pipe", "pipe", "inherit"] });
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
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`bench target exited early (code ${code})`)));
    next().then((line) => resolve({ child, next, ...JSON.parse(line) }));
  });
}

/** CPU µs the target used since the previous call. */
async function cpu(target) {
  target.child.stdin.write("\n");
  return Number(await target.next());
}

async function slice(target, port, seconds) {
  await cpu(target);
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/v1/estimate_gas_price`,
    connections: 50,
    duration: seconds,
  });
  const used = await cpu(target);
  if (result.errors || result.timeouts || result.non2xx)
    throw new Error(
      `port ${port}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`,
    );
  return { rps: result.requests.total / seconds, cpuPerRequest: used / result.requests.total };
}

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export default async function run({ quick }) {
  const target = await startTarget();
  try {
    const slices = quick ? 3 : 10;
    await slice(target, target.bare, 1); // warm-up: JIT and connection setup
    await slice(target, target.ours, 1);
    const samples = { ours: [], bare: [] };
    for (let i = 0; i < slices; i++)
      for (const which of i % 2 === 0 ? ["bare", "ours"] : ["ours", "bare"])
        samples[which].push(await slice(target, target[which], 1));
    const ours = {
      rps: median(samples.ours.map((s) => s.rps)),
      cpu: median(samples.ours.map((s) => s.cpuPerRequest)),
    };
    const bare = {
      rps: median(samples.bare.map((s) => s.rps)),
      cpu: median(samples.bare.map((s) => s.cpuPerRequest)),
    };
    const setup = `autocannon, 50 connections, 127.0.0.1, ${slices} s per server in alternating 1 s slices (medians); baseline = bare node:http writing the same ${target.bytes}-byte body and headers`;
    return {
      title: "HTTP: GET /v1/estimate_gas_price, node server vs bare node:http with the same bytes",
      rows: [
        {
          name: "requests/s, createServer (node adapter)",
          ours: ours.rps,
          baseline: bare.rps,
          unit: "req/s",
          ratio: ours.rps / bare.rps,
          note: `${setup}; ratio = ours/bare, higher is better (target >= 0.9)`,
        },
        {
          name: "server CPU per request, createServer (node adapter)",
          ours: ours.cpu,
          baseline: bare.cpu,
          unit: "µs/req",
          ratio: bare.cpu / ours.cpu,
          note: `${setup}; ratio = bare/ours, higher is better`,
        },
      ],
    };
  } finally {
    target.child.stdin.end();
    await once(target.child, "exit");
  }
}
