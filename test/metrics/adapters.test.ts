// Every adapter takes the `metrics` option: requests are recorded and GET /metrics answers the
// scrape (at the root of the mount point), over a real socket on 127.0.0.1.
import http from "node:http";
import { getRequestListener } from "@hono/node-server";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import Koa from "koa";
import { afterEach, describe, expect, it } from "vitest";
import { gasdigest as expressGasdigest } from "../../src/adapters/express/index.js";
import { gasdigest as fastifyGasdigest } from "../../src/adapters/fastify/index.js";
import { createFetchHandler } from "../../src/adapters/fetch/index.js";
import { gasdigest as koaGasdigest } from "../../src/adapters/koa/index.js";
import { createServer, listen } from "../../src/adapters/node/index.js";
import type { Engine } from "../../src/core/createEngine.js";
import type { HandlerOptions } from "../../src/http/handlerOptions.js";
import { createMetrics } from "../../src/metrics.js";
import { ESTIMATE, engineWithBlocks, listenLocal, request } from "../adapters/contract.js";
import { parsePrometheusText, sampleValue } from "./parsePrometheusText.js";

type Serve = (
  engine: Engine,
  options: HandlerOptions,
  mount: string,
) => Promise<{ base: string; close(): Promise<void> }>;

const hostNode = (listener: http.RequestListener) => listenLocal(http.createServer(listener));

const TARGETS: [string, Serve][] = [
  [
    "node server",
    async (engine, options, mount) => {
      const server = createServer(engine, options);
      if (mount === "") {
        const { port } = await listen(server, { host: "127.0.0.1", port: 0 });
        return { base: `http://127.0.0.1:${port}`, close: () => server.shutdown() };
      }
      const { origin, close } = await hostNode((req, res) => {
        req.url = (req.url ?? "/").slice(mount.length) || "/";
        server.emit("request", req, res);
      });
      return { base: origin + mount, close: () => close().then(() => server.shutdown()) };
    },
  ],
  [
    "Express",
    async (engine, options, mount) => {
      const app = express();
      app.use(mount || "/", expressGasdigest(engine, options));
      app.use((_req, res) => {
        res.status(418).send("host app");
      });
      const { origin, close } = await hostNode(app);
      return { base: origin + mount, close };
    },
  ],
  [
    "Fastify",
    async (engine, options, mount) => {
      const app = Fastify();
      await app.register(fastifyGasdigest, { engine, ...options, prefix: mount });
      const origin = await app.listen({ host: "127.0.0.1", port: 0 });
      return { base: origin + mount, close: () => app.close() };
    },
  ],
  [
    "Koa",
    async (engine, options, mount) => {
      const app = new Koa();
      app.use(koaGasdigest(engine, { ...options, prefix: mount }));
      app.use((ctx) => {
        ctx.status = 418;
      });
      const { origin, close } = await hostNode(app.callback());
      return { base: origin + mount, close };
    },
  ],
  [
    "fetch (Hono)",
    async (engine, options, mount) => {
      const app = new Hono();
      const handler = createFetchHandler(engine, { ...options, prefix: mount });
      app.all("*", (c) => handler(c.req.raw));
      const { origin, close } = await hostNode(getRequestListener(app.fetch));
      return { base: origin + mount, close };
    },
  ],
];

const running: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of running.splice(0)) await close();
});

for (const [name, serve] of TARGETS)
  describe(`${name}: the metrics option`, () => {
    for (const mount of ["", "/chain"])
      it(`records requests and serves GET/HEAD /metrics (mounted at "${mount || "/"}")`, async () => {
        const engine = engineWithBlocks();
        const metrics = createMetrics({ engine, defaultMetrics: false });
        const { base, close } = await serve(engine, { metrics, maxStalenessMs: false }, mount);
        running.push(close);
        expect((await request(`${base}/v1/estimate_gas_price`)).text).toBe(ESTIMATE);
        expect((await request(`${base}/v1/estimate_gas_price`)).status).toBe(200);
        expect((await request(`${base}/v1/nope`)).status).toBe(404);

        const scrape = await request(`${base}/metrics`);
        expect(scrape.status).toBe(200);
        expect(scrape.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8");
        const m = parsePrometheusText(scrape.text);
        const route = "/v1/estimate_gas_price";
        expect(sampleValue(m, "gasdigest_http_requests_total", { route, status: "200" })).toBe(2);
        expect(
          sampleValue(m, "gasdigest_http_requests_total", { route: "unmatched", status: "404" }),
        ).toBe(1);
        expect(sampleValue(m, "gasdigest_http_request_duration_seconds_count", { route })).toBe(2);
        expect(sampleValue(m, "gasdigest_block_height")).toBe(3);

        const head = await request(`${base}/metrics`, { method: "HEAD" });
        expect(head.status).toBe(200);
        expect(head.body.length).toBe(0);
        // The scrapes themselves are recorded under their route.
        const again = parsePrometheusText((await request(`${base}/metrics`)).text);
        expect(
          sampleValue(again, "gasdigest_http_requests_total", { route: "/metrics", status: "200" }),
        ).toBe(2);
      });

    it("metricsPath: false records requests but serves no scrape; a custom path is served", async () => {
      const engine = engineWithBlocks();
      const metrics = createMetrics({ engine, defaultMetrics: false });
      const off = await serve(engine, { metrics, metricsPath: false, maxStalenessMs: false }, "");
      running.push(off.close);
      expect((await request(`${off.base}/v1/estimate_gas_price`)).status).toBe(200);
      expect((await request(`${off.base}/metrics`)).status).not.toBe(200);
      const m = parsePrometheusText((await metrics.scrape()).body);
      expect(
        sampleValue(m, "gasdigest_http_requests_total", {
          route: "/v1/estimate_gas_price",
          status: "200",
        }),
      ).toBe(1);

      const other = createMetrics({ engine, defaultMetrics: false });
      const custom = await serve(
        engine,
        { metrics: other, metricsPath: "/internal/prom", maxStalenessMs: false },
        "",
      );
      running.push(custom.close);
      const scrape = await request(`${custom.base}/internal/prom`);
      expect(scrape.status).toBe(200);
      expect(sampleValue(parsePrometheusText(scrape.text), "gasdigest_block_height")).toBe(3);
    });
  });
