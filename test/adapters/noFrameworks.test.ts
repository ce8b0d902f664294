// "Importing gasdigest in a project with none of the frameworks installed works" (issue 6),
// checked for real: the built package is copied into a fresh project whose node_modules holds
// only gasdigest's runtime dependencies, in a folder with no node_modules above it.
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IsolatedProject, makeIsolatedProject } from "../helpers/isolatedProject.js";

const CHECK = `
const results = {};
for (const name of ["gasdigest", "gasdigest/node", "gasdigest/backtest",
  "gasdigest/explorer-assets", "gasdigest/fetch", "gasdigest/express", "gasdigest/koa",
  "gasdigest/fastify", "gasdigest/http", "gasdigest/metrics",
  "express", "fastify", "fastify-plugin", "koa", "hono", "prom-client"]) {
  try {
    const m = await import(name);
    results[name] = { ok: true, exports: Object.keys(m).sort() };
  } catch (err) {
    results[name] = { ok: false, code: err.code, message: err.message };
  }
}
const { createEngine, aip34 } = await import("gasdigest");
const { createFetchHandler } = await import("gasdigest/fetch");
const engine = createEngine({ strategy: aip34() });
const fetchHandler = createFetchHandler(engine);
const spec = await fetchHandler(new Request("http://x/v1/spec.json"));
engine.ingest({ height: "1", epoch: "1", chain_id: 4, timestamp_usec: "1700000000000000",
  first_version: "1", last_version: "2", gas_unit_prices: [] });
const estimate = await fetchHandler(new Request("http://x/v1/estimate_gas_price"));
results.served = { spec: spec.status, title: (await spec.json()).info.title, estimate: await estimate.text() };
// The node hosts' explorer files come with the package: swagger-ui-dist is not installed here.
const { createServer, listen } = await import("gasdigest/node");
const server = createServer(engine, { closeEngine: false });
const { port } = await listen(server, { host: "127.0.0.1", port: 0 });
const bundle = await fetch("http://127.0.0.1:" + port + "/v1/spec/assets/swagger-ui-bundle.js");
const bundleBytes = (await bundle.arrayBuffer()).byteLength;
const page = await fetch("http://127.0.0.1:" + port + "/v1/spec");
await page.arrayBuffer();
await server.shutdown();
let swaggerUiDist = "installed";
try { await import("swagger-ui-dist/package.json", { with: { type: "json" } }); } catch (err) { swaggerUiDist = err.code; }
results.explorer = { bundle: bundle.status, bytes: bundleBytes, page: page.status, swaggerUiDist };
// The backtest report inlines uPlot from the package's own copy: uplot is not installed here.
const { runBacktest, createSeriesRecorder, renderReport } = await import("gasdigest/backtest");
const result = await runBacktest([{ height: 1, epoch: 1, gas_unit_prices: ["100"] }], { strategies: [{ strategy: aip34() }] });
const html = renderReport({ result, series: createSeriesRecorder({ strategies: ["aip34"] }).series() });
let uplot = "installed";
try { await import("uplot"); } catch (err) { uplot = err.code; }
results.report = { uPlot: html.includes(" (MIT licence, (c) Leon Sorokin) */"), noUrl: !html.includes("http://") && !html.includes("https://"), uplot };
// The CLI without prom-client: --metrics stops before anything starts, naming the package.
const { main } = await import("./node_modules/gasdigest/dist/cli/main.js");
const { PassThrough } = await import("node:stream");
const stderr = new PassThrough();
let err = "";
stderr.on("data", (d) => { err += d; });
const code = await main(["serve", "--metrics", "--port", "0"], { stdout: new PassThrough(), stderr });
results.cliMetrics = { code, err };
console.log(JSON.stringify(results));
`;

describe("gasdigest in a project without any framework", () => {
  let project: IsolatedProject | undefined;
  let results: Record<
    string,
    { ok: boolean; code?: string; message?: string; exports?: string[]; bytes?: number }
  >;

  beforeAll(() => {
    project = makeIsolatedProject("gasdigest-noframeworks-");
    project.write("check.mjs", CHECK);
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    delete env.NODE_PATH;
    const out = execFileSync(process.execPath, ["check.mjs"], { cwd: project.dir, env });
    results = JSON.parse(String(out));
  }, 60_000);

  afterAll(() => {
    project?.remove();
  });

  it("really has none of the frameworks (the check is meaningful)", () => {
    for (const name of ["express", "fastify", "fastify-plugin", "koa", "hono"]) {
      expect(results[name]!.ok, name).toBe(false);
      expect(results[name]!.code).toBe("ERR_MODULE_NOT_FOUND");
    }
  });

  it("imports the core, node, backtest, explorer-assets, fetch, express and koa entry points", () => {
    for (const name of [
      "gasdigest",
      "gasdigest/node",
      "gasdigest/backtest",
      "gasdigest/explorer-assets",
      "gasdigest/fetch",
      "gasdigest/express",
      "gasdigest/koa",
    ])
      expect(results[name], name).toMatchObject({ ok: true });
    expect(results.gasdigest!.exports).toEqual(
      expect.arrayContaining(["createEngine", "aip34", "simulator", "pushSource", "createHandler"]),
    );
    expect(results["gasdigest/node"]!.exports).toEqual(
      expect.arrayContaining(["createServer", "listen", "ndjsonFile", "aptosRest"]),
    );
    expect(results["gasdigest/backtest"]!.exports).toEqual(
      expect.arrayContaining(["runBacktest", "readHistory", "renderReport"]),
    );
    expect(results["gasdigest/explorer-assets"]!.exports).toEqual([
      "explorerAssets",
      "swaggerUiVersion",
    ]);
    expect(results["gasdigest/fetch"]!.exports).toEqual(["createFetchHandler"]);
    expect(results["gasdigest/express"]!.exports).toEqual(["gasdigest"]);
    expect(results["gasdigest/koa"]!.exports).toEqual(["gasdigest"]);
  });

  it("serves from the isolated project (document, estimate)", () => {
    expect(results.served).toEqual({
      spec: 200,
      title: expect.any(String),
      estimate:
        '{"deprioritized_gas_estimate":100,"gas_estimate":100,"prioritized_gas_estimate":150}',
    });
  });

  it("the node hosts serve the explorer's files without swagger-ui-dist installed (a build-time dependency)", () => {
    expect(results.explorer).toEqual({
      bundle: 200,
      bytes: expect.any(Number),
      page: 200,
      swaggerUiDist: "ERR_MODULE_NOT_FOUND",
    });
    expect(results.explorer!.bytes).toBeGreaterThan(1_000_000);
  });

  it("the backtest report inlines uPlot without the uplot package installed (a build-time dependency)", () => {
    expect(results.report).toEqual({ uPlot: true, noUrl: true, uplot: "ERR_MODULE_NOT_FOUND" });
  });

  it("gasdigest/http is gone (the handler is in the root entry) and internal modules are closed", () => {
    expect(results["gasdigest/http"]).toMatchObject({
      ok: false,
      code: "ERR_PACKAGE_PATH_NOT_EXPORTED",
    });
  });

  it("gasdigest/metrics needs prom-client, and serve --metrics says how to install it", () => {
    expect(results["prom-client"]).toMatchObject({ ok: false, code: "ERR_MODULE_NOT_FOUND" });
    expect(results["gasdigest/metrics"]).toMatchObject({ ok: false, code: "ERR_MODULE_NOT_FOUND" });
    expect(results["gasdigest/metrics"]!.message).toMatch(/Cannot find package 'prom-client'/);
    const cli = results.cliMetrics as unknown as { code: number; err: string };
    expect(cli.code).toBe(1);
    expect(cli.err).toContain("metrics need the prom-client package, which is not installed");
    expect(cli.err).toContain("npm install prom-client");
  });

  it("gasdigest/fastify fails to load with a message naming fastify-plugin", () => {
    expect(results["gasdigest/fastify"]).toMatchObject({ ok: false, code: "ERR_MODULE_NOT_FOUND" });
    expect(results["gasdigest/fastify"]!.message).toMatch(/Cannot find package 'fastify-plugin'/);
  });
});
