// The one contract every adapter passes (issue 6): the same assertions as the node server's
// tests, over a real socket, with the adapter mounted at the root and under /chain.
import { readFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { createEngine, type Engine } from "../../src/core/createEngine.js";
import { createOpenApiDocument } from "../../src/http/createOpenApiDocument.js";
import type { HandlerOptions } from "../../src/http/handlerOptions.js";
import { aip34 } from "../../src/strategies/aip34.js";
import { block } from "../helpers/blocks.js";

const swaggerDist = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

export const ESTIMATE =
  '{"deprioritized_gas_estimate":100,"gas_estimate":150,"prioritized_gas_estimate":300}';
export const BCS = "0164000000000000009600000000000000012c01000000000000";
export const errorBody = (code: string, message: string) =>
  JSON.stringify({ message, error_code: code, vm_error_code: null });

/** The seven chain-state headers (lower case) after blocks 1..3 of the helper chain. */
export function chainHeaders(prefix = "x-aptos-") {
  return {
    [`${prefix}chain-id`]: "4",
    [`${prefix}ledger-version`]: "3999",
    [`${prefix}ledger-oldest-version`]: "1000",
    [`${prefix}ledger-timestampusec`]: "1700000000750000",
    [`${prefix}epoch`]: "1",
    [`${prefix}block-height`]: "3",
    [`${prefix}oldest-block-height`]: "1",
  };
}

/** An engine answering 100/150/300 (static override) after `blocks` blocks of the helper chain. */
export function engineWithBlocks(blocks = 3): Engine {
  const engine = createEngine({
    strategy: aip34(),
    config: { staticOverride: { low: "100", market: "150", aggressive: "300" } },
  });
  for (let h = 1; h <= blocks; h++) engine.ingest(block(h));
  return engine;
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
  reused: boolean;
}

export interface RequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  agent?: http.Agent;
  /** The request target to send as is (`http://h/v1/...`, `/v1%2F...`), instead of the URL's. */
  target?: string;
}

/** One request with node's client (raw headers, HEAD, any method); a fresh connection unless `agent`. */
export function request(url: string, init: RequestInit = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: init.method ?? "GET",
        headers: init.headers,
        agent: init.agent ?? false,
        ...(init.target === undefined ? {} : { path: init.target }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const body = Buffer.concat(chunks);
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body,
            text: body.toString(),
            reused: req.reusedSocket,
          });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(init.body);
  });
}

/** A running host application with gasdigest mounted in it. */
export interface Served {
  /** Origin and mount path, e.g. `http://127.0.0.1:41234/chain` (no trailing slash). */
  readonly base: string;
  close(): Promise<void>;
}

/** How to serve an engine through one adapter, inside its framework. */
export interface ContractTarget {
  readonly name: string;
  /** Listen on 127.0.0.1 port 0 with gasdigest mounted at `mount` (`""` = the root, or `/chain`). */
  serve(engine: Engine, options: HandlerOptions, mount: string): Promise<Served>;
}

/** Listen on 127.0.0.1:0 and resolve with the origin, plus a close() that also ends open sockets. */
export async function listenLocal(server: http.Server): Promise<{
  origin: string;
  close(): Promise<void>;
}> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/**
 * An adapter mounted at `mount` (the host app answers 418 to what is not ours): absolute-form
 * targets and encoded slashes under the base path are the handler's (its JSON 404, the
 * estimate, or the explorer page's redirect), read as the router reads them; the same outside
 * the base path stay the host's.
 */
export async function expectEncodedTargetsOwned(origin: string, mount: string): Promise<void> {
  const get = (target: string) => request(origin, { target });
  for (const target of [`http://x${mount}/v1/nope`, `${mount}/v1%2Fnope`]) {
    const res = await get(target);
    expect(res.status, target).toBe(404);
    expect(res.text, target).toBe(errorBody("web_framework_error", "not found"));
  }
  expect((await get(`http://x${mount}/v1/estimate_gas_price`)).text).toBe(ESTIMATE);
  expect((await get(`${mount}/v1%2Festimate_gas_price`)).text).toBe(ESTIMATE);
  // The explorer page asked for so is sent where its relative URLs resolve, under the mount.
  const page = await get(`${mount}/v1%2Fspec`);
  expect(page.status).toBe(301);
  expect(new URL(page.headers.location!, `${origin}${mount}/v1%2Fspec`).href).toBe(
    `${origin}${mount}/v1/spec`,
  );
  expect((await get(`http://x${mount}/other`)).status).toBe(418);
  expect((await get(`${mount}/v2%2Fnope`)).status).toBe(418);
}

const EXPOSE =
  "X-Aptos-Chain-Id, X-Aptos-Ledger-Version, X-Aptos-Ledger-Oldest-Version, X-Aptos-Ledger-TimestampUsec, X-Aptos-Epoch, X-Aptos-Block-Height, X-Aptos-Oldest-Block-Height";

/** Run the shared contract against `target`, mounted at the root and under `/chain`. */
export function adapterContract(target: ContractTarget): void {
  for (const mount of ["", "/chain"]) {
    describe(`${target.name}, mounted at ${mount || "/"}`, () => {
      let served: Served;
      let base: string;
      beforeAll(async () => {
        served = await target.serve(engineWithBlocks(), { maxStalenessMs: false }, mount);
        base = served.base;
      });
      afterAll(() => served?.close());

      it("answers the estimate as exact JSON with every header of a 200", async () => {
        const res = await request(`${base}/v1/estimate_gas_price`);
        expect(res.status).toBe(200);
        expect(res.text).toBe(ESTIMATE);
        expect(res.headers).toMatchObject({
          "content-type": "application/json",
          "content-length": String(ESTIMATE.length),
          "cache-control": "no-store",
          vary: "Accept",
          "x-content-type-options": "nosniff",
          "access-control-allow-origin": "*",
          "access-control-expose-headers": EXPOSE,
          ...chainHeaders(),
        });
        const withQuery = await request(`${base}/v1/estimate_gas_price?unknown=1`);
        expect(withQuery.text).toBe(ESTIMATE);
      });

      it("answers BCS when Accept prefers application/x-bcs", async () => {
        const res = await request(`${base}/v1/estimate_gas_price`, {
          headers: { accept: "text/html, application/x-bcs;q=0.9, application/json;q=0.5" },
        });
        expect(res.status).toBe(200);
        expect(res.headers["content-type"]).toBe("application/x-bcs");
        expect(res.headers["content-length"]).toBe("26");
        expect(res.body.toString("hex")).toBe(BCS);
        expect(res.headers).toMatchObject(chainHeaders());
      });

      it("serves ledger info and the health check (queries reach the handler intact)", async () => {
        for (const path of ["/v1", "/v1/"]) {
          const res = await request(`${base}${path}`);
          expect(res.status, path).toBe(200);
          expect(JSON.parse(res.text)).toMatchObject({
            chain_id: 4,
            block_height: "3",
            node_role: "full_node",
          });
          expect(res.headers).toMatchObject(chainHeaders());
        }
        expect((await request(`${base}/v1/-/healthy`)).text).toBe('{"message":"gasdigest:ok"}');
        const bad = await request(`${base}/v1/-/healthy?duration_secs=x1`);
        expect(bad.status).toBe(400);
        expect(bad.text).toBe(
          errorBody(
            "web_framework_error",
            'invalid query parameter duration_secs: must be a whole number of seconds from 0 to 4294967295 (got "x1")',
          ),
        );
      });

      it("serves the OpenAPI document at <basePath>/spec.* and at the root of the mount, with ETag/304", async () => {
        const document = createOpenApiDocument({
          basePath: "/v1",
          headerPrefix: "X-Aptos-",
          maxStalenessMs: false,
        });
        const json = await request(`${base}/v1/spec.json`);
        expect(json.status).toBe(200);
        expect(json.headers["content-type"]).toBe("application/json");
        // `servers` is relative to where the document is served, so that it leads to the
        // routes under the mount prefix too.
        const servedAt = { "/v1/spec": "../v1", "/spec": "./v1" };
        expect(JSON.parse(json.text)).toEqual({ ...document, servers: [{ url: "../v1" }] });
        for (const [at, url] of Object.entries(servedAt)) {
          const yaml = await request(`${base}${at}.yaml`);
          expect(yaml.status, at).toBe(200);
          expect(yaml.headers["content-type"]).toBe("application/x-yaml");
          expect(parseYaml(yaml.text)).toEqual({ ...document, servers: [{ url }] });
          const served = JSON.parse((await request(`${base}${at}.json`)).text);
          const server = new URL(served.servers[0].url, `${base}${at}.json`).href;
          expect(server, at).toBe(`${base}/v1`);
          expect((await request(`${server}/estimate_gas_price`)).status, at).toBe(200);
        }
        const tag = json.headers.etag!;
        expect(tag).toMatch(/^"[0-9a-f]+-[0-9a-f]{8}"$/);
        const again = await request(`${base}/v1/spec.json`, { headers: { "if-none-match": tag } });
        expect(again.status).toBe(304);
        expect(again.body.length).toBe(0);
        expect(again.headers.etag).toBe(tag);
      });

      it("serves the explorer page, and every file it references resolves under the mount", async () => {
        const pageUrl = `${base}/v1/spec`;
        const page = await request(pageUrl);
        expect(page.status).toBe(200);
        expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
        expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
        const refs = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
        expect(refs.length).toBeGreaterThanOrEqual(8);
        for (const ref of refs) {
          const url = new URL(ref, pageUrl);
          expect(url.pathname.startsWith(`${mount}/v1/spec`), ref).toBe(true);
          const res = await request(url.href);
          expect(res.status, ref).toBe(200);
          expect(Number(res.headers["content-length"])).toBe(res.body.length);
        }
        const bundle = await request(`${base}/v1/spec/assets/swagger-ui-bundle.js`);
        expect(bundle.headers["content-type"]).toBe("text/javascript; charset=utf-8");
        expect(bundle.body.equals(readFileSync(join(swaggerDist, "swagger-ui-bundle.js")))).toBe(
          true,
        );
      });

      it("answers an unknown path inside its base path with the 404 error object", async () => {
        for (const path of [
          "/v1/nope",
          "/v1/estimate_gas_price/",
          "/v1/spec/assets/package.json",
          "/v1/x/y?z=1",
        ]) {
          const res = await request(`${base}${path}`);
          expect(res.status, path).toBe(404);
          expect(res.text).toBe(errorBody("web_framework_error", "not found"));
          expect(res.headers["content-type"]).toBe("application/json");
          expect(res.headers["access-control-allow-origin"]).toBe("*");
          expect(res.headers).toMatchObject(chainHeaders());
        }
      });

      it("resolves dot segments as a URL parser does, so every host routes them alike", async () => {
        const mountPath = new URL(base).pathname.replace(/\/$/, "");
        for (const path of [
          "/v1/./estimate_gas_price",
          "/v1/x/../estimate_gas_price",
          "/v1/x/%2E%2e/estimate_gas_price",
          "/v1/%2e/estimate_gas_price?x=/../",
        ]) {
          const res = await request(base, { target: `${mountPath}${path}` });
          expect(res.status, path).toBe(200);
          expect(res.text, path).toBe(ESTIMATE);
        }
        // A dot segment that ends the path leaves its slash: the ledger info at `/v1/`.
        const up = await request(base, { target: `${mountPath}/v1/estimate_gas_price/..` });
        expect(up.status).toBe(200);
        expect(JSON.parse(up.text)).toMatchObject({ block_height: "3" });
        const gone = await request(base, { target: `${mountPath}/v1/spec.json/../nope` });
        expect(gone.status).toBe(404);
        expect(gone.text).toBe(errorBody("web_framework_error", "not found"));
        if (mountPath === "") return;
        // Dots that climb out of the mount and back into it land where they point...
        const back = await request(base, {
          target: `${mountPath}/v1/../..${mountPath}/v1/estimate_gas_price`,
        });
        expect(back.text).toBe(ESTIMATE);
        // ...and dots that leave it are the host application's (its own 404 or route), never
        // the estimate: `/v1/...` outside the mount may be another route of the application.
        for (const path of [
          "/v1/../../v1/estimate_gas_price",
          "/v1/%2e%2e/%2E%2E/v1/estimate_gas_price",
          "/../spec.json",
        ]) {
          const out = await request(base, { target: `${mountPath}${path}` });
          expect(out.status, path).not.toBe(200);
          expect(out.text, path).not.toBe(ESTIMATE);
        }
      });

      it("answers another method on a known path with 405 and Allow, whatever the request body", async () => {
        const cases: [string, string, RequestInit][] = [
          ["POST", "/v1/estimate_gas_price", {}],
          ["PUT", "/spec.json", {}],
          ["DELETE", "/v1", {}],
          ["PATCH", "/v1/spec", {}],
          [
            "POST",
            "/v1/estimate_gas_price",
            { headers: { "content-type": "application/json" }, body: '{"a":1}' },
          ],
          [
            "POST",
            "/v1/estimate_gas_price",
            { headers: { "content-type": "application/json" }, body: "{not json" },
          ],
          [
            "POST",
            "/v1/estimate_gas_price",
            { headers: { "content-type": "application/x-weird" }, body: "zzz" },
          ],
        ];
        for (const [method, path, init] of cases) {
          const res = await request(`${base}${path}`, { ...init, method });
          expect(res.status, `${method} ${path} ${init.body ?? ""}`).toBe(405);
          expect(res.headers.allow).toBe("GET, HEAD, OPTIONS");
          expect(res.text).toBe(errorBody("web_framework_error", "method not allowed"));
          expect(res.headers).toMatchObject(chainHeaders());
        }
      });

      it("answers HEAD with the GET status and headers, Content-Length included, and no body", async () => {
        for (const path of [
          "/v1/estimate_gas_price",
          "/v1/spec/assets/swagger-ui.css",
          "/spec.yaml",
          "/v1/nope",
        ]) {
          const get = await request(`${base}${path}`);
          const head = await request(`${base}${path}`, { method: "HEAD" });
          expect(head.status, path).toBe(get.status);
          expect(head.body.length).toBe(0);
          expect(head.headers["content-length"], path).toBe(String(get.body.length));
          expect(head.headers["content-type"]).toBe(get.headers["content-type"]);
          expect(head.headers["x-aptos-block-height"]).toBe(get.headers["x-aptos-block-height"]);
        }
      });

      it("answers a CORS preflight with 204 and the allowed methods and headers", async () => {
        const res = await request(`${base}/v1/estimate_gas_price`, {
          method: "OPTIONS",
          headers: {
            origin: "https://wallet.example",
            "access-control-request-method": "GET",
            "access-control-request-headers": "x-aptos-client",
          },
        });
        expect(res.status).toBe(204);
        expect(res.body.length).toBe(0);
        expect(res.headers).toMatchObject({
          allow: "GET, HEAD, OPTIONS",
          "access-control-allow-origin": "*",
          "access-control-allow-methods": "GET, HEAD, OPTIONS",
          "access-control-allow-headers": "x-aptos-client",
          "access-control-max-age": "86400",
        });
      });

      it("answers malformed percent-encoding in the query with the 400 error object", async () => {
        const res = await request(`${base}/v1/estimate_gas_price?x=%zz`);
        expect(res.status).toBe(400);
        expect(res.text).toBe(
          errorBody("web_framework_error", "malformed percent-encoding in the request URL"),
        );
      });

      it("answers 503 with the error object before the first block, 200 once one arrives", async () => {
        const engine = engineWithBlocks(0);
        const fresh = await target.serve(engine, { maxStalenessMs: false }, mount);
        try {
          const res = await request(`${fresh.base}/v1/estimate_gas_price`);
          expect(res.status).toBe(503);
          expect(res.text).toBe(errorBody("internal_error", "no block has been ingested yet"));
          expect(res.headers["content-type"]).toBe("application/json");
          expect(res.headers["x-aptos-chain-id"]).toBeUndefined();
          for (let h = 1; h <= 3; h++) engine.ingest(block(h));
          expect((await request(`${fresh.base}/v1/estimate_gas_price`)).text).toBe(ESTIMATE);
        } finally {
          await fresh.close();
        }
      });

      it("passes handler options through (basePath, headerPrefix, bcsLayout)", async () => {
        const custom = await target.serve(
          engineWithBlocks(),
          {
            maxStalenessMs: false,
            basePath: "/api",
            headerPrefix: "X-Chain-",
            bcsLayout: "gas_estimate_only",
          },
          mount,
        );
        try {
          const res = await request(`${custom.base}/api/estimate_gas_price`, {
            headers: { accept: "application/x-bcs" },
          });
          expect(res.status).toBe(200);
          expect(res.body.toString("hex")).toBe("9600000000000000");
          expect(res.headers).toMatchObject(chainHeaders("x-chain-"));
          expect(res.headers["x-aptos-chain-id"]).toBeUndefined();
          expect((await request(`${custom.base}/api/nope`)).text).toBe(
            errorBody("web_framework_error", "not found"),
          );
          // Outside the base path: the adapter's 404 or the host's own answer, never the estimate.
          const outside = await request(`${custom.base}/v1/estimate_gas_price`);
          expect(outside.status).not.toBe(200);
          expect(outside.text).not.toBe(ESTIMATE);
        } finally {
          await custom.close();
        }
      });
    });
  }
}
