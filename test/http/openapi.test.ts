import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { createOpenApiDocument } from "../../src/http/createOpenApiDocument.js";
import { ERROR_CODES } from "../../src/http/types.js";
import { setup } from "./helpers.js";

// biome-ignore lint/suspicious/noExplicitAny: walking a JSON document
type Json = Record<string, any>;
const HEADERS = [
  "Chain-Id",
  "Ledger-Version",
  "Ledger-Oldest-Version",
  "Ledger-TimestampUsec",
  "Epoch",
  "Block-Height",
  "Oldest-Block-Height",
];

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document (swagger-parser), default and custom options alike", async () => {
    for (const options of [
      {},
      { basePath: "/chain/v2", headerPrefix: "X-Chain-" },
      { basePath: "", headerPrefix: "" },
    ]) {
      const doc = createOpenApiDocument(options);
      const api = (await SwaggerParser.validate(structuredClone(doc) as never)) as Json;
      expect(api.openapi).toBe("3.1.0");
    }
  });

  it("declares the operations of the interface with their operationIds", () => {
    const doc = createOpenApiDocument() as Json;
    const ops = Object.entries(doc.paths as Json).flatMap(([path, item]) =>
      Object.entries(item as Json).map(
        ([method, op]) => `${method.toUpperCase()} ${path} ${(op as Json).operationId}`,
      ),
    );
    expect(ops.sort()).toEqual([
      "GET / get_ledger_info",
      "GET /-/healthy healthy",
      "GET /estimate_gas_price estimate_gas_price",
      "GET /spec spec",
      "GET /spec.json spec_json",
      "GET /spec.yaml spec_yaml",
    ]);
    expect(doc.servers).toEqual([{ url: "/v1" }]);
  });

  it("declares both content types of the estimate's 200, u64 as integer uint64", async () => {
    const doc = (await SwaggerParser.dereference(
      structuredClone(createOpenApiDocument()) as never,
    )) as Json;
    const ok = doc.paths["/estimate_gas_price"].get.responses["200"];
    expect(Object.keys(ok.content)).toEqual(["application/json", "application/x-bcs"]);
    expect(ok.content["application/x-bcs"].schema).toEqual({ type: "string", format: "binary" });
    const schema = ok.content["application/json"].schema;
    expect(schema.required).toEqual([
      "deprioritized_gas_estimate",
      "gas_estimate",
      "prioritized_gas_estimate",
    ]);
    for (const field of schema.required)
      expect(schema.properties[field]).toMatchObject({
        type: "integer",
        format: "uint64",
        minimum: 0,
      });
  });

  it("declares every status of the table with the error object (22 error codes) on the estimate", async () => {
    const doc = (await SwaggerParser.dereference(
      structuredClone(createOpenApiDocument()) as never,
    )) as Json;
    const responses = doc.paths["/estimate_gas_price"].get.responses;
    expect(Object.keys(responses).sort()).toEqual([
      "200",
      "400",
      "403",
      "404",
      "405",
      "500",
      "503",
    ]);
    for (const status of ["400", "403", "404", "405", "500", "503"]) {
      const schema = responses[status].content["application/json"].schema;
      expect(schema.required).toEqual(["message", "error_code"]);
      expect(schema.properties.error_code.enum).toEqual([...ERROR_CODES]);
      expect(schema.properties.vm_error_code.type).toEqual(["integer", "null"]);
    }
    expect(ERROR_CODES).toHaveLength(22);
    expect(responses["405"].headers.Allow.required).toBe(true);
  });

  it("shows each error status's own examples: what the handler answers with it, not one 404 for all", () => {
    const doc = createOpenApiDocument() as unknown as Json;
    const responses = doc.paths["/estimate_gas_price"].get.responses;
    const examples = (status: string) =>
      Object.values(
        doc.components.responses[responses[status].$ref.split("/").pop()].content[
          "application/json"
        ].examples,
      ).map((e) => (e as { value: unknown }).value);
    const decode = (r: { body?: Uint8Array }) => JSON.parse(new TextDecoder().decode(r.body));
    // Answers of a real handler: before the first block, then stale, an unknown path, a wrong
    // method, a bad target, and with the endpoint disabled.
    const t = setup({ maxStalenessMs: 30_000 });
    const noBlock = decode(t.get("/v1/estimate_gas_price"));
    t.blocks(1, 1);
    t.advance(30_001);
    const stale = decode(t.get("/v1/estimate_gas_price"));
    expect(examples("503")).toEqual([noBlock, stale]);
    expect(examples("404")).toEqual([decode(t.get("/v1/nope"))]);
    expect(examples("405")).toEqual([decode(t.get("/v1/estimate_gas_price", {}, "POST"))]);
    expect(examples("400")).toEqual([decode(t.get("/v1/estimate_gas_price%zz"))]);
    expect(examples("403")).toEqual([
      decode(setup({ estimateEnabled: false }).get("/v1/estimate_gas_price")),
    ]);
  });

  it("shows as the 403's examples the refusals this handler answers: the format it turned off, not an endpoint it left on", () => {
    const decode = (r: { body?: Uint8Array }) => JSON.parse(new TextDecoder().decode(r.body));
    for (const options of [
      { jsonOutput: false },
      { bcsOutput: false },
      { jsonOutput: false, bcsOutput: false },
      { estimateEnabled: false },
      { estimateEnabled: false, jsonOutput: false },
    ]) {
      const s = setup(options);
      s.blocks(1, 3);
      const doc = s.handler.document as unknown as Json;
      const examples = Object.values(
        doc.components.responses.Forbidden.content["application/json"].examples,
      ).map((e) => (e as { value: unknown }).value);
      const refusals = new Map<string, unknown>();
      for (const accept of ["application/json", "application/x-bcs"]) {
        const res = s.get("/v1/estimate_gas_price", { accept });
        if (res.status === 403) refusals.set(decode(res).message, decode(res));
      }
      expect(examples, JSON.stringify(options)).toEqual([...refusals.values()]);
    }
  });

  it("shows as the stale 503's example the staleness bound this handler has (none when it never goes stale)", () => {
    const decode = (r: { body?: Uint8Array }) => JSON.parse(new TextDecoder().decode(r.body));
    const examples = (doc: unknown) =>
      Object.values(
        (doc as Json).components.responses.ServiceUnavailable.content["application/json"].examples,
      ).map((e) => (e as { value: unknown }).value);
    const s = setup({ maxStalenessMs: 1000 });
    const noBlock = decode(s.get("/v1/estimate_gas_price"));
    s.blocks(1, 3);
    s.advance(1001);
    const stale = decode(s.get("/v1/estimate_gas_price"));
    expect(stale.message).toContain("1000 ms");
    expect(examples(s.handler.document)).toEqual([noBlock, stale]);
    expect(examples(setup({ maxStalenessMs: false }).handler.document)).toEqual([noBlock]);
    expect(examples(createOpenApiDocument({ maxStalenessMs: 5000 }))).toEqual([
      noBlock,
      { ...stale, message: "the newest block arrived more than 5000 ms ago" },
    ]);
  });

  it("declares the seven chain-state headers under the configured prefix: required on 200, optional on errors", async () => {
    for (const prefix of ["X-Aptos-", "X-Chain-"]) {
      const raw = createOpenApiDocument({ headerPrefix: prefix });
      const doc = (await SwaggerParser.dereference(structuredClone(raw) as never)) as Json;
      const responses = doc.paths["/estimate_gas_price"].get.responses;
      const names = HEADERS.map((h) => prefix + h);
      expect(Object.keys(responses["200"].headers)).toEqual(names);
      for (const name of names) expect(responses["200"].headers[name].required).toBe(true);
      for (const status of ["400", "403", "404", "500", "503"]) {
        expect(Object.keys(responses[status].headers)).toEqual(names);
        for (const name of names) expect(responses[status].headers[name].required).toBeUndefined();
      }
      expect(responses["200"].headers[`${prefix}Block-Height`].schema).toMatchObject({
        type: "integer",
        format: "uint64",
      });
      expect(responses["200"].headers[`${prefix}Chain-Id`].schema).toMatchObject({
        type: "integer",
        format: "uint8",
        maximum: 255,
      });
      expect(JSON.stringify(raw).includes(prefix === "X-Aptos-" ? "X-Chain-" : "X-Aptos-")).toBe(
        false,
      );
    }
  });

  it("is generated once per handler and served as it is; servers follows the base path", () => {
    const s = setup({ basePath: "/api", headerPrefix: "X-Chain-" });
    expect(s.handler.document).toBe(s.handler.document);
    expect(s.handler.document.servers).toEqual([{ url: "/api" }]);
    const served = JSON.parse(new TextDecoder().decode(s.get("/api/spec.json").body as Uint8Array));
    // Served with servers relative to the document's own URL: /api/spec.json -> ../api.
    expect(served).toEqual({
      ...createOpenApiDocument({ basePath: "/api", headerPrefix: "X-Chain-" }),
      servers: [{ url: "../api" }],
    });
    const nested = setup({ basePath: "/chain/v2" });
    const deep = JSON.parse(
      new TextDecoder().decode(nested.get("/chain/v2/spec.json").body as Uint8Array),
    );
    expect(new URL(deep.servers[0].url, "http://h/mount/chain/v2/spec.json").pathname).toBe(
      "/mount/chain/v2",
    );
    const root = JSON.parse(new TextDecoder().decode(nested.get("/spec.json").body as Uint8Array));
    expect(new URL(root.servers[0].url, "http://h/mount/spec.json").pathname).toBe(
      "/mount/chain/v2",
    );
  });

  it("serves the document as it was made: changing handler.document (SwaggerParser.validate dereferences it in place) changes neither copy, so JSON and YAML stay the same object", async () => {
    const s = setup();
    const body = (url: string) => new TextDecoder().decode(s.get(url).body as Uint8Array);
    const expected = (url: string) => ({ ...createOpenApiDocument(), servers: [{ url }] });
    // The JSON at /v1 is encoded before the change, the rest after it.
    expect(JSON.parse(body("/v1/spec.json"))).toEqual(expected("../v1"));
    await SwaggerParser.validate(s.handler.document as never);
    (s.handler.document.info as { title: string }).title = "changed";
    expect(parseYaml(body("/v1/spec.yaml"))).toEqual(expected("../v1"));
    expect(JSON.parse(body("/spec.json"))).toEqual(expected("./v1"));
    expect(parseYaml(body("/spec.yaml"))).toEqual(expected("./v1"));
  });

  it("describes what this handler serves: the BCS layout, the formats on, the explorer only when it is", async () => {
    type Op = { description: string; responses: { 200: { content: Record<string, unknown> } } };
    const estimate = (d: { paths?: Record<string, unknown> }) =>
      (d.paths!["/estimate_gas_price"] as { get: Op }).get;
    const full = setup();
    expect(full.handler.document.paths?.["/spec"]).toBeDefined();
    expect(estimate(full.handler.document).description).toContain(
      "`Option<u64>, u64, Option<u64>`",
    );
    const short = setup({
      bcsLayout: "gas_estimate_only",
      jsonOutput: false,
      explorerAssets: undefined,
    });
    const doc = short.handler.document;
    expect(estimate(doc).description).toContain("BCS (`u64`: the regular estimate alone, 8 bytes)");
    expect(estimate(doc).description).not.toContain("JSON");
    expect(Object.keys(estimate(doc).responses[200].content)).toEqual(["application/x-bcs"]);
    // No explorer files: /spec answers 404, so it is not listed.
    expect(doc.paths?.["/spec"]).toBeUndefined();
    expect(short.get("/v1/spec").status).toBe(404);
    // Still a valid document.
    await SwaggerParser.validate(structuredClone(doc) as never);
  });

  it("declares no 200 for an estimate this handler never serves (disabled, or no format on)", async () => {
    for (const options of [{ estimateEnabled: false }, { jsonOutput: false, bcsOutput: false }]) {
      const s = setup(options);
      s.blocks(1, 3);
      const op = (s.handler.document.paths!["/estimate_gas_price"] as Json).get;
      expect(op.responses["200"], JSON.stringify(options)).toBeUndefined();
      expect(op.responses["403"]).toBeDefined();
      expect(op.description).toContain("Disabled on this server");
      expect(s.get("/v1/estimate_gas_price").status).toBe(403);
      await SwaggerParser.validate(structuredClone(s.handler.document) as never);
    }
  });

  it("declares what a handler answers 200 on, and each of those paths answers it", () => {
    const s = setup();
    s.blocks(1, 3);
    const doc = s.handler.document as Json;
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      const res = s.get(`/v1${path === "/" ? "" : path}`);
      expect(res.status, path).toBe(200);
      const declared = Object.keys((item as Json).get.responses["200"].content);
      expect(declared, path).toContain(res.headers["Content-Type"]!.split(";")[0]);
      // The chain-state headers declared required on a 200 are on it.
      const headers = Object.entries(((item as Json).get.responses["200"].headers ?? {}) as Json);
      for (const [name, h] of headers)
        if ((h as Json).required) expect(res.headers[name], `${path} ${name}`).toBeDefined();
    }
  });

  it("declares the 301 the page and the documents answer through an encoded slash, with its Location and body", async () => {
    const s = setup({ basePath: "/chain/v2" });
    const doc = (await SwaggerParser.dereference(
      structuredClone(s.handler.document) as never,
    )) as Json;
    for (const [route, url] of [
      ["/spec", "/chain/v2%2Fspec"],
      ["/spec.json", "/chain/v2%2Fspec.json"],
      ["/spec.yaml", "/chain%2Fv2/spec.yaml"],
    ] as const) {
      const res = s.get(url);
      expect(res.status, url).toBe(301);
      const declared = doc.paths[route].get.responses["301"];
      expect(declared, route).toBeDefined();
      expect(Object.keys(declared.headers)).toEqual(["Location"]);
      expect(res.headers.Location).toBeDefined();
      expect(Object.keys(declared.content)).toEqual([res.headers["Content-Type"]!.split(";")[0]]);
    }
  });

  it("declares duration_secs on the health check", () => {
    const doc = createOpenApiDocument() as Json;
    expect(doc.paths["/-/healthy"].get.parameters).toEqual([
      expect.objectContaining({
        in: "query",
        name: "duration_secs",
        schema: expect.objectContaining({ type: "integer", format: "uint32" }),
      }),
    ]);
  });
});
