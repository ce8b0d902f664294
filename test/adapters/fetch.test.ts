import http from "node:http";
import { getRequestListener } from "@hono/node-server";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
// The explorer's files as Workers get them: the module built from swagger-ui-dist (npm run build).
import { explorerAssets } from "../../dist/explorerAssets.js";
import { createFetchHandler } from "../../src/adapters/fetch/index.js";
import { InvalidConfigError } from "../../src/core/errors.js";
import {
  adapterContract,
  BCS,
  ESTIMATE,
  engineWithBlocks,
  errorBody,
  listenLocal,
} from "./contract.js";

/** Serve a Hono app with @hono/node-server's request listener on 127.0.0.1:0. */
async function serveHono(app: Hono) {
  return listenLocal(http.createServer(getRequestListener(app.fetch)));
}

// Hono's own mounting: app.mount() strips the mount path before calling the fetch handler.
adapterContract({
  name: "fetch in Hono (app.mount)",
  async serve(engine, options, mount) {
    const app = new Hono();
    app.get("/elsewhere", (c) => c.text("host app"));
    app.mount(mount || "/", createFetchHandler(engine, { explorerAssets, ...options }));
    const { origin, close } = await serveHono(app);
    return { base: origin + mount, close };
  },
});

// A plain Hono route handing over the raw Request; the adapter strips `prefix` itself.
adapterContract({
  name: "fetch in Hono (route + prefix)",
  async serve(engine, options, mount) {
    const app = new Hono();
    const handler = createFetchHandler(engine, { explorerAssets, ...options, prefix: mount });
    app.all(mount === "" ? "*" : `${mount}/*`, (c) => handler(c.req.raw));
    const { origin, close } = await serveHono(app);
    return { base: origin + mount, close };
  },
});

const engine = engineWithBlocks();
const get = (handler: ReturnType<typeof createFetchHandler>, url: string, init?: RequestInit) =>
  handler(new Request(url, init));

describe("createFetchHandler without a server", () => {
  it("answers a Request with a Response: JSON, BCS, headers", async () => {
    const handler = createFetchHandler(engine, { maxStalenessMs: false });
    const res = await get(handler, "https://node.example/v1/estimate_gas_price");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(ESTIMATE);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("x-aptos-block-height")).toBe("3");
    const bcs = await get(handler, "https://node.example/v1/estimate_gas_price", {
      headers: { Accept: "application/x-bcs" },
    });
    expect(Buffer.from(await bcs.arrayBuffer()).toString("hex")).toBe(BCS);
  });

  it("rejects what is not a Request with an InvalidArgumentError naming it", async () => {
    const handler = createFetchHandler(engine);
    for (const bad of [
      null,
      undefined,
      "https://node.example/v1",
      new URL("https://node.example/v1"),
    ])
      await expect(handler(bad as never)).rejects.toThrow(
        /^invalid argument: request: must be a fetch Request \(url, method and Headers\) \(got .+\)$/,
      );
    // Shaped like a Request, but its headers cannot be read.
    const trap = {
      url: "http://x/v1/estimate_gas_price",
      method: "GET",
      headers: {
        get() {
          throw new Error("get trap");
        },
      },
    };
    await expect(handler(trap as never)).rejects.toThrow(
      "invalid argument: request.headers: cannot be read: Error: get trap",
    );
    expect((await get(handler, "https://node.example/v1")).status).toBe(200);
  });

  it("gives HEAD, 204 and 304 responses no body", async () => {
    const handler = createFetchHandler(engine, { maxStalenessMs: false });
    const head = await get(handler, "http://x/v1/estimate_gas_price", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    expect(head.headers.get("content-length")).toBe(String(ESTIMATE.length));
    const options = await get(handler, "http://x/v1", { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.body).toBeNull();
    const tag = (await get(handler, "http://x/spec.json")).headers.get("etag")!;
    const cached = await get(handler, "http://x/spec.json", { headers: { "If-None-Match": tag } });
    expect(cached.status).toBe(304);
    expect(cached.body).toBeNull();
  });

  it("strips `prefix`, and answers 404 outside it (prefix /chain is not /chainx)", async () => {
    const handler = createFetchHandler(engine, { maxStalenessMs: false, prefix: "/chain/" });
    expect(await (await get(handler, "http://x/chain/v1/estimate_gas_price")).text()).toBe(
      ESTIMATE,
    );
    expect((await get(handler, "http://x/chain?x=1")).status).toBe(404);
    expect((await get(handler, "http://x/chain/spec.json")).status).toBe(200);
    for (const url of ["http://x/v1/estimate_gas_price", "http://x/chainx/v1", "http://x/"]) {
      const res = await get(handler, url);
      expect(res.status, url).toBe(404);
      expect(await res.text()).toBe(errorBody("web_framework_error", "not found"));
    }
    const head = await get(handler, "http://x/elsewhere", { method: "HEAD" });
    expect(head.status).toBe(404);
    expect(head.body).toBeNull();
  });

  it("routes a Request whose URL keeps a fragment by its path, as a fetch sends it", async () => {
    // request.url keeps "#..." (the node server answers a raw "#" in a target 400).
    for (const [prefix, url] of [
      ["", "http://x/v1/estimate_gas_price#top"],
      ["/chain", "http://x/chain/v1/estimate_gas_price?a=1#b"],
    ] as const) {
      const handler = createFetchHandler(engine, { maxStalenessMs: false, prefix });
      const res = await get(handler, url);
      expect(res.status, url).toBe(200);
      expect(await res.text(), url).toBe(ESTIMATE);
    }
  });

  it("routes a relative request.url (Bun's, for a request without a valid Host) as the path it is", async () => {
    // node's Request refuses a relative URL: this is the shape Bun hands over.
    const bun = (url: string) =>
      ({ url, method: "GET", headers: new Headers() }) as unknown as Request;
    const handler = createFetchHandler(engine, { maxStalenessMs: false });
    expect(await (await handler(bun("/v1/-/healthy"))).text()).toBe('{"message":"gasdigest:ok"}');
    expect(await (await handler(bun("/v1/estimate_gas_price?x=1"))).text()).toBe(ESTIMATE);
    for (const url of ["/x/v1/estimate_gas_price", "//x/v1/estimate_gas_price", "/x/v1"]) {
      const res = await handler(bun(url));
      expect(res.status, url).toBe(404);
      expect(await res.text(), url).toBe(errorBody("web_framework_error", "not found"));
    }
    const mounted = createFetchHandler(engine, { maxStalenessMs: false, prefix: "/chain" });
    expect(await (await mounted(bun("/chain/v1/estimate_gas_price"))).text()).toBe(ESTIMATE);
    expect((await mounted(bun("/x/chain/v1/estimate_gas_price"))).status).toBe(404);
  });

  it("routes an absolute-form target with no path by its empty path, not by a '/' in its query", async () => {
    // Deno hands over an absolute-form target as sent (`GET http://h?x=/v1 HTTP/1.1`); node's
    // Request would add the "/" before "?". The node server answers these 404.
    const deno = (url: string) =>
      ({ url, method: "GET", headers: new Headers({ host: "h" }) }) as unknown as Request;
    const handler = createFetchHandler(engine, { maxStalenessMs: false });
    for (const url of [
      "http://h?/v1",
      "http://h:8080?x=/v1/estimate_gas_price",
      "foo://bar?/v1/-/healthy",
    ]) {
      const res = await handler(deno(url));
      expect(res.status, url).toBe(404);
      expect(await res.text(), url).toBe(errorBody("web_framework_error", "not found"));
    }
    expect(await (await handler(deno("http://h/v1/estimate_gas_price?x=/v1"))).text()).toBe(
      ESTIMATE,
    );
    const mounted = createFetchHandler(engine, { maxStalenessMs: false, prefix: "/chain" });
    expect((await mounted(deno("http://h?/chain/v1/estimate_gas_price"))).status).toBe(404);
  });

  it("answers 400 for a Host header that is not host[:port], as the node server does", async () => {
    // Deno and workerd paste the Host before the target: the URL they hand over, which node's
    // Request would refuse for some of these.
    const pasted = (host: string, target: string, method = "GET") =>
      ({ url: `http://${host}${target}`, method, headers: new Headers({ host }) }) as Request;
    const handler = createFetchHandler(engine, { maxStalenessMs: false });
    const invalid = errorBody("web_framework_error", "invalid Host header");
    const cases: [host: string, target: string][] = [
      ["127.0.0.1/v1/estimate_gas_price?", "/v1/nope"],
      ["127.0.0.1/v1/nope?", "/v1/estimate_gas_price"],
      ["bad host", "/v1/estimate_gas_price"],
      ["a, b", "/v1"],
      ["user@h", "/v1"],
    ];
    for (const [host, target] of cases) {
      const res = await handler(pasted(host, target));
      expect(res.status, host).toBe(400);
      expect(await res.text(), host).toBe(invalid);
    }
    const head = await handler(pasted("x/", "/v1", "HEAD"));
    expect(head.status).toBe(400);
    expect(head.body).toBeNull();
    for (const host of ["node.example:8080", "127.0.0.1", "[::1]:80", ""]) {
      const res = await get(handler, "http://x/v1/estimate_gas_price", { headers: { host } });
      expect(await res.text(), host).toBe(ESTIMATE);
    }
  });

  it("validates the prefix with the other options, all issues at once", () => {
    let error: unknown;
    try {
      createFetchHandler(engine, { prefix: "chain", maxUrlLength: 0 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidConfigError);
    expect((error as InvalidConfigError).issues).toEqual([
      {
        path: "prefix",
        message:
          'must be a path such as "/v1": starts with "/", segments of URL path characters, no "//", "?", "#" or "%" (got "chain")',
        code: "custom",
      },
      { path: "maxUrlLength", message: "must be a whole number >= 1 (got 0)", code: "custom" },
    ]);
    expect(() => createFetchHandler({} as never)).toThrow(InvalidConfigError);
  });
});

describe("fetch handler in Hono next to other routes", () => {
  it("leaves the host's own routes alone", async () => {
    const app = new Hono();
    app.get("/health", (c) => c.text("host ok"));
    app.mount("/chain", createFetchHandler(engine, { maxStalenessMs: false }));
    const res = await app.request("/chain/v1/estimate_gas_price");
    expect(await res.text()).toBe(ESTIMATE);
    expect(await (await app.request("/health")).text()).toBe("host ok");
    expect((await app.request("/v1/estimate_gas_price")).status).toBe(404);
  });
});
