// The portability claim, for real: the built package, installed in a fresh project, serves the
// estimate, the chain-state headers, BCS and the explorer (page and files) from Bun, Deno and
// workerd, each fed by a push source and answering through gasdigest/fetch. Every answer is
// compared with node's (the same handler in this process), and the key ones with fixed values.
// Run with `npm run test:runtimes` (builds first); the binaries come from the npm packages bun,
// deno and workerd (devDependencies).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { explorerAssets } from "../../dist/explorerAssets.js";
import { createFetchHandler } from "../../src/adapters/fetch/index.js";
import { serializeBlockSample } from "../../src/core/blockSample.js";
import { createEngine } from "../../src/core/createEngine.js";
import type { SwaggerUiFile } from "../../src/http/explorer.js";
import { shippedSwaggerUiBytes } from "../../src/http/shippedSwaggerUi.js";
import { pushSource } from "../../src/sources/pushSource.js";
import { simulateBlocks } from "../../src/sources/simulator.js";
import { aip34 } from "../../src/strategies/aip34.js";
import { type IsolatedProject, makeIsolatedProject } from "../helpers/isolatedProject.js";
import { exchange, type RawResponse } from "../helpers/rawHttp.js";
import { type RunningRuntime, startBun, startDeno, startWorkerd } from "./runtimes.js";

const swaggerUi = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

/** 200 busy blocks (estimate 300 / 300 / 500), then a line that is not a block. */
const BLOCKS = [...simulateBlocks({ scenario: "busy", blocks: 200, seed: 1 })].map(
  serializeBlockSample,
);
const BAD_LINE = '{"height":"201","epoch":"1","gas_unit_prices":["-5"]}';
const ESTIMATE =
  '{"deprioritized_gas_estimate":300,"gas_estimate":300,"prioritized_gas_estimate":500}';
// BCS: Some(300) u64 LE, 300 u64 LE, Some(500) u64 LE.
const BCS = "012c010000000000002c0100000000000001f401000000000000";
const CHAIN_STATE = {
  "x-aptos-chain-id": "4",
  "x-aptos-epoch": "1",
  "x-aptos-block-height": "200",
  "x-aptos-oldest-block-height": "80",
  "x-aptos-ledger-version": "50401",
  "x-aptos-ledger-oldest-version": "19910",
  "x-aptos-ledger-timestampusec": "1700000049750000",
};

/** node's answers: the same fetch handler, in this process, fed the same blocks. */
function nodeReference() {
  const blocks = pushSource();
  const engine = createEngine({ strategy: aip34() });
  engine.connect(blocks.source$);
  for (const line of BLOCKS) blocks.push(JSON.parse(line));
  return createFetchHandler(engine, { explorerAssets });
}

type Answer = { status: number; headers: Record<string, string>; body: Buffer };

async function answer(res: Response): Promise<Answer> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) };
}

const RUNTIMES: [string, (p: IsolatedProject) => Promise<RunningRuntime>][] = [
  ["bun", startBun],
  ["deno", startDeno],
  ["workerd", startWorkerd],
];

describe.each(RUNTIMES)("%s", (name, startRuntime) => {
  let project: IsolatedProject | undefined;
  let runtime: RunningRuntime | undefined;
  const reference = nodeReference();

  beforeAll(async () => {
    project = makeIsolatedProject(`gasdigest-${name}-`);
    runtime = await startRuntime(project);
    console.log(`${name}: ${runtime.version}, pid ${runtime.pid}, ${runtime.origin}`);
  }, 120_000);

  afterAll(async () => {
    await runtime?.stop();
    project?.remove();
  });

  /** The runtime's answer to `path`, and node's (the reference handler in this process). */
  async function both(path: string, init?: RequestInit): Promise<[Answer, Answer]> {
    const actual = await answer(await fetch(runtime!.origin + path, init));
    const expected = await answer(await reference(new Request(`http://127.0.0.1${path}`, init)));
    return [actual, expected];
  }

  /** Same status, same body bytes, and every header the handler set, with the same value. */
  function expectSame([actual, expected]: [Answer, Answer], what: string) {
    expect(actual.status, what).toBe(expected.status);
    expect(actual.body.equals(expected.body), `${what}: body`).toBe(true);
    for (const [header, value] of Object.entries(expected.headers))
      expect(actual.headers[header], `${what}: ${header}`).toBe(value);
  }

  it("answers 503 before the first block", async () => {
    const res = await fetch(`${runtime!.origin}/v1/estimate_gas_price`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      message: "no block has been ingested yet",
      error_code: "internal_error",
      vm_error_code: null,
    });
  });

  it("takes the blocks through its push source, refusing a bad one with the field and problem", async () => {
    const res = await fetch(`${runtime!.origin}/blocks`, {
      method: "POST",
      body: [...BLOCKS, BAD_LINE].join("\n"),
    });
    expect(await res.json()).toEqual({
      accepted: 200,
      rejected: [
        'line 201: invalid block sample: gas_unit_prices[0]: must not be negative (got "-5")',
      ],
    });
    expect(res.status).toBe(400);
  });

  it("serves the estimate as JSON with the seven chain-state headers, as node does", async () => {
    const pair = await both("/v1/estimate_gas_price");
    expectSame(pair, "estimate");
    const [actual] = pair;
    expect(actual.status).toBe(200);
    expect(actual.body.toString()).toBe(ESTIMATE);
    expect(actual.headers).toMatchObject(CHAIN_STATE);
    expect(actual.headers["content-type"]).toBe("application/json");
  });

  it("serves BCS when Accept prefers it, and HEAD with no body", async () => {
    const pair = await both("/v1/estimate_gas_price", { headers: { Accept: "application/x-bcs" } });
    expectSame(pair, "bcs");
    expect(pair[0].body.toString("hex")).toBe(BCS);
    expect(pair[0].headers["content-type"]).toBe("application/x-bcs");
    const head = await both("/v1/estimate_gas_price", { method: "HEAD" });
    expectSame(head, "head");
    expect(head[0].status).toBe(200);
    expect(head[0].body.length).toBe(0);
    expect(head[0].headers).toMatchObject(CHAIN_STATE);
  });

  it("serves ledger info, the health check, errors and the CORS preflight as node does", async () => {
    expectSame(await both("/v1"), "ledger info");
    expectSame(await both("/v1/-/healthy"), "healthy");
    expectSame(await both("/v1/-/healthy?duration_secs=x"), "bad query");
    expectSame(await both("/v1/nope"), "404");
    expectSame(await both("/v1/estimate_gas_price", { method: "DELETE" }), "405");
    const preflight = {
      method: "OPTIONS",
      headers: {
        Origin: "https://wallet.example",
        "Access-Control-Request-Headers": "x-aptos-client",
      },
    };
    expectSame(await both("/v1/estimate_gas_price", preflight), "preflight");
  });

  /** The runtime's answer to one raw request (`Connection: close` or HTTP/1.0: it closes). */
  async function raw(head: string): Promise<RawResponse> {
    const port = Number(new URL(runtime!.origin).port);
    const { responses } = await exchange(port, [head], { timeoutMs: 10_000 });
    expect(responses.length, head).toBe(1);
    return responses[0]!;
  }

  it("routes a request without a valid Host by its target, as node does (Bun's request.url is then relative)", async () => {
    const cases: [head: string, path: string][] = [
      ["GET /v1/-/healthy HTTP/1.0\r\n\r\n", "/v1/-/healthy"],
      ["GET /v1 HTTP/1.0\r\n\r\n", "/v1"],
      ["GET /x/v1/estimate_gas_price HTTP/1.0\r\n\r\n", "/x/v1/estimate_gas_price"],
      ["GET //x/v1 HTTP/1.0\r\n\r\n", "//x/v1"],
      ["GET /x/v1/-/healthy HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n", "/x/v1/-/healthy"],
    ];
    for (const [head, path] of cases) {
      const actual = await raw(head);
      if (name === "workerd") {
        // workerd refuses a request without a Host itself, before the app sees it.
        expect(actual.status, head).toBe(400);
        expect(actual.body, head).not.toContain("error_code");
        continue;
      }
      const expected = await answer(await reference(new Request(`http://127.0.0.1${path}`)));
      expect(actual.status, head).toBe(expected.status);
      expect(actual.body, head).toBe(expected.body.toString("latin1"));
    }
    // The app's own route reads request.url too (an empty push, so no block changes).
    const push = await raw("POST /blocks HTTP/1.0\r\nContent-Length: 0\r\n\r\n");
    if (name === "workerd") expect(push.status).toBe(400);
    else expect([push.status, push.body]).toEqual([200, '{"accepted":0,"rejected":[]}']);
  });

  it("answers 400 for a Host that is not host[:port], as node does (Deno and workerd paste it into request.url)", async () => {
    const invalid =
      '{"message":"invalid Host header","error_code":"web_framework_error","vm_error_code":null}';
    for (const [host, target] of [
      ["127.0.0.1/v1/estimate_gas_price?", "/v1/nope"],
      ["127.0.0.1/v1/nope?", "/v1/estimate_gas_price"],
      ["bad host", "/v1/estimate_gas_price"],
    ]) {
      const head = `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;
      const actual = await raw(head);
      expect([actual.status, actual.body], head).toEqual([400, invalid]);
      expect(actual.headers).toMatchObject(CHAIN_STATE);
    }
    // The app's own route reads request.url too: Deno and workerd paste the Host into it, which
    // then no URL parser takes (Bun hands over the target: the app's answer to an empty push).
    const push = await raw(
      "POST /blocks HTTP/1.1\r\nHost: bad host\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    );
    if (name === "bun")
      expect([push.status, push.body]).toEqual([200, '{"accepted":0,"rejected":[]}']);
    else expect([push.status, push.body]).toEqual([400, invalid]);
  });

  it("serves the OpenAPI document as JSON and YAML as node does", async () => {
    for (const path of ["/v1/spec.json", "/spec.json", "/v1/spec.yaml"])
      expectSame(await both(path), path);
    const doc = JSON.parse((await both("/v1/spec.json"))[0].body.toString());
    expect(doc.paths["/estimate_gas_price"]).toBeDefined();
  });

  it("serves the explorer page and every file it references, byte for byte, offline", async () => {
    const page = await both("/v1/spec");
    expectSame(page, "page");
    expect(page[0].status).toBe(200);
    expect(page[0].headers["content-security-policy"]).toContain("default-src 'none'");
    const html = page[0].body.toString();
    const refs = [...html.matchAll(/(?:src|href)="(spec\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBe(6);
    for (const ref of refs) {
      const file = await both(`/v1/${ref}`);
      expectSame(file, ref);
      expect(file[0].status, ref).toBe(200);
      const name = ref.slice("spec/assets/".length);
      if (name !== "explorer.js") {
        const shipped = shippedSwaggerUiBytes(
          name as SwaggerUiFile,
          new Uint8Array(readFileSync(join(swaggerUi, name))),
        );
        expect(file[0].body.equals(shipped), name).toBe(true);
      }
      const etag = file[0].headers.etag!;
      const cached = await fetch(`${runtime!.origin}/v1/${ref}`, {
        headers: { "If-None-Match": etag },
      });
      expect(cached.status, `${ref} revalidated`).toBe(304);
    }
  });

  it("wrote nothing to stderr", () => {
    expect(runtime!.stderr()).toBe("");
  });
});
