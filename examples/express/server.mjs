// gasdigest as Express middleware (Express 4 or 5): node examples/express/server.mjs
import express from "express";
import { aip34, createEngine, simulator } from "gasdigest";
import { gasdigest } from "gasdigest/express";

const engine = createEngine({ strategy: aip34() });
engine.connect(simulator({ clock: "wall" })); // a simulated chain: one block every 250 ms

const app = express();
app.use("/chain", gasdigest(engine)); // other paths go on to next()
app.get("/", (_req, res) => res.send("my app"));

const server = app.listen(Number(process.env.PORT ?? 8080), "127.0.0.1", () => {
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
  console.log(`gasdigest on http://127.0.0.1:${port}/chain/v1/estimate_gas_price`);
});
for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, () => server.close(() => engine.close()));
