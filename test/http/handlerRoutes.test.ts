import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { InvalidConfigError } from "../../src/core/errors.js";
import { createHandler } from "../../src/http/createHandler.js";
import { splitMountOptions, stripPrefix } from "../../src/http/mount.js";
import { shippedSwaggerUiBytes } from "../../src/http/shippedSwaggerUi.js";
import { chainHeadersAfter3, errorBody, recordingLogger, setup, text } from "./helpers.js";

const dist = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

describe("GET /v1 (ledger info)", () => {
  it("answers the ledger info with u64 as strings and the chain-state headers", () => {
    const s = setup();
    s.blocks(1, 3);
    for (const url of ["/v1", "/v1/"]) {
      const res = s.get(url);
      expect(res.status).toBe(200);
      expect(text(res)).toBe(
        '{"chain_id":4,"epoch":"1","ledger_version":"3999","oldest_ledger_version":"1000","ledger_timestamp":"1700000000750000","node_role":"full_node","oldest_block_height":"1","block_height":"3"}',
      );
      expect(res.headers).toMatchObject({
        ...chainHeadersAfter3(),
        "Content-Type": "application/json",
        "Cache-Control": "no-store",
      });
    }
  });
});

describe("GET /v1/-/healthy", () => {
  it('answers 200 {"message":"gasdigest:ok"}', () => {
    const s = setup();
    s.blocks(1, 3);
    const res = s.get("/v1/-/healthy");
    expect(res.status).toBe(200);
    expect(text(res)).toBe('{"message":"gasdigest:ok"}');
    expect(res.headers).toMatchObject(chainHeadersAfter3());
  });

  it("with duration_secs, 503 health_check_failed when the newest block's timestamp lags more", () => {
    const s = setup();
    s.blocks(1, 3); // newest timestamp T0 - 250 ms
    expect(s.get("/v1/-/healthy?duration_secs=1").status).toBe(200);
    s.advance(750);
    expect(s.get("/v1/-/healthy?duration_secs=1").status).toBe(200);
    s.advance(1);
    const res = s.get("/v1/-/healthy?duration_secs=1");
    expect(res.status).toBe(503);
    expect(text(res)).toBe(
      errorBody(
        "health_check_failed",
        "the newest block's timestamp is more than 1 s behind the wall clock",
      ),
    );
    expect(s.get("/v1/-/healthy?duration_secs=0").status).toBe(503);
    expect(s.get("/v1/-/healthy").status).toBe(200);
    // Leading zeros are the same number (the node parses a u32 so); a percent-encoded key is
    // the same key (URLSearchParams decodes keys as well as values).
    expect(s.get("/v1/-/healthy?duration_secs=00000000001").status).toBe(503);
    expect(s.get("/v1/-/healthy?duration_secs=000000000002").status).toBe(200);
    expect(s.get("/v1/-/healthy?duration%5Fsecs=0").status).toBe(503);
    expect(s.get("/v1/-/healthy?duration%5Fsecs=x").status).toBe(400);
  });

  it("400 on a duration_secs that is not a whole number of seconds", () => {
    const s = setup();
    s.blocks(1, 1);
    for (const bad of ["abc", "-1", "1.5", "", "4294967296", "04294967296", "1e3"]) {
      const res = s.get(`/v1/-/healthy?duration_secs=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(text(res)).toBe(
        errorBody(
          "web_framework_error",
          `invalid query parameter duration_secs: must be a whole number of seconds from 0 to 4294967295 (got "${bad}")`,
        ),
      );
    }
  });

  it("a long bad duration_secs is cut in the message, never inside a character", () => {
    const s = setup();
    s.blocks(1, 1);
    // Letters and emoji (two UTF-16 units each): cut anywhere by units, one would be halved.
    const res = s.get(`/v1/-/healthy?duration_secs=${"a".repeat(39)}${"%F0%9F%98%80".repeat(40)}`);
    expect(res.status).toBe(400);
    const { message } = JSON.parse(text(res));
    expect(message.isWellFormed()).toBe(true);
    expect(message).toMatch(/\(got "a{39}(😀)+…" \(119 characters\)\)$/);
  });

  it("a bad duration_secs is echoed quoted, its controls and bidirectional overrides escaped", () => {
    // It was echoed raw inside quotes: a quote closed them early, and U+009B (a terminal's
    // CSI) or U+202E (which reverses what follows) reached the body and the monitoring logs.
    const s = setup();
    s.blocks(1, 1);
    const res = s.get("/v1/-/healthy?duration_secs=1%22)%20%C2%9B2J%E2%80%AEdlrow");
    const { message } = JSON.parse(text(res));
    expect(message).toBe(
      'invalid query parameter duration_secs: must be a whole number of seconds from 0 to 4294967295 (got "1\\") \\u009b2J\\u202edlrow")',
    );
  });

  it("503 when the estimate itself would be 503 (stale) or fails", () => {
    const s = setup();
    s.blocks(1, 1);
    s.advance(60_000);
    expect(text(s.get("/v1/-/healthy"))).toBe(
      errorBody("health_check_failed", "the newest block arrived more than 30000 ms ago"),
    );
    const failing = setup(
      {},
      {
        strategy: () => ({
          name: "x",
          ingest() {},
          reset() {},
          estimate() {
            throw new Error("x");
          },
        }),
      },
    );
    failing.blocks(1, 1);
    expect(text(failing.get("/v1/-/healthy"))).toBe(
      errorBody("health_check_failed", "the estimator failed on the newest block"),
    );
  });
});

describe("the OpenAPI document and the explorer", () => {
  it("serves the document at /v1/spec.json and /spec.json, and as YAML at both .yaml paths, servers relative to each", () => {
    const s = setup();
    const a = s.get("/v1/spec.json");
    const b = s.get("/spec.json");
    expect(a.status).toBe(200);
    expect(a.headers["Content-Type"]).toBe("application/json");
    const at = (url: string) => ({ ...s.handler.document, servers: [{ url }] });
    expect(JSON.parse(text(a))).toEqual(at("../v1"));
    expect(JSON.parse(text(b))).toEqual(at("./v1"));
    for (const [url, server] of [
      ["/v1/spec.yaml", "../v1"],
      ["/spec.yaml", "./v1"],
    ] as const) {
      const y = s.get(url);
      expect(y.status).toBe(200);
      expect(y.headers["Content-Type"]).toBe("application/x-yaml");
      expect(parseYaml(text(y))).toEqual(at(server));
    }
  });

  it("spec documents carry an ETag and answer If-None-Match with 304", () => {
    const s = setup();
    const a = s.get("/v1/spec.json");
    const tag = a.headers.ETag!;
    expect(tag).toMatch(/^"[0-9a-f]+-[0-9a-f]{8}"$/);
    expect(a.headers["Cache-Control"]).toBe("no-cache");
    const again = s.get("/v1/spec.json", { "if-none-match": tag });
    expect(again.status).toBe(304);
    expect(again.body).toBeUndefined();
    expect(s.get("/v1/spec.json", { "if-none-match": '"other"' }).status).toBe(200);
    expect(s.get("/v1/spec.yaml").headers.ETag).not.toBe(tag);
  });

  it("reads an If-None-Match that is neither a string nor a list as none, as Accept (it answered 500)", () => {
    const s = setup();
    // A caller's own headers object: fetch's Headers.get gives null for a header not sent.
    for (const value of [null, 5, {}]) {
      const headers = { "if-none-match": value } as unknown as Record<string, string>;
      for (const url of ["/v1/spec.json", "/spec.yaml", "/v1/spec"]) {
        const res = s.handler({ method: "GET", url, headers });
        expect(res.status).toBe(200);
        expect(res.headers.ETag).toMatch(/^"/);
      }
    }
  });

  it("serves the explorer page with a strict CSP and only same-origin relative URLs", () => {
    const s = setup();
    const res = s.get("/v1/spec");
    expect(res.status).toBe(200);
    expect(res.headers["Content-Type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["X-Content-Type-Options"]).toBe("nosniff");
    const csp = res.headers["Content-Security-Policy"]!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    const html = text(res);
    expect(html).not.toMatch(/https?:|\/\//);
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/);
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(sources).toEqual([
      "spec/assets/index.css",
      "spec/assets/swagger-ui.css",
      "spec/assets/favicon-32x32.png",
      "spec/assets/favicon-16x16.png",
      "spec.json",
      "spec.yaml",
      "spec/assets/swagger-ui-bundle.js",
      "spec/assets/explorer.js",
    ]);
  });

  it("redirects the page and the documents asked for through an encoded slash to the spelling their relative URLs resolve against", () => {
    // Served at /v1%2Fspec, the page's spec/assets/... and spec.json resolved against "/" (a
    // blank page; under a mount, outside it), and so did spec.json's servers (../v1).
    const s = setup({ basePath: "/chain/v2" });
    for (const [url, location] of [
      ["/chain/v2%2Fspec", "./v2/spec"],
      ["/chain%2fv2%2Fspec", "./chain/v2/spec"],
      ["/chain/v2%2Fspec.json", "./v2/spec.json"],
      ["/chain/v2%2Fspec.yaml?x=1", "./v2/spec.yaml"],
      ["http://h/chain/v2%2Fspec", "./v2/spec"],
    ] as const) {
      const res = s.get(url);
      expect(res.status, url).toBe(301);
      expect(res.headers.Location, url).toBe(location);
      expect(res.headers["Access-Control-Allow-Origin"]).toBe("*");
      expect(s.get(url, {}, "HEAD")).toMatchObject({ status: 301, body: undefined });
    }
    // Where the last segment is the route's own, relative URLs resolve as they should: served.
    for (const url of ["/chain%2Fv2/spec", "/chain/v2/%73pec", "/chain/v2/spec.json"])
      expect(s.get(url).status, url).toBe(200);
    // Every other route reads the same path as it always did.
    s.blocks(1, 3);
    expect(s.get("/chain/v2%2Festimate_gas_price").status).toBe(200);
    expect(s.get("/chain/v2%2Fspec", {}, "POST").status).toBe(405);
  });

  it("redirects a document asked for with an encoded slash before its last segment: its servers (../v2) would lead to /v2", () => {
    const s = setup({ basePath: "/chain/v2" });
    const servers = (url: string) =>
      JSON.parse(new TextDecoder().decode(s.get(url).body as Uint8Array)).servers[0].url;
    // Served at /chain/v2/spec.json, its servers lead to the routes, under any mount prefix.
    expect(new URL(servers("/chain/v2/spec.json"), "http://h/m/chain/v2/spec.json").pathname).toBe(
      "/m/chain/v2",
    );
    for (const [url, location] of [
      ["/chain%2Fv2/spec.json", "../chain/v2/spec.json"],
      ["/chain%2fv2/spec.yaml", "../chain/v2/spec.yaml"],
      ["/chain%2Fv2/%73pec.json", "../chain/v2/spec.json"],
    ] as const) {
      const res = s.get(url);
      expect(res.status, url).toBe(301);
      expect(res.headers.Location, url).toBe(location);
      // The Location, resolved against the request's URL under a mount, is the document's own.
      expect(new URL(location, `http://h/m${url}`).pathname, url).toBe(
        `/m/chain/v2/spec.${url.slice(-4)}`,
      );
      expect(s.get(url, {}, "HEAD")).toMatchObject({ status: 301, body: undefined });
    }
  });

  it("serves the whitelisted Swagger UI files from the installed package, with ETag and caching", () => {
    const s = setup();
    for (const [name, type] of [
      ["swagger-ui-bundle.js", "text/javascript; charset=utf-8"],
      ["swagger-ui.css", "text/css; charset=utf-8"],
      ["index.css", "text/css; charset=utf-8"],
      ["favicon-32x32.png", "image/png"],
      ["favicon-16x16.png", "image/png"],
    ] as const) {
      const res = s.get(`/v1/spec/assets/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers["Content-Type"]).toBe(type);
      // Revalidated, as the page is: their URLs do not change from one release to the next.
      expect(res.headers["Cache-Control"]).toBe("no-cache");
      const shipped = shippedSwaggerUiBytes(name, new Uint8Array(readFileSync(join(dist, name))));
      expect(Buffer.from(res.body as Uint8Array).equals(shipped)).toBe(true);
      expect(res.headers["Content-Length"]).toBe(String(shipped.length));
      expect(s.get(`/v1/spec/assets/${name}`, { "if-none-match": res.headers.ETag! }).status).toBe(
        304,
      );
      expect(s.get(`/v1/spec/assets/${name}`, {}, "HEAD").body).toBeUndefined();
    }
    for (const other of [
      "package.json",
      "swagger-ui.js",
      "index.html",
      "..%2Fpackage.json",
      "oauth2-redirect.html",
    ])
      expect(s.get(`/v1/spec/assets/${other}`).status, other).toBe(404);
  });

  it("the init script loads spec.json relative to the page, turns the validator off, names no other origin", () => {
    const s = setup();
    const js = text(s.get("/v1/spec/assets/explorer.js"));
    expect(js).toContain('new URL("spec.json", base)');
    expect(js).toContain("validatorUrl: null");
    expect(js).toContain("queryConfigEnabled: false");
    expect(js).not.toMatch(/https?:\/\//);
  });

  it("serves src/http/assets/explorerInit.js as it is, byte for byte", () => {
    const source = readFileSync(join(import.meta.dirname, "../../src/http/assets/explorerInit.js"));
    expect(Buffer.from(text(setup().get("/v1/spec/assets/explorer.js")))).toEqual(source);
  });

  it("reads the explorer files from disk once: the same bytes are served to every handler", () => {
    const a = setup().get("/v1/spec/assets/swagger-ui-bundle.js");
    const b = setup({ basePath: "/x" }).get("/x/spec/assets/swagger-ui-bundle.js");
    expect(b.body).toBe(a.body);
  });
});

describe("options", () => {
  it("moves every route under a custom basePath; /spec.json and /spec.yaml stay at the root", () => {
    const s = setup({ basePath: "/chain/v2" });
    s.blocks(1, 1);
    for (const url of [
      "/chain/v2/estimate_gas_price",
      "/chain/v2",
      "/chain/v2/-/healthy",
      "/chain/v2/spec",
      "/chain/v2/spec.json",
      "/spec.json",
      "/spec.yaml",
      "/chain/v2/spec/assets/explorer.js",
    ])
      expect(s.get(url).status, url).toBe(200);
    expect(s.get("/v1/estimate_gas_price").status).toBe(404);
    expect(s.handler.document.servers).toEqual([{ url: "/chain/v2" }]);
    expect(setup({ basePath: "/chain/v2/" }).handler.options.basePath).toBe("/chain/v2");
  });

  it('basePath "" or "/" mounts the routes at the root', () => {
    for (const basePath of ["", "/"]) {
      const s = setup({ basePath });
      s.blocks(1, 1);
      for (const url of [
        "/estimate_gas_price",
        "/",
        "/-/healthy",
        "/spec",
        "/spec.json",
        "/spec/assets/explorer.js",
      ])
        expect(s.get(url).status, url).toBe(200);
      expect(s.handler.document.servers).toEqual([{ url: "/" }]);
    }
  });

  it("uses a custom header prefix (or none) for the chain-state headers", () => {
    for (const prefix of ["X-Chain-", ""]) {
      const s = setup({ headerPrefix: prefix });
      s.blocks(1, 3);
      const res = s.get("/v1/estimate_gas_price");
      expect(res.headers).toMatchObject(chainHeadersAfter3(prefix));
      expect(res.headers["X-Aptos-Chain-Id"]).toBeUndefined();
    }
  });

  it("CORS: * by default, one origin with Vary: Origin, or none", () => {
    const one = setup({ corsOrigin: "https://wallet.example" });
    one.blocks(1, 1);
    const res = one.get("/v1/estimate_gas_price");
    expect(res.headers["Access-Control-Allow-Origin"]).toBe("https://wallet.example");
    expect(res.headers.Vary).toBe("Origin, Accept");
    const none = setup({ corsOrigin: false });
    none.blocks(1, 1);
    const plain = none.get("/v1/estimate_gas_price");
    expect(Object.keys(plain.headers).filter((h) => h.startsWith("Access-Control"))).toEqual([]);
    expect(none.get("/nope").headers["Access-Control-Allow-Origin"]).toBeUndefined();
    expect(setup().get("/nope").headers["Access-Control-Allow-Origin"]).toBe("*");
  });

  it("answers OPTIONS (CORS preflight) with 204, the allowed methods and the asked-for headers", () => {
    const s = setup();
    const res = s.get(
      "/v1/estimate_gas_price",
      {
        origin: "https://a.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "x-aptos-client, content-type",
      },
      "OPTIONS",
    );
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect(res.headers).toMatchObject({
      Allow: "GET, HEAD, OPTIONS",
      "Access-Control-Allow-Origin": "*",
      "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
      "Access-Control-Allow-Headers": "x-aptos-client, content-type",
      "Access-Control-Max-Age": "86400",
    });
    const off = setup({ corsOrigin: false }).get("/v1/estimate_gas_price", {}, "OPTIONS");
    expect(off.status).toBe(204);
    expect(off.headers.Allow).toBe("GET, HEAD, OPTIONS");
    expect(off.headers["Access-Control-Allow-Methods"]).toBeUndefined();
    expect(s.get("/unknown", {}, "OPTIONS").status).toBe(404);
    // Asked-for headers that are not a list of header names are not echoed.
    const odd = s.get(
      "/v1/estimate_gas_price",
      { origin: "https://a.example", "access-control-request-headers": "x-a, (b)" },
      "OPTIONS",
    );
    expect(odd.status).toBe(204);
    expect(odd.headers["Access-Control-Allow-Headers"]).toBeUndefined();
  });

  it("logs one debug line per request through the logger", () => {
    const { logger, lines } = recordingLogger();
    const s = setup({ logger });
    s.get("/v1/estimate_gas_price");
    s.get("/nope");
    expect(lines.filter((l) => l.level === "debug").map((l) => l.obj)).toEqual([
      { method: "GET", url: "/v1/estimate_gas_price", status: 503 },
      { method: "GET", url: "/nope", status: 404 },
    ]);
  });

  it("rejects invalid options with InvalidConfigError listing every issue", () => {
    const s = setup();
    const bad = {
      basePath: "v1",
      headerPrefix: "X Aptos",
      bcsLayout: "short",
      jsonOutput: "yes",
      maxStalenessMs: -5,
      maxUrlLength: 0,
      corsOrigin: "example.com",
      logger: { error() {} },
      colour: "red",
    };
    let error: unknown;
    try {
      createHandler(s.engine, bad as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidConfigError);
    expect((error as InvalidConfigError).issues).toEqual([
      {
        path: "basePath",
        message:
          'must be a path such as "/v1": starts with "/", segments of URL path characters, no "//", "?", "#" or "%" (got "v1")',
        code: "custom",
      },
      {
        path: "headerPrefix",
        message:
          'must hold only header-name characters (letters, digits, !#$%&\'*+-.^_`|~) (got "X Aptos")',
        code: "custom",
      },
      {
        path: "bcsLayout",
        message: 'must be "full" or "gas_estimate_only" (got "short")',
        code: "custom",
      },
      { path: "jsonOutput", message: 'must be true or false (got "yes")', code: "custom" },
      {
        path: "maxStalenessMs",
        message: "must be a whole number of milliseconds >= 0, or false (got -5)",
        code: "custom",
      },
      { path: "maxUrlLength", message: "must be a whole number >= 1 (got 0)", code: "custom" },
      {
        path: "corsOrigin",
        message:
          'must be "*", one origin such as "https://example.com" (scheme://host[:port], no path; an ASCII host, an international name in its xn-- form), or false (got "example.com")',
        code: "custom",
      },
      {
        path: "logger",
        message:
          "must be a logger with error, warn, info and debug methods (missing warn, info, debug)",
        code: "custom",
      },
      { path: "colour", message: "unknown field", code: "unrecognized_keys" },
    ]);
    expect((error as Error).message).toMatch(/^invalid configuration: basePath: must be a path/);
    expect(() => createHandler({} as never)).toThrow(
      "invalid configuration: engine: must be an engine made by createEngine()",
    );
    expect(() => createHandler(s.engine, { basePath: "/a//b" })).toThrow(InvalidConfigError);
    // Paths no client can reach, and the document's own root aliases.
    for (const basePath of ["/v1/../x", "/./v1", "/v1/.."])
      expect(() => createHandler(s.engine, { basePath })).toThrow(
        /basePath: must have no "\." or "\.\." segment/,
      );
    for (const basePath of ["/spec.json", "/spec.yaml/"])
      expect(() => createHandler(s.engine, { basePath })).toThrow(
        /basePath: must not be \/spec\.(json|yaml): that is where the API document stays/,
      );
    expect(() => createHandler(s.engine, { basePath: "/v1/spec.json" })).not.toThrow();
    // The same for the metrics route: the handler removes dot segments before the lookup, so
    // "/m/../metrics" was accepted and then never served (404 at every spelling).
    const metrics = { observeRequest() {}, scrape: async () => ({ contentType: "t", body: "" }) };
    for (const metricsPath of ["/m/../metrics", "/./metrics", "/metrics/.", "/.."])
      expect(() => createHandler(s.engine, { metrics, metricsPath })).toThrow(
        /metricsPath: must have no "\." or "\.\." segment/,
      );
    expect(() => createHandler(s.engine, { metrics, metricsPath: "/m/.x" })).not.toThrow();
  });

  it("corsOrigin is one ASCII origin: what node cannot send, or a browser would not match, is refused", () => {
    // These passed the check, and node then threw on writing every answer (ERR_INVALID_CHAR):
    // clients saw the connection closed, and nothing was logged above debug.
    const s = setup();
    for (const corsOrigin of [
      "https://a\u007fb",
      "https://例え.jp",
      "https://aä.com",
      "https://a,https://b",
      'https://a"<script>',
      "https://a.example/path",
    ])
      expect(() => createHandler(s.engine, { corsOrigin }), corsOrigin).toThrow(
        /corsOrigin: must be "\*", one origin such as/,
      );
    for (const corsOrigin of [
      "https://wallet.example",
      "https://xn--r8jz45g.jp",
      "http://127.0.0.1:8080",
      "http://[::1]:3000",
      "app-scheme://host",
      "http://wallet_ui:3000",
      "https://my_app.corp.example",
      "http://localhost",
    ]) {
      const handler = createHandler(s.engine, { corsOrigin });
      const res = handler({ method: "GET", url: "/v1/estimate_gas_price", headers: {} });
      expect(res.headers["Access-Control-Allow-Origin"]).toBe(corsOrigin);
    }
  });

  it("owns() tells adapters which URLs are the handler's; errorResponse() builds an error object", () => {
    const s = setup({ basePath: "/v1" });
    expect(s.handler.owns("/v1/estimate_gas_price?x=1")).toBe(true);
    expect(s.handler.owns("/spec.yaml")).toBe(true);
    expect(s.handler.owns("/v1/spec/assets/swagger-ui.css")).toBe(true);
    expect(s.handler.owns("/v1/other")).toBe(false);
    expect(s.handler.owns("/%zz")).toBe(false);
    // claims(): its routes and anything under its base path, nothing else.
    expect(s.handler.claims("/v1/other")).toBe(true);
    expect(s.handler.claims("/spec.json")).toBe(true);
    expect(s.handler.claims("/v1x/estimate_gas_price")).toBe(false);
    expect(s.handler.claims("/elsewhere")).toBe(false);
    expect(setup({ basePath: "" }).handler.claims("/other")).toBe(false);
    s.blocks(1, 3);
    const res = s.handler.errorResponse(400, "web_framework_error", "request head too large");
    expect(res.status).toBe(400);
    expect(text(res)).toBe(errorBody("web_framework_error", "request head too large"));
    expect(res.headers).toMatchObject(chainHeadersAfter3());
    // Its arguments are checked, every problem named: a host's typo never goes out on the wire.
    expect(() => s.handler.errorResponse(200, "oops" as never, 5 as never)).toThrow(
      'invalid argument: status: must be an error status from 400 to 599 (got 200); errorCode: must be one of the node\'s error codes such as "internal_error" (got "oops"); message: must be a string (got 5)',
    );
    expect(() => s.handler.errorResponse(600, "internal_error", "x")).toThrow(
      "status: must be an error status from 400 to 599 (got 600)",
    );
  });
});

describe("mount helpers for adapters", () => {
  it("stripPrefix keeps only URLs inside the prefix, relative to it", () => {
    expect(stripPrefix("/chain/v1/x?y=1", "/chain")).toBe("/v1/x?y=1");
    expect(stripPrefix("/chain", "/chain")).toBe("/");
    expect(stripPrefix("/chain?y=1", "/chain")).toBe("/?y=1");
    expect(stripPrefix("/chainx/v1", "/chain")).toBeUndefined();
    expect(stripPrefix("/other", "/chain")).toBeUndefined();
    expect(stripPrefix("/v1/x", "")).toBe("/v1/x");
    // An absolute-form target lies where its path does.
    expect(stripPrefix("http://h/chain/v1/x?y=1", "/chain")).toBe("/v1/x?y=1");
    expect(stripPrefix("http://h/chainx/v1", "/chain")).toBeUndefined();
    expect(stripPrefix("nonsense", "/chain")).toBeUndefined();
  });

  it("owns and claims read an absolute-form target by its path; anything else is not theirs", () => {
    const s = setup();
    expect(s.handler.owns("http://h/v1/estimate_gas_price")).toBe(true);
    expect(s.handler.owns("https://h:8/v1?x=1")).toBe(true);
    expect(s.handler.owns("http://h/other")).toBe(false);
    expect(s.handler.owns(null as never)).toBe(false);
    expect(s.handler.claims(5 as never)).toBe(false);
    // claims() reads the target as the router does: absolute-form, percent-decoded.
    expect(s.handler.claims("http://h/v1/nope")).toBe(true);
    expect(s.handler.claims("/v1%2Fnope")).toBe(true);
    expect(s.handler.claims("/v1/%zz")).toBe(true);
    expect(s.handler.claims("http://h/other")).toBe(false);
    expect(s.handler.claims("/v2%2Fnope")).toBe(false);
  });

  it("splitMountOptions validates prefix and handler options together", () => {
    expect(splitMountOptions({ prefix: "/chain/", headerPrefix: "X-A-" })).toEqual({
      prefix: "/chain",
      handlerOptions: { headerPrefix: "X-A-" },
    });
    expect(splitMountOptions(undefined)).toEqual({ prefix: "", handlerOptions: undefined });
    try {
      splitMountOptions({ prefix: "chain", bcsLayout: "nope" as never }, [
        { path: "x", message: "bad" },
      ]);
      expect.unreachable();
    } catch (e) {
      expect((e as InvalidConfigError).issues.map((i) => i.path)).toEqual([
        "prefix",
        "x",
        "bcsLayout",
      ]);
    }
  });
});
