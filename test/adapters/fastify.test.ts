import { Writable } from "node:stream";
import Fastify, { type LightMyRequestResponse } from "fastify";
import { Subject } from "rxjs";
import { describe, expect, it } from "vitest";
import { gasdigest } from "../../src/adapters/fastify/index.js";
import { InvalidConfigError } from "../../src/core/errors.js";
import { block } from "../helpers/blocks.js";
import {
  adapterContract,
  BCS,
  ESTIMATE,
  engineWithBlocks,
  errorBody,
  request,
} from "./contract.js";

adapterContract({
  name: "Fastify",
  async serve(engine, options, mount) {
    const app = Fastify();
    app.get("/elsewhere", async () => "host app");
    await app.register(gasdigest, { engine, ...options, prefix: mount });
    const origin = await app.listen({ host: "127.0.0.1", port: 0 });
    return { base: origin + mount, close: () => app.close() };
  },
});

describe("Fastify plugin with inject()", () => {
  it("serves under the prefix and leaves the app's other routes and 404s to Fastify", async () => {
    const app = Fastify();
    app.get("/other", async () => ({ host: true }));
    await app.register(gasdigest, {
      engine: engineWithBlocks(),
      maxStalenessMs: false,
      prefix: "/chain",
    });
    const est = await app.inject("/chain/v1/estimate_gas_price");
    expect(est.statusCode).toBe(200);
    expect(est.body).toBe(ESTIMATE);
    expect(est.headers["x-aptos-block-height"]).toBe("3");
    const bcs = await app.inject({
      url: "/chain/v1/estimate_gas_price",
      headers: { accept: "application/x-bcs" },
    });
    expect(bcs.rawPayload.toString("hex")).toBe(BCS);
    expect((await app.inject("/chain/spec.yaml")).headers["content-type"]).toBe(
      "application/x-yaml",
    );
    expect((await app.inject("/chain/v1/nope")).body).toBe(
      errorBody("web_framework_error", "not found"),
    );
    expect((await app.inject("/other")).json()).toEqual({ host: true });
    // Outside its base path the request is Fastify's: its own 404, not the error object.
    const outside = await app.inject("/chain/other");
    expect(outside.statusCode).toBe(404);
    expect(outside.json()).toMatchObject({ error: "Not Found" });
    expect((await app.inject("/v1/estimate_gas_price")).statusCode).toBe(404);
    await app.close();
  });

  it("keeps the Vary an earlier hook set (@fastify/cors), adding its own", async () => {
    const app = Fastify();
    // What @fastify/cors does for a list of origins, in its onRequest hook.
    app.addHook("onRequest", async (_request, reply) => {
      reply.header("Access-Control-Allow-Origin", "https://a.example").header("Vary", "Origin");
    });
    await app.register(gasdigest, {
      engine: engineWithBlocks(),
      maxStalenessMs: false,
      corsOrigin: false,
    });
    const estimate = await app.inject("/v1/estimate_gas_price");
    expect(estimate.body).toBe(ESTIMATE);
    expect(estimate.headers.vary).toBe("Accept, Origin");
    expect((await app.inject("/v1/-/healthy")).headers.vary).toBe("Origin");
    await app.close();
  });

  it("keeps the headers an earlier hook exposes (@fastify/cors), adding the chain-state ones", async () => {
    const app = Fastify();
    // What @fastify/cors({ exposedHeaders: ["X-Request-Id"] }) does in its onRequest hook.
    app.addHook("onRequest", async (_request, reply) => {
      reply
        .header("Access-Control-Allow-Origin", "*")
        .header("Access-Control-Expose-Headers", "X-Request-Id");
    });
    await app.register(gasdigest, { engine: engineWithBlocks(), maxStalenessMs: false });
    for (const url of ["/v1/estimate_gas_price", "/v1/nope", "/spec.json"])
      expect((await app.inject(url)).headers["access-control-expose-headers"]).toBe(
        "X-Aptos-Chain-Id, X-Aptos-Ledger-Version, X-Aptos-Ledger-Oldest-Version, X-Aptos-Ledger-TimestampUsec, X-Aptos-Epoch, X-Aptos-Block-Height, X-Aptos-Oldest-Block-Height, X-Request-Id",
      );
    await app.close();
  });

  it("answers 405 before Fastify parses a request body (and the app keeps its JSON parser)", async () => {
    const app = Fastify();
    app.post("/echo", async (req) => req.body);
    await app.register(gasdigest, { engine: engineWithBlocks(), maxStalenessMs: false });
    const res = await app.inject({
      method: "POST",
      url: "/v1/estimate_gas_price",
      headers: { "content-type": "application/json" },
      payload: "{broken",
    });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe("GET, HEAD, OPTIONS");
    expect(res.body).toBe(errorBody("web_framework_error", "method not allowed"));
    const echo = await app.inject({ method: "POST", url: "/echo", payload: { a: 1 } });
    expect(echo.json()).toEqual({ a: 1 });
    await app.close();
  });

  it.each(["", "/chain"])(
    "answers what the handler answers where Fastify would refuse first (mount %j)",
    async (mount) => {
      const app = Fastify();
      app.get("/other", async () => "host app");
      await app.register(gasdigest, {
        engine: engineWithBlocks(),
        maxStalenessMs: false,
        prefix: mount,
      });
      const url = `${mount}/v1/estimate_gas_price`;
      const notAllowed = [
        405,
        "GET, HEAD, OPTIONS",
        errorBody("web_framework_error", "method not allowed"),
      ];
      const answer = (res: LightMyRequestResponse) => [res.statusCode, res.headers.allow, res.body];
      // A Content-Type that is not a media type (Fastify's 415), QUERY without one (its 400).
      for (const type of ["", ";;;", "not a media type"]) {
        const headers = { "content-type": type };
        const res = await app.inject({ method: "POST", url, headers, payload: "{}" });
        expect(answer(res), type).toEqual(notAllowed);
      }
      expect(answer(await app.inject({ method: "QUERY", url }))).toEqual(notAllowed);
      // Methods Fastify does not route (its own 404 "Route PURGE:... not found").
      for (const method of ["PURGE", "LINK", "LOCK", "PROPFIND", "SEARCH", "M-SEARCH"]) {
        expect(answer(await app.inject({ method, url })), method).toEqual(notAllowed);
        const unknown = await app.inject({ method, url: `${mount}/v1/nope` });
        expect(unknown.statusCode, method).toBe(404);
        expect(unknown.body, method).toBe(errorBody("web_framework_error", "not found"));
        const elsewhere = await app.inject({ method, url: "/other" });
        expect(elsewhere.json(), method).toMatchObject({ error: "Not Found" });
      }
      await app.close();
    },
  );

  it("passes every other error on to the application's error handler", async () => {
    const app = Fastify();
    app.setErrorHandler((error: Error, _request, reply) =>
      reply.code(418).send(`app: ${error.message}`),
    );
    app.addHook("onRequest", async (request) => {
      if (request.headers["x-deny"] !== undefined) throw new Error("denied");
    });
    await app.register(gasdigest, { engine: engineWithBlocks(), maxStalenessMs: false });
    const res = await app.inject({ url: "/v1/estimate_gas_price", headers: { "x-deny": "1" } });
    expect([res.statusCode, res.body]).toEqual([418, "app: denied"]);
    expect((await app.inject("/v1/estimate_gas_price")).body).toBe(ESTIMATE);
    await app.close();
  });

  it("decorates the instance with the engine and closes it in onClose", async () => {
    const engine = engineWithBlocks();
    const source = new Subject<unknown>();
    engine.connect(source);
    const app = Fastify();
    await app.register(gasdigest, { engine, maxStalenessMs: false });
    await app.ready();
    expect(app.gasdigest).toBe(engine);
    source.next(block(4));
    expect(app.gasdigest.snapshot()?.ledger.blockHeight).toBe(4n);
    expect(source.observed).toBe(true);
    await app.close();
    expect(source.observed).toBe(false);
  });

  it("closeEngine: false leaves the engine open; decorator names or skips the decoration", async () => {
    const engine = engineWithBlocks();
    const source = new Subject<unknown>();
    engine.connect(source);
    const app = Fastify();
    await app.register(gasdigest, { engine, closeEngine: false, prefix: "/a" });
    await app.register(gasdigest, {
      engine: engineWithBlocks(),
      decorator: "testnet",
      prefix: "/b",
    });
    await app.register(gasdigest, { engine: engineWithBlocks(), decorator: false, prefix: "/c" });
    await app.ready();
    expect(app.gasdigest).toBe(engine);
    expect(app.hasDecorator("testnet")).toBe(true);
    for (const p of ["/a", "/b", "/c"])
      expect((await app.inject(`${p}/v1`)).statusCode, p).toBe(200);
    await app.close();
    expect(source.observed).toBe(true);
    engine.close();
  });

  it("two plugins on one instance need their own prefix and their own decorator, as adapters.md says", async () => {
    const refused = async (a: object, b: object) => {
      const app = Fastify();
      try {
        await app.register(gasdigest, { engine: engineWithBlocks(), ...a });
        await app.register(gasdigest, { engine: engineWithBlocks(), ...b });
        await app.ready();
        return "ready";
      } catch (e) {
        return (e as { code?: string }).code;
      } finally {
        await app.close().catch(() => {});
      }
    };
    expect(await refused({ prefix: "/a" }, { prefix: "/b" })).toBe("FST_ERR_DEC_ALREADY_PRESENT");
    expect(await refused({ basePath: "/v1" }, { basePath: "/v2", decorator: "b" })).toBe(
      "FST_ERR_DUPLICATED_ROUTE",
    );
    expect(await refused({ prefix: "/a" }, { prefix: "/b", decorator: "b" })).toBe("ready");
  });

  it('with basePath "", unknown paths go to the app\'s not-found handler', async () => {
    const app = Fastify();
    app.setNotFoundHandler((_req, reply) => reply.code(404).send("app not found"));
    await app.register(gasdigest, {
      engine: engineWithBlocks(),
      maxStalenessMs: false,
      basePath: "",
    });
    expect((await app.inject("/estimate_gas_price")).body).toBe(ESTIMATE);
    expect((await app.inject("/")).json()).toMatchObject({ block_height: "3" });
    expect((await app.inject("/nope")).body).toBe("app not found");
    await app.close();
  });

  it("logs through fastify.log unless given a logger", async () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const app = Fastify({ logger: { level: "debug", stream } });
    await app.register(gasdigest, { engine: engineWithBlocks(), maxStalenessMs: false });
    await app.inject("/v1/estimate_gas_price");
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: "request", url: "/v1/estimate_gas_price", status: 200 }),
    );
    await app.close();
    // `logger: undefined` (say `logger: options.logger`, not set) is the default too: it used
    // to replace fastify.log with the handler's silent logger, losing every line, errors included.
    lines.length = 0;
    const unset = Fastify({ logger: { level: "debug", stream } });
    await unset.register(gasdigest, {
      engine: engineWithBlocks(),
      maxStalenessMs: false,
      logger: undefined,
    });
    await unset.inject("/v1/nope");
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: "request", url: "/v1/nope", status: 404 }),
    );
    await unset.close();
  });

  it("rejects invalid options when the plugin loads, every issue listed", async () => {
    const app = Fastify();
    app.register(gasdigest, {
      engine: engineWithBlocks(),
      prefix: "chain",
      closeEngine: "yes" as never,
      decorator: "",
      bcsLayout: "short" as never,
    });
    const error = await app.ready().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidConfigError);
    expect((error as InvalidConfigError).issues.map((i) => i.path)).toEqual([
      "prefix",
      "closeEngine",
      "decorator",
      "bcsLayout",
    ]);
    // ":" and "*" are route syntax to Fastify's router (a parameter, a wildcard): a base path
    // holding them would take other paths or never be reached, so it is refused by name.
    const syntax = Fastify();
    syntax.register(gasdigest, {
      engine: engineWithBlocks(),
      prefix: "/chain:x",
      basePath: "/v1*",
      metricsPath: "/m:etrics",
      metrics: {
        observeRequest() {},
        scrape: async () => ({ contentType: "text/plain", body: "" }),
      },
    });
    const refused = await syntax.ready().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(InvalidConfigError);
    expect((refused as InvalidConfigError).issues).toEqual([
      {
        path: "prefix",
        message:
          'must not hold ":" or "*" under Fastify, whose router reads them as route syntax (got "/chain:x")',
        code: "custom",
      },
      expect.objectContaining({ path: "basePath" }),
      expect.objectContaining({ path: "metricsPath" }),
    ]);
    const noEngine = Fastify();
    noEngine.register(gasdigest, {} as never);
    await expect(noEngine.ready()).rejects.toThrow(
      "invalid configuration: engine: must be an engine made by createEngine()",
    );
  });
});

describe("Fastify plugin over a socket", () => {
  it("keeps connections alive across requests", async () => {
    const { Agent } = await import("node:http");
    const app = Fastify();
    await app.register(gasdigest, { engine: engineWithBlocks(), maxStalenessMs: false });
    const origin = await app.listen({ host: "127.0.0.1", port: 0 });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await request(`${origin}/v1/estimate_gas_price`, { agent });
      const second = await request(`${origin}/v1/estimate_gas_price`, { agent });
      expect(second.reused).toBe(true);
      expect(second.text).toBe(ESTIMATE);
    } finally {
      agent.destroy();
      await app.close();
    }
  });
});
