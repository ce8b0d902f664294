// Child process for bench/suites/metrics.js: serves GET /v1/estimate_gas_price twice on
// 127.0.0.1 from one engine, as `gasdigest serve --metrics` and `gasdigest serve` do (the node
// server; with metrics: createMetrics() of gasdigest/metrics, prom-client's process metrics
// included, given as the `metrics` option), prints their ports and the time of one scrape as
// one JSON line, then speaks the CPU protocol of bench/lib-http.js until stdin closes.
import { createServer, listen } from "../../dist/adapters/node/index.js";
import { createMetrics } from "../../dist/metrics.js";
import { createBenchEngine, serveCpuProtocol } from "../lib-http.js";

const engine = createBenchEngine();
const metrics = createMetrics({ engine, maxStalenessMs: false });
const on = createServer(engine, { maxStalenessMs: false, metrics });
const off = createServer(engine, { maxStalenessMs: false });
for (const server of [on, off]) {
  const res = server.handler({ method: "GET", url: "/v1/estimate_gas_price", headers: {} });
  if (res.status !== 200) throw new Error(`unexpected status ${res.status}`);
}

// One scrape (every metric collected and formatted): the median of 50 after 10 to warm up.
const times = [];
for (let i = 0; i < 60; i++) {
  const t0 = performance.now();
  await metrics.scrape();
  if (i >= 10) times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
const { body } = await metrics.scrape();

const [a, b] = await Promise.all([listen(on, { port: 0 }), listen(off, { port: 0 })]);
serveCpuProtocol({
  on: a.port,
  off: b.port,
  scrapeMs: times[times.length >> 1],
  scrapeBytes: Buffer.byteLength(body),
});
