import http from "node:http";
import Koa from "koa";
import { describe, expect, it } from "vitest";
import { gasdigest } from "../../src/adapters/koa/index.js";
import { InvalidConfigError } from "../../src/core/errors.js";
import { recordingLogger } from "../http/helpers.js";
import {
  adapterContract,
  ESTIMATE,
  engineWithBlocks,
  errorBody,
  expectEncodedTargetsOwned,
  listenLocal,
  request,
} from "./contract.js";

/** A Koa app: gasdigest, then a host middleware answering whatever reaches it. */
async function host(middleware: ReturnType<typeof gasdigest>, before?: Koa.Middleware) {
  const app = new Koa();
  if (before) app.use(before);
  app.use(middleware);
  app.use((ctx) => {
    ctx.status = 418;
    ctx.body = `host app: ${ctx.url}`;
  });
  return listenLocal(http.createServer(app.callback()));
}

adapterContract({
  name: "Koa",
  async serve(engine, options, mount) {
    const { origin, close } = await host(gasdigest(engine, { ...options, prefix: mount }));
    return { base: origin + mount, close };
  },
});

describe("Koa: a native middleware", () => {
  it("calls next() only for requests that are not its own", async () => {
    const root = await host(gasdigest(engineWithBlocks(), { maxStalenessMs: false }));
    try {
      expect((await request(`${root.origin}/v1/estimate_gas_price`)).text).toBe(ESTIMATE);
      expect((await request(`${root.origin}/v1/nope`)).text).toBe(
        errorBody("web_framework_error", "not found"),
      );
      const other = await request(`${root.origin}/other?x=1`);
      expect(other.status).toBe(418);
      expect(other.text).toBe("host app: /other?x=1");
    } finally {
      await root.close();
    }
    const chain = await host(
      gasdigest(engineWithBlocks(), { maxStalenessMs: false, prefix: "/chain" }),
    );
    try {
      expect((await request(`${chain.origin}/chain/v1/estimate_gas_price`)).text).toBe(ESTIMATE);
      for (const path of ["/v1/estimate_gas_price", "/chainx/v1/estimate_gas_price", "/chain/x"])
        expect((await request(`${chain.origin}${path}`)).text, path).toBe(`host app: ${path}`);
    } finally {
      await chain.close();
    }
  });

  it("answers an absolute-form target or an encoded slash under its base path itself, as the handler reads them", async () => {
    for (const prefix of ["", "/chain"]) {
      const app = await host(gasdigest(engineWithBlocks(), { maxStalenessMs: false, prefix }));
      try {
        await expectEncodedTargetsOwned(app.origin, prefix);
      } finally {
        await app.close();
      }
    }
  });

  it("under koa-mount, dot segments that leave the mount are the application's", async () => {
    // What koa-mount("/chain", ...) does: takes its path off ctx.path (dots unresolved) and
    // says where in ctx.mountPath. The request below points at /v1/estimate_gas_price, beside
    // the mount: it was answered with the estimate.
    const mount: Koa.Middleware = async (ctx, next) => {
      if (!ctx.path.startsWith("/chain/")) return next();
      ctx.mountPath = "/chain";
      ctx.path = ctx.path.slice("/chain".length);
      await next();
    };
    const app = await host(gasdigest(engineWithBlocks(), { maxStalenessMs: false }), mount);
    try {
      expect((await request(`${app.origin}/chain/v1/estimate_gas_price`)).text).toBe(ESTIMATE);
      expect(
        (await request(app.origin, { target: "/chain/v1/x/../estimate_gas_price" })).text,
      ).toBe(ESTIMATE);
      for (const target of [
        "/chain/v1/../../v1/estimate_gas_price",
        "/chain/%2e%2e/v1/estimate_gas_price",
      ]) {
        const out = await request(app.origin, { target });
        expect(out.status, target).toBe(418);
      }
      // Dots that leave the mount and come back into it land where they point.
      const back = await request(app.origin, { target: "/chain/v1/../../chain/v1?x=1" });
      expect(JSON.parse(back.text)).toMatchObject({ block_height: "3" });
    } finally {
      await app.close();
    }
  });

  it("lets upstream middleware see its response, also when its logger throws", async () => {
    const { logger } = recordingLogger();
    const failing = {
      ...logger,
      debug() {
        throw new Error("log sink is down");
      },
    };
    const seen: string[] = [];
    const upstream: Koa.Middleware = async (ctx, next) => {
      try {
        await next();
        seen.push(`${ctx.status} ${ctx.response.get("Content-Type")}`);
      } catch (err) {
        ctx.status = 500;
        ctx.body = `upstream caught: ${(err as Error).message}`;
      }
    };
    const ok = await host(gasdigest(engineWithBlocks(), { maxStalenessMs: false }), upstream);
    try {
      await request(`${ok.origin}/v1/estimate_gas_price`);
      expect(seen).toEqual(["200 application/json"]);
    } finally {
      await ok.close();
    }
    const broken = await host(
      gasdigest(engineWithBlocks(), { maxStalenessMs: false, logger: failing }),
      upstream,
    );
    try {
      // A logger that throws is ignored: the estimate is served, upstream sees no error.
      const res = await request(`${broken.origin}/v1/estimate_gas_price`);
      expect(res.status).toBe(200);
      expect(res.text).toBe(ESTIMATE);
      expect(seen).toEqual(["200 application/json", "200 application/json"]);
    } finally {
      await broken.close();
    }
  });

  it("keeps the Vary upstream middleware set (koa-compress, @koa/cors), adding its own", async () => {
    // What koa-compress does before it calls next().
    const compress: Koa.Middleware = async (ctx, next) => {
      ctx.vary("Accept-Encoding");
      await next();
    };
    const app = await host(
      gasdigest(engineWithBlocks(), {
        maxStalenessMs: false,
        corsOrigin: "https://wallet.example",
      }),
      compress,
    );
    try {
      const estimate = await request(`${app.origin}/v1/estimate_gas_price`);
      expect(estimate.text).toBe(ESTIMATE);
      expect(estimate.headers.vary).toBe("Origin, Accept, Accept-Encoding");
      expect((await request(`${app.origin}/spec.json`)).headers.vary).toBe(
        "Origin, Accept-Encoding",
      );
    } finally {
      await app.close();
    }
  });

  it("keeps the headers an upstream @koa/cors exposes, adding the chain-state ones", async () => {
    // What @koa/cors({ exposeHeaders: ["X-Request-Id"] }) does before it calls next().
    const cors: Koa.Middleware = async (ctx, next) => {
      ctx.set("Access-Control-Allow-Origin", "*");
      ctx.set("Access-Control-Expose-Headers", "X-Request-Id");
      await next();
    };
    const app = await host(gasdigest(engineWithBlocks(), { maxStalenessMs: false }), cors);
    try {
      for (const path of ["/v1/estimate_gas_price", "/v1/nope", "/spec.json"])
        expect(
          (await request(`${app.origin}${path}`)).headers["access-control-expose-headers"],
        ).toBe(
          "X-Aptos-Chain-Id, X-Aptos-Ledger-Version, X-Aptos-Ledger-Oldest-Version, X-Aptos-Ledger-TimestampUsec, X-Aptos-Epoch, X-Aptos-Block-Height, X-Aptos-Oldest-Block-Height, X-Request-Id",
        );
    } finally {
      await app.close();
    }
  });

  it("is an options factory returning a middleware named gasdigest; validates up front", () => {
    const middleware = gasdigest(engineWithBlocks());
    expect(middleware.name).toBe("gasdigest");
    let error: unknown;
    try {
      gasdigest(engineWithBlocks(), { prefix: "/a?b", headerPrefix: "X Y" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidConfigError);
    expect((error as InvalidConfigError).issues.map((i) => i.path)).toEqual([
      "prefix",
      "headerPrefix",
    ]);
    expect(() => gasdigest({} as never)).toThrow(InvalidConfigError);
  });
});
