// The packaging promises, checked on the built package (dist/, so `npm run build` first; npm test
// does): the root entry and the fetch adapter load without node (no `node:` module, no built-in,
// none of the CLI's or the node hosts' packages, however deep), the CLI's packages reach no
// library entry, and `sideEffects: false` loses nothing when a bundler drops unused modules.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type BuildOptions, build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { isolatedParent, repoRoot } from "../helpers/isolatedProject.js";
import { importGraph } from "./importGraph.js";

const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  exports: Record<string, string | { default: string }>;
  sideEffects: unknown;
};
const fileOf = (entry: string) => {
  const target = pkg.exports[entry]!;
  return join(repoRoot, typeof target === "string" ? target : target.default);
};

/** Entries that must load on any runtime (Bun, Deno, workerd) and the node-only ones. */
const NEUTRAL = [".", "./fetch", "./explorer-assets"];
const NODE_ONLY = [
  "./node",
  "./backtest",
  "./express",
  "./fastify",
  "./koa",
  "./redis",
  "./metrics",
];
/**
 * Packages the core must never reach: the CLI's (pino, cli-progress), the node hosts' files, and
 * the Redis client (an optional peer of gasdigest/redis only) and prom-client (an optional peer
 * of gasdigest/metrics only).
 */
const NOT_IN_CORE = ["pino", "cli-progress", "uplot", "swagger-ui-dist", "ioredis", "prom-client"];
const CLI_ONLY = ["pino", "cli-progress"];

const temp: string[] = [];
afterAll(() => {
  for (const dir of temp) rmSync(dir, { recursive: true, force: true });
});

describe("entry points", () => {
  it("every subpath of package.json's exports is classified here (a new one needs a rule)", () => {
    const entries = Object.keys(pkg.exports).filter((e) => e !== "./package.json");
    expect(entries.sort()).toEqual([...NEUTRAL, ...NODE_ONLY].sort());
    expect(pkg.sideEffects).toBe(false);
  });

  for (const entry of NEUTRAL) {
    it(`${entry} imports no runtime built-in and none of ${NOT_IN_CORE.join(", ")} (worker resolution)`, async () => {
      const graph = await importGraph(fileOf(entry), "worker");
      expect(graph.builtins).toEqual([]);
      expect(graph.packages.filter((p) => NOT_IN_CORE.includes(p))).toEqual([]);
    });

    it(`${entry}: none of its own files imports a built-in under node resolution either`, async () => {
      const graph = await importGraph(fileOf(entry), "node");
      // Under the node condition a dependency may pick its node build (yaml uses `process`);
      // Bun and Deno provide those. gasdigest's own files use none.
      expect(graph.builtins.filter((b) => !b.from.includes("node_modules/"))).toEqual([]);
      expect(graph.packages.filter((p) => NOT_IN_CORE.includes(p))).toEqual([]);
    });
  }

  for (const entry of NODE_ONLY)
    it(`${entry} reaches none of the CLI's packages (${CLI_ONLY.join(", ")})`, async () => {
      const graph = await importGraph(fileOf(entry), "node");
      expect(graph.packages.filter((p) => CLI_ONLY.includes(p))).toEqual([]);
    });

  for (const entry of NODE_ONLY.filter((e) => e !== "./metrics"))
    it(`${entry} does not reach prom-client (only gasdigest/metrics loads it)`, async () => {
      const graph = await importGraph(fileOf(entry), "node");
      expect(graph.packages).not.toContain("prom-client");
    });

  it("gasdigest/metrics reaches prom-client (the check can see it)", async () => {
    const graph = await importGraph(fileOf("./metrics"), "node");
    expect(graph.packages).toContain("prom-client");
  });

  it("follows bare specifiers: the root's graph goes through its dependencies' files", async () => {
    const graph = await importGraph(fileOf("."), "worker");
    expect(graph.packages).toEqual(expect.arrayContaining(["rxjs", "zod", "zod-openapi"]));
    expect(graph.files.filter((f) => f.includes("node_modules/zod/")).length).toBeGreaterThan(10);
  });
});

describe("the check can fail", () => {
  it("finds the CLI's packages and node built-ins in dist/cli/main.js", async () => {
    const graph = await importGraph(join(repoRoot, "dist/cli/main.js"), "node");
    expect(graph.packages).toEqual(expect.arrayContaining(["pino", "cli-progress"]));
    expect(graph.builtins.map((b) => b.specifier)).toEqual(expect.arrayContaining(["node:fs"]));
  });

  it("finds a built-in deep in an unused module of a side-effect-free package", async () => {
    const dir = mkdtempSync(join(isolatedParent(), "gasdigest-graph-"));
    temp.push(dir);
    const files: Record<string, string> = {
      "package.json": '{"type":"module","sideEffects":false}',
      "entry.js": 'export { a } from "./a.js";',
      "a.js": 'import { b } from "./b.js";\nexport const a = 1;\nexport const unused = b;',
      "b.js": 'import { join } from "node:path";\nexport const b = join("x", "y");',
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const graph = await importGraph(join(dir, "entry.js"), "worker");
    expect(graph.builtins).toEqual([
      { specifier: "node:path", from: expect.stringMatching(/b\.js$/) },
    ]);
  });
});

/**
 * Bundle `app` (module text importing the built package) as a Worker would get it: one ESM
 * file, runtime-neutral, tree-shaken; written to `bundle.mjs` next to it unless `write` is off.
 */
async function workerBundle(prefix: string, app: string, extra: BuildOptions = {}) {
  const dir = mkdtempSync(join(isolatedParent(), prefix));
  temp.push(dir);
  writeFileSync(join(dir, "app.mjs"), app);
  const result = await build({
    entryPoints: [join(dir, "app.mjs")],
    outfile: join(dir, "bundle.mjs"),
    bundle: true,
    treeShaking: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["worker", "browser"],
    logLevel: "silent",
    ...extra,
  });
  return { dir, result };
}

describe("sideEffects: false", () => {
  it("a tree-shaken bundle of the root still knows every built-in strategy and serves", async () => {
    const app = `
import { createEngine, createHandler, resolveStrategy } from ${JSON.stringify(fileOf("."))};
export function run() {
  const out = {};
  for (const name of ["aip34", "tdigest", "geth", "last-block"]) {
    const engine = createEngine({ strategy: resolveStrategy(name) });
    engine.ingest({ height: "1", epoch: "1", gas_unit_prices: ["100"] });
    engine.ingest({ height: "2", epoch: "1", gas_unit_prices: ["100"] });
    const res = createHandler(engine)({ method: "GET", url: "/v1/estimate_gas_price", headers: {} });
    out[name] = res.status + " " + new TextDecoder().decode(res.body);
  }
  return out;
}`;
    const { dir } = await workerBundle("gasdigest-shaken-", app);
    const { run } = (await import(pathToFileURL(join(dir, "bundle.mjs")).href)) as {
      run: () => Record<string, string>;
    };
    const idle =
      '200 {"deprioritized_gas_estimate":100,"gas_estimate":100,"prioritized_gas_estimate":';
    const served = run();
    expect(Object.keys(served)).toEqual(["aip34", "tdigest", "geth", "last-block"]);
    for (const [name, line] of Object.entries(served)) expect(line, name).toContain(idle);
  });

  it("a bundle of the engine and a strategy leaves out zod's other locales (import * as z keeps zod tree-shakable)", async () => {
    const { result } = await workerBundle(
      "gasdigest-zod-",
      `import { createEngine, aip34 } from ${JSON.stringify(fileOf("."))};
export const engine = createEngine({ strategy: aip34() });`,
      { write: false, minify: true, metafile: true },
    );
    const outputs = Object.values(result.metafile!.outputs);
    const included = outputs.flatMap((o) => Object.keys(o.inputs));
    expect(included.some((f) => f.includes("node_modules/zod/"))).toBe(true);
    // The English messages (zod's default) and none of the others.
    const locales = included.filter((f) => /node_modules\/zod\/.*\/locales\//.test(f));
    expect(locales.map((f) => f.replace(/.*\/locales\//, ""))).toEqual(["en.js"]);
    // About 100 KB minified; with zod's 60-odd locales it was about 480 KB.
    expect(outputs[0]!.bytes).toBeLessThan(250_000);
  });
});
