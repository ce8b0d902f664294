// Issue 6's bench: GET /v1/estimate_gas_price through each framework adapter of the built
// package against the same framework's own route sending a fixed JSON body (the same
// pre-encoded bytes and headers), so each ratio is our overhead inside that framework.
// autocannon (50 connections, 127.0.0.1) runs in this process; each framework's two apps run
// in one child process (bench/servers/adapters-target.js), started one framework at a time.
// Per framework: a warm-up run each, then alternating slices (medians; bench/lib-http.js).
// Two rows per framework: requests/s, and the server's CPU time per request (steadier when
// other processes compete for the machine).
import { compareInSlices, startTarget } from "../lib-http.js";

const FRAMEWORKS = [
  ["hono-route", "Hono (fetch adapter in a route), @hono/node-server"],
  ["hono-mount", "Hono (fetch adapter via app.mount; baseline mounted the same way)"],
  ["express5", "Express 5 (middleware)"],
  ["express4", "Express 4 (middleware)"],
  ["fastify", "Fastify 5 (plugin)"],
  ["koa", "Koa 3 (middleware)"],
];

export default async function run({ quick }) {
  // quick: 2 × 0.5 s per server (about 20 s in all); full: 10 × 1 s per server.
  const plan = quick
    ? { slices: 2, seconds: 0.5, warmup: 0.2 }
    : { slices: 10, seconds: 1, warmup: 1 };
  const rows = [];
  for (const [key, label] of FRAMEWORKS) {
    const target = await startTarget("adapters-target.js", [key]);
    try {
      const url = (port) => `http://127.0.0.1:${port}/v1/estimate_gas_price`;
      const { ours, fixed } = await compareInSlices(
        target,
        { fixed: url(target.info.fixed), ours: url(target.info.ours) },
        plan,
      );
      const baseline =
        key === "hono-mount"
          ? `a fixed-body fetch handler mounted the same way, sending the same ${target.info.bytes}-byte body and headers`
          : `the framework's own route sending the same ${target.info.bytes}-byte body and headers`;
      rows.push(
        {
          name: `requests/s, ${label}`,
          ours: ours.rps,
          baseline: fixed.rps,
          unit: "req/s",
          ratio: ours.rps / fixed.rps,
          note: `baseline = ${baseline}; ratio = ours/fixed, higher is better (target >= 0.9)`,
        },
        {
          name: `server CPU per request, ${label}`,
          ours: ours.cpu,
          baseline: fixed.cpu,
          unit: "µs/req",
          ratio: fixed.cpu / ours.cpu,
          note: `baseline = ${baseline}; ratio = fixed/ours, higher is better (less sensitive to other load on the machine)`,
        },
      );
    } finally {
      await target.stop();
    }
  }
  const setup = `autocannon, 50 connections, 127.0.0.1, ${plan.slices} × ${plan.seconds} s per server in alternating slices (medians)`;
  for (const row of rows) row.note = `${setup}; ${row.note}`;
  return {
    title: "Adapters: GET /v1/estimate_gas_price, adapter vs the framework's fixed-body route",
    rows,
  };
}
