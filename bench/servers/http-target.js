// Child process for bench/suites/http.js: serves GET /v1/estimate_gas_price two ways on
// 127.0.0.1 and prints their ports as one JSON line, then speaks the CPU protocol of
// bench/lib-http.js until stdin closes.
//   ours: createServer() from the built node adapter (handler, routing, negotiation, headers)
//   bare: node:http writing the same pre-encoded body with the same headers, nothing else
import http from "node:http";
import { createServer, listen } from "../../dist/adapters/node/index.js";
import { createBenchEngine, serveCpuProtocol } from "../lib-http.js";

const engine = createBenchEngine();
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
serveCpuProtocol({ ours: a.port, bare: b.port, bytes: body.length });
