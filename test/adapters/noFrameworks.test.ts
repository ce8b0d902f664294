// "Importing gasdigest in a project with none of the frameworks installed works" (issue 6),
// checked for real: the built package is copied into a fresh project whose node_modules holds
// only gasdigest's runtime dependencies, in a folder with no node_modules above it.
import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
};

/** A writable folder with no node_modules in it or in any folder above it. */
function isolatedParent(): string {
  for (const candidate of [tmpdir(), "/var/tmp", homedir()]) {
    let dir = resolve(candidate);
    let clean = existsSync(dir);
    for (;;) {
      if (existsSync(join(dir, "node_modules"))) clean = false;
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
    if (clean) return candidate;
  }
  throw new Error("no temporary folder without a node_modules above it: cannot isolate the test");
}

const CHECK = `
const results = {};
for (const name of ["gasdigest", "gasdigest/http", "gasdigest/node", "gasdigest/fetch",
  "gasdigest/express", "gasdigest/koa", "gasdigest/fastify",
  "express", "fastify", "fastify-plugin", "koa", "hono"]) {
  try {
    const m = await import(name);
    results[name] = { ok: true, exports: Object.keys(m).sort() };
  } catch (err) {
    results[name] = { ok: false, code: err.code, message: err.message };
  }
}
const { createEngine, aip34 } = await import("gasdigest");
const { createFetchHandler } = await import("gasdigest/fetch");
const engine = createEngine({ strategy: aip34 });
const fetchHandler = createFetchHandler(engine);
const spec = await fetchHandler(new Request("http://x/v1/spec.json"));
engine.ingest({ height: "1", epoch: "1", chain_id: 4, timestamp_usec: "1700000000000000",
  first_version: "1", last_version: "2", gas_unit_prices: [] });
const estimate = await fetchHandler(new Request("http://x/v1/estimate_gas_price"));
results.served = { spec: spec.status, title: (await spec.json()).info.title, estimate: await estimate.text() };
console.log(JSON.stringify(results));
`;

describe("gasdigest in a project without any framework", () => {
  let project: string;
  let results: Record<string, { ok: boolean; code?: string; message?: string; exports?: string[] }>;

  beforeAll(() => {
    if (!existsSync(join(root, "dist/adapters/fetch/index.js")))
      throw new Error("dist/ is missing or stale: run `npm run build` first (npm test does)");
    project = mkdtempSync(join(isolatedParent(), "gasdigest-noframeworks-"));
    const self = join(project, "node_modules/gasdigest");
    mkdirSync(self, { recursive: true });
    cpSync(join(root, "package.json"), join(self, "package.json"));
    cpSync(join(root, "dist"), join(self, "dist"), { recursive: true });
    for (const dep of Object.keys(pkg.dependencies)) {
      mkdirSync(dirname(join(project, "node_modules", dep)), { recursive: true });
      symlinkSync(join(root, "node_modules", dep), join(project, "node_modules", dep), "dir");
    }
    writeFileSync(join(project, "package.json"), '{"type":"module","private":true}\n');
    writeFileSync(join(project, "check.mjs"), CHECK);
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    delete env.NODE_PATH;
    const out = execFileSync(process.execPath, ["check.mjs"], { cwd: project, env });
    results = JSON.parse(String(out));
  }, 60_000);

  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it("really has none of the frameworks (the check is meaningful)", () => {
    for (const name of ["express", "fastify", "fastify-plugin", "koa", "hono"]) {
      expect(results[name]!.ok, name).toBe(false);
      expect(results[name]!.code).toBe("ERR_MODULE_NOT_FOUND");
    }
  });

  it("imports the core, http, node, fetch, express and koa entry points", () => {
    for (const name of [
      "gasdigest",
      "gasdigest/http",
      "gasdigest/node",
      "gasdigest/fetch",
      "gasdigest/express",
      "gasdigest/koa",
    ])
      expect(results[name], name).toMatchObject({ ok: true });
    expect(results.gasdigest!.exports).toEqual(
      expect.arrayContaining(["createEngine", "aip34", "simulator"]),
    );
    expect(results["gasdigest/node"]!.exports).toEqual(["createServer", "listen"]);
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

  it("gasdigest/fastify fails to load with a message naming fastify-plugin", () => {
    expect(results["gasdigest/fastify"]).toMatchObject({ ok: false, code: "ERR_MODULE_NOT_FOUND" });
    expect(results["gasdigest/fastify"]!.message).toMatch(/Cannot find package 'fastify-plugin'/);
  });
});
