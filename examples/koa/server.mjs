// gasdigest as Koa middleware: node examples/koa/server.mjs
import { aip34, createEngine, simulator } from "gasdigest";
import { gasdigest } from "gasdigest/koa";
import Koa from "koa";

const engine = createEngine({ strategy: aip34() });
engine.connect(simulator({ clock: "wall" })); // a simulated chain: one block every 250 ms

const app = new Koa();
app.use(gasdigest(engine, { prefix: "/chain" })); // calls next() for other paths
app.use((ctx) => {
  ctx.body = "my app";
});

const server = app.listen(Number(process.env.PORT ?? 8080), "127.0.0.1", () => {
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
  console.log(`gasdigest on http://127.0.0.1:${port}/chain/v1/estimate_gas_price`);
});
for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, () => server.close(() => engine.close()));
