// Every function that takes an options object reads it the same way: `null` and `undefined` are
// the defaults, and a misspelt option is refused with the one it likely meant, code
// `unrecognized_keys`, whichever function it was given to.
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { gasdigest as fastifyGasdigest } from "../../src/adapters/fastify/index.js";
import { createFetchHandler } from "../../src/adapters/fetch/index.js";
import { gasdigest as koaGasdigest } from "../../src/adapters/koa/index.js";
import { createServer, listen } from "../../src/adapters/node/index.js";
import { createBacktest, createSeriesRecorder, renderReport } from "../../src/backtest/index.js";
import {
  aip34,
  createEngine,
  createHandler,
  createOpenApiDocument,
  createTDigest,
  InvalidArgumentError,
  parseJsonLossless,
  ValidationError,
} from "../../src/index.js";
import { createMetrics, createMetricsServer } from "../../src/metrics.js";

const engine = createEngine({ strategy: aip34() });

/** The issues a call throws (or its promise rejects with); it must be a validation error. */
async function issuesOf(f: () => unknown) {
  try {
    await f();
  } catch (e) {
    expect(e, String(e)).toBeInstanceOf(ValidationError);
    return (e as ValidationError).issues;
  }
  throw new Error("expected a throw");
}

describe("a misspelt option names the one it likely meant, wherever it is given", () => {
  const typo = (path: string, meant: string) => ({
    path,
    message: `unknown field (did you mean ${meant}?)`,
    code: "unrecognized_keys",
  });
  const cases: [string, () => unknown, ReturnType<typeof typo>][] = [
    [
      "createSeriesRecorder",
      () => createSeriesRecorder({ strategies: ["aip34"], maxPoint: 10 } as never),
      typo("maxPoint", "maxPoints"),
    ],
    [
      "createFetchHandler",
      () => createFetchHandler(engine, { prefx: "/c" } as never),
      typo("prefx", "prefix"),
    ],
    ["koa", () => koaGasdigest(engine, { prefx: "/c" } as never), typo("prefx", "prefix")],
    [
      "createServer",
      () => createServer(engine, { maxConection: 1 } as never),
      typo("maxConection", "maxConnections"),
    ],
    ["createMetrics", () => createMetrics({ engin: engine } as never), typo("engin", "engine")],
    [
      "createMetricsServer",
      () => createMetricsServer(createMetrics({ defaultMetrics: false }), { pth: "/m" } as never),
      typo("pth", "path"),
    ],
    [
      "createBacktest",
      () => createBacktest({ strategie: [{ strategy: aip34() }] } as never),
      typo("strategie", "strategies"),
    ],
    [
      "createBacktest's strategies",
      () => createBacktest({ strategies: [{ strategy: aip34(), nme: "a" }] } as never),
      typo("strategies[0].nme", "name"),
    ],
    [
      "createEngine",
      () => createEngine({ strategy: aip34(), nowe: Date.now } as never),
      typo("nowe", "now"),
    ],
    [
      "createHandler",
      () => createHandler(engine, { basPath: "/v1" } as never),
      typo("basPath", "basePath"),
    ],
    [
      "createOpenApiDocument",
      () => createOpenApiDocument({ explorr: false } as never),
      typo("explorr", "explorer"),
    ],
    [
      "parseJsonLossless",
      () => parseJsonLossless("{}", { maxValue: 1 } as never),
      typo("maxValue", "maxValues"),
    ],
    ["listen", () => listen(createServer(engine), { portt: 0 } as never), typo("portt", "port")],
    [
      "renderReport",
      () =>
        renderReport({
          result: { strategies: [] },
          series: { strategies: [] },
          titel: "x",
        } as never),
      typo("titel", "title"),
    ],
  ];
  it.each(cases)("%s", async (_name, call, issue) => {
    expect(await issuesOf(call)).toContainEqual(issue);
  });

  it("the Fastify plugin names its own options and the handler's", async () => {
    for (const [options, issue] of [
      [{ engine, decoratr: "x" }, typo("decoratr", "decorator")],
      [{ engine, prefx: "/c" }, typo("prefx", "prefix")],
      [{ engine, closeEngin: false }, typo("closeEngin", "closeEngine")],
    ] as const) {
      const app = Fastify();
      expect(await issuesOf(() => app.register(fastifyGasdigest, options as never))).toContainEqual(
        issue,
      );
      await app.close();
    }
  });

  it("a feed's probe of the metrics is checked like options (a misspelt one saw no block)", async () => {
    const metrics = createMetrics({ engine, defaultMetrics: false });
    expect(
      await issuesOf(() => metrics.source("aptos", { newestBlock: () => 1 } as never)),
    ).toEqual([typo("probe.newestBlock", "newestBlockMs")]);
    expect(await issuesOf(() => metrics.sink("redis", { completed: true } as never))).toEqual([
      { path: "probe.completed", message: "must be a function (got true)", code: "custom" },
    ]);
    expect(metrics.source("sim", null as never)).toBeTypeOf("function");
    // A class's instance may hold fields of its own: its methods are the probe.
    class Probe {
      last = 5;
      newestBlockMs() {
        return this.last;
      }
    }
    expect(metrics.source("mine", new Probe())).toBeTypeOf("function");
    const getterThrows = Object.defineProperty({}, "completed", {
      enumerable: true,
      get() {
        throw new Error("boom");
      },
    });
    expect((await issuesOf(() => metrics.sink("x", getterThrows)))[0]!.path).toBe(
      "probe.completed",
    );
  });

  it("an array is no options object", async () => {
    expect((await issuesOf(() => createSeriesRecorder([1, 2] as never)))[0]!.message).toMatch(
      /^must be \{ strategies, maxPoints\? \}/,
    );
    expect((await issuesOf(() => createEngine([] as never)))[0]!.message).toMatch(
      /^createEngine takes an options object/,
    );
  });

  it("a key that is no plain name is quoted once, wherever the unknown field is found", async () => {
    expect(await issuesOf(() => createServer(engine, { "x y": 1 } as never))).toEqual([
      { path: '["x y"]', message: "unknown field", code: "unrecognized_keys" },
    ]);
  });

  it("a field too far from any option says what the function takes", async () => {
    expect(await issuesOf(() => listen(createServer(engine), { address: "::1" } as never))).toEqual(
      [
        {
          path: "address",
          message: "unknown field (listen takes host and port)",
          code: "unrecognized_keys",
        },
      ],
    );
  });
});

describe("null options are the defaults, everywhere", () => {
  it("handlers, servers, the document, the sketch, the metrics and the JSON reader take null", async () => {
    const handler = createHandler(engine, null as never);
    expect(handler({ method: "GET", url: "/v1/spec.json", headers: {} }).status).toBe(200);
    expect(createFetchHandler(engine, null as never)).toBeTypeOf("function");
    expect(koaGasdigest(engine, null as never)).toBeTypeOf("function");
    expect(createOpenApiDocument(null as never).servers?.[0]?.url).toBe("/v1");
    expect(createTDigest(null as never).centroidCount()).toBe(0);
    expect(parseJsonLossless("[1]", null)).toEqual([1]);
    const metrics = createMetrics(null as never);
    const metricsServer = createMetricsServer(metrics, null as never);
    expect(metricsServer.listening).toBe(false);
    const server = createServer(engine, null as never);
    const address = await listen(server, null as never);
    expect(address.address).toBe("127.0.0.1");
    await new Promise((resolve) => server.close(resolve));
  });

  it("what is no object is still named", async () => {
    expect(await issuesOf(() => createHandler(engine, 5 as never))).toEqual([
      { path: "options", message: "must be an object (got 5)", code: "invalid_type" },
    ]);
    expect(await issuesOf(() => createServer(engine, "x" as never))).toEqual([
      { path: "options", message: 'must be an object (got "x")', code: "invalid_type" },
    ]);
    const e = await issuesOf(() => renderReport(undefined as never));
    expect(e.map((i) => i.path)).toEqual(["result", "series"]);
    expect(() => renderReport(7 as never)).toThrow(InvalidArgumentError);
  });
});
