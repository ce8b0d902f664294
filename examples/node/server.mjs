// gasdigest on node:http, no framework: node examples/node/server.mjs (after npm run build)
import { aip34, createEngine, simulator } from "gasdigest";
import { createServer, listen } from "gasdigest/node";

const engine = createEngine({ strategy: aip34() });
engine.connect(simulator({ clock: "wall" })); // a simulated chain: one block every 250 ms

const server = createServer(engine); // routes under /v1, the explorer at /v1/spec
const { port } = await listen(server, { port: Number(process.env.PORT ?? 8080) });
console.log(`gasdigest on http://127.0.0.1:${port}/v1/estimate_gas_price`);

for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.shutdown());
