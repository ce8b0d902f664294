// gasdigest in a Hono app on @hono/node-server: node examples/hono/server.mjs
import { serve } from "@hono/node-server";
import { aip34, createEngine, simulator } from "gasdigest";
import { explorerAssets } from "gasdigest/explorer-assets";
import { createFetchHandler } from "gasdigest/fetch";
import { Hono } from "hono";

const engine = createEngine({ strategy: aip34() });
engine.connect(simulator({ clock: "wall" })); // a simulated chain: one block every 250 ms

const app = new Hono();
app.get("/", (c) => c.text("my app"));
// Hono strips /chain before calling it; explorerAssets serves the explorer at /chain/v1/spec.
app.mount("/chain", createFetchHandler(engine, { explorerAssets }));

const port = Number(process.env.PORT ?? 8080);
const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port }, (info) =>
  console.log(`gasdigest on http://127.0.0.1:${info.port}/chain/v1/estimate_gas_price`),
);
for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, () => server.close(() => engine.close()));
