// Child process for bench/suites/adapters.js: `node adapters-target.js <framework>` serves
// GET /v1/estimate_gas_price from two apps of that framework on 127.0.0.1, prints
// {"ours": port, "fixed": port, "bytes": n} and speaks the CPU protocol of bench/lib-http.js.
//   ours:  the gasdigest adapter of the built package mounted in the app
//   fixed: the same framework's own route sending the same pre-encoded body and headers
//          (for Hono's app.mount: a fixed-body fetch handler mounted the same way)
import http from "node:http";
import { createHandler } from "../../dist/http/index.js";
import { createBenchEngine, serveCpuProtocol } from "../lib-http.js";

const PATH = "/v1/estimate_gas_price";
const framework = process.argv[2];
const engine = createBenchEngine();
const options = { maxStalenessMs: false };
const sample = createHandler(engine, options)({ method: "GET", url: PATH, headers: {} });
if (sample.status !== 200) throw new Error(`unexpected status ${sample.status}`);
const body = Buffer.from(sample.body);
const headers = { ...sample.headers };

/** Listen on 127.0.0.1:0; resolves with the port. */
const listen = (server) =>
  new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server.address().port));
  });

async function hono(variant) {
  const { Hono } = await import("hono");
  const { getRequestListener } = await import("@hono/node-server");
  const { createFetchHandler } = await import("../../dist/adapters/fetch/index.js");
  const serve = (app) => listen(http.createServer(getRequestListener(app.fetch)));
  const fixed = new Hono();
  const ours = new Hono();
  const handler = createFetchHandler(engine, options);
  if (variant === "mount") {
    // app.mount() copies every Request (new URL, new Request) before calling what it mounts:
    // the baseline is a fixed-body fetch handler mounted the same way.
    fixed.mount("/", () => new Response(body, { status: 200, headers }));
    ours.mount("/", handler);
  } else {
    fixed.get(PATH, (c) => c.body(body, 200, headers));
    ours.all("*", (c) => handler(c.req.raw));
  }
  return { ours: await serve(ours), fixed: await serve(fixed) };
}

async function express(pkg) {
  const { default: express } = await import(pkg);
  const { gasdigest } = await import("../../dist/adapters/express/index.js");
  const fixed = express();
  fixed.set("etag", false);
  fixed.get(PATH, (_req, res) => {
    res.set(headers).send(body);
  });
  const ours = express();
  ours.use(gasdigest(engine, options));
  return {
    ours: await listen(http.createServer(ours)),
    fixed: await listen(http.createServer(fixed)),
  };
}

async function fastify() {
  const { default: Fastify } = await import("fastify");
  const { gasdigest } = await import("../../dist/adapters/fastify/index.js");
  const fixed = Fastify();
  fixed.get(PATH, (_request, reply) => {
    reply.headers(headers).send(body);
  });
  const ours = Fastify();
  await ours.register(gasdigest, { engine, ...options });
  const port = async (app) => {
    await app.listen({ host: "127.0.0.1", port: 0 });
    return app.server.address().port;
  };
  return { ours: await port(ours), fixed: await port(fixed) };
}

async function koa() {
  const { default: Koa } = await import("koa");
  const { gasdigest } = await import("../../dist/adapters/koa/index.js");
  const fixed = new Koa();
  fixed.use((ctx) => {
    if (ctx.path !== PATH) return;
    ctx.set(headers);
    ctx.body = body;
  });
  const ours = new Koa();
  ours.use(gasdigest(engine, options));
  return {
    ours: await listen(http.createServer(ours.callback())),
    fixed: await listen(http.createServer(fixed.callback())),
  };
}

const servers = {
  "hono-mount": () => hono("mount"),
  "hono-route": () => hono("route"),
  express4: () => express("express4"),
  express5: () => express("express"),
  fastify,
  koa,
};
if (!servers[framework])
  throw new Error(`unknown framework ${framework}: one of ${Object.keys(servers).join(", ")}`);
const ports = await servers[framework]();
serveCpuProtocol({ ...ports, bytes: body.length });
