// gasdigest as a Fastify plugin: node examples/fastify/server.mjs
import Fastify from "fastify";
import { aip34, createEngine, simulator } from "gasdigest";
import { gasdigest } from "gasdigest/fastify";

const engine = createEngine({ strategy: aip34() });
engine.connect(simulator({ clock: "wall" })); // a simulated chain: one block every 250 ms

const app = Fastify();
app.get("/", async () => "my app");
await app.register(gasdigest, { engine, prefix: "/chain" }); // app.gasdigest is the engine

const address = await app.listen({ host: "127.0.0.1", port: Number(process.env.PORT ?? 8080) });
console.log(`gasdigest on ${address}/chain/v1/estimate_gas_price`);

// app.close() also closes the engine (option closeEngine, default true).
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => app.close());
