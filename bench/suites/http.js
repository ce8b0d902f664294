// Issue 3's bench: GET /v1/estimate_gas_price through the node server (`createServer` of the
// built adapter) against a bare node:http server writing the same pre-encoded bytes with the
// same headers. autocannon (50 connections, 127.0.0.1) runs in this process; both servers run
// in one child process (bench/servers/http-target.js), so the load generator does not share
// their event loop. The run is cut into 1-second slices alternating between the servers
// (bare, ours, ours, bare, ...; bench/lib-http.js) and each figure is the median over its slices, which keeps
// other load on the machine from favouring either side. Two rows: requests/s, and the
// server's CPU time per request (less sensitive to a busy machine).
import { compareInSlices, startTarget, throughputRows } from "../lib-http.js";

export default async function run({ quick }) {
  const target = await startTarget("http-target.js");
  try {
    const slices = quick ? 3 : 10;
    const { ours: oursPort, bare: barePort, bytes } = target.info;
    const url = (port) => `http://127.0.0.1:${port}/v1/estimate_gas_price`;
    // Warm-up (JIT, connection setup), then alternating 1 s slices: bare, ours, ours, bare, ...
    const { ours, bare } = await compareInSlices(
      target,
      { bare: url(barePort), ours: url(oursPort) },
      { slices, seconds: 1, warmup: 1 },
    );
    const setup = `autocannon, 50 connections, 127.0.0.1, ${slices} s per server in alternating 1 s slices (medians); baseline = bare node:http writing the same ${bytes}-byte body and headers`;
    return {
      title: "HTTP: GET /v1/estimate_gas_price, node server vs bare node:http with the same bytes",
      rows: throughputRows({
        subject: "createServer (node adapter)",
        ours,
        baseline: bare,
        setup,
        target: 0.9,
        versus: "ours/bare",
      }),
    };
  } finally {
    await target.stop();
  }
}
