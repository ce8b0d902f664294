// Issue 14's metrics cost: GET /v1/estimate_gas_price through the node server with the
// `metrics` option (`gasdigest serve --metrics`: every request counted by route and status and
// timed into the latency histogram) against the same server without it (`gasdigest serve`),
// both in one child process (bench/servers/metrics-target.js), autocannon (50 connections,
// 127.0.0.1) in this one, alternating 1-second slices (bench/lib-http.js); medians. Also the
// time of one scrape (every metric collected and formatted, prom-client's defaults included).
import { createHandler } from "../../dist/http/createHandler.js";
import { createMetrics } from "../../dist/metrics.js";
import {
  compareInSlices,
  createBenchEngine,
  median,
  startTarget,
  throughputRows,
} from "../lib-http.js";

/**
 * The handler alone, in this process: ns per estimate request with and without `metrics`
 * (steadier than requests/s on a shared machine). Rounds alternate; medians.
 */
function handlerCost(rounds, calls) {
  const engine = createBenchEngine();
  const metrics = createMetrics({ engine, maxStalenessMs: false, defaultMetrics: false });
  const handlers = {
    off: createHandler(engine, { maxStalenessMs: false }),
    on: createHandler(engine, { maxStalenessMs: false, metrics }),
  };
  const request = { method: "GET", url: "/v1/estimate_gas_price", headers: {} };
  const ns = { off: [], on: [] };
  let sink = 0;
  for (let r = 0; r < rounds + 2; r++)
    for (const name of r % 2 ? ["on", "off"] : ["off", "on"]) {
      const respond = handlers[name].respond;
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < calls; i++) sink += respond(request).status;
      const per = Number(process.hrtime.bigint() - t0) / calls;
      if (r >= 2) ns[name].push(per); // two rounds of warm-up
    }
  if (sink === 0) throw new Error("no request answered");
  return { on: median(ns.on), off: median(ns.off) };
}

export default async function run({ quick }) {
  const target = await startTarget("metrics-target.js");
  try {
    const slices = quick ? 3 : 10;
    const { on: onPort, off: offPort, scrapeMs, scrapeBytes } = target.info;
    const url = (port) => `http://127.0.0.1:${port}/v1/estimate_gas_price`;
    const { on, off } = await compareInSlices(
      target,
      { off: url(offPort), on: url(onPort) },
      { slices, seconds: 1, warmup: 1 },
    );
    const rounds = quick ? 4 : 20;
    const calls = 100_000;
    const handler = handlerCost(rounds, calls);
    const setup = `autocannon, 50 connections, 127.0.0.1, ${slices} × 1 s per server in alternating slices (medians); baseline = the same node server without the metrics option`;
    return {
      title: "Metrics: GET /v1/estimate_gas_price with and without the metrics option",
      rows: [
        ...throughputRows({
          subject: "serve --metrics vs serve",
          ours: on,
          baseline: off,
          setup,
          target: 0.95,
          versus: "with/without",
        }),
        {
          name: "handler alone: respond() to the estimate, with metrics vs without",
          ours: handler.on,
          baseline: handler.off,
          unit: "ns/req",
          ratio: handler.off / handler.on,
          note: `in process, ${rounds} alternating rounds of ${calls.toLocaleString("en-US")} calls (medians); the difference is what metrics add to a request (two clock reads, a route lookup, a few array writes); ratio = without/with`,
        },
        {
          name: "one scrape of /metrics (collect + format)",
          ours: scrapeMs,
          unit: "ms",
          note: `median of 50 scrapes in process (${scrapeBytes} bytes of text, prom-client's process metrics included); Prometheus scrapes every 15 s by default`,
        },
      ],
    };
  } finally {
    await target.stop();
  }
}
