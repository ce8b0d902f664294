// Child process for bench/suites/http.js: serves GET /v1/estimate_gas_price two ways on
// 127.0.0.1 and prints their ports as one JSON line. Each line read on stdin is answered with
// the CPU time (µs) this process used since the previous one. Exits when stdin closes.
//   ours: createServer() from the built node adapter (handler, routing, negotiation, headers)
//   bare: node:http writing the same pre-encoded body with the same headers, nothing else
import http from "node:http";
import { createServer, listen } from "../../dist/adapters/node/index.js";
import { createEngine } from "../../dist/core/createEngine.js";
import { aip34 } from "../../dist/strategies/aip34.js";

const engine = createEngine({ strategy: aip34 });
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

const ours = createServer(engine, { maxStalenessMs: false });
const sample = ours.handler({ method: "GET", url: "/v1/estimate_gas_price", headers: {} });
if (sample.status !== 200) throw new Error(`unexpected status ${sample.status}`);
const body = sample.body;
const headers = { ...sample.headers };

const bare = http.createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});

const [a, b] = await Promise.all([listen(ours, { port: 0 }), listen(bare, { port: 0 })]);
process.stdout.write(`${JSON.stringify({ ours: a.port, bare: b.port, bytes: body.length })}\n`);

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
