// What each entry point exports at run time, exactly: a change to the public surface shows up
// here and in docs/architecture.md#entry-points. Reads the built package (npm test builds first).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { VERSION } from "../../src/core/version.js";
import { repoRoot } from "../helpers/isolatedProject.js";

const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  version: string;
  exports: Record<string, string | { types: string; default: string }>;
};

const EXPORTS: Record<string, string[]> = {
  ".": [
    // engine, config, block samples
    "createEngine",
    "DEFAULT_GAS_CONFIG",
    "parseGasConfig",
    "parseBlockSample",
    "safeParseBlockSample",
    "serializeBlockSample",
    "parseJsonLossless",
    // strategies, and the AIP-34 pieces for writing one
    "aip34",
    "calibrated",
    "tdigest",
    "geth",
    "lastBlock",
    "registerStrategy",
    "resolveStrategy",
    "servedEstimate",
    "minInclusionPrice",
    "blockFullness",
    "nextBucket",
    "TIERS",
    // sketches
    "createTDigest",
    "createSlidingDigest",
    "tdigestFromJSON",
    // runtime-neutral sources
    "pushSource",
    "simulator",
    "simulateBlocks",
    // the HTTP handler
    "createHandler",
    "createOpenApiDocument",
    // errors
    "BaseError",
    "ValidationError",
    "InvalidBlockSampleError",
    "InvalidConfigError",
    "InvalidArgumentError",
    "InvalidJsonError",
    "BlockOrderError",
    "StrategyError",
    "SketchError",
  ],
  "./node": [
    "createServer",
    "listen",
    "ndjsonFile",
    "readNdjson",
    "InvalidLineError",
    "aptosRest",
    "aptosRestEventFields",
    "describeAptosRestEvent",
    "SourceRequestError",
    "InvalidResponseError",
  ],
  "./backtest": [
    "runBacktest",
    "createBacktest",
    "createSeriesRecorder",
    "formatTable",
    "renderReport",
    "readHistory",
    "clearingPrice",
    "LookaheadError",
  ],
  "./explorer-assets": ["explorerAssets", "swaggerUiVersion"],
  "./fetch": ["createFetchHandler"],
  "./express": ["gasdigest"],
  "./fastify": ["gasdigest"],
  "./koa": ["gasdigest"],
  "./redis": [
    "redisStream",
    "redisStreamSink",
    "redisStreamTop",
    "describeRedisEvent",
    "describeRedisSinkEvent",
    "redisEventFields",
    "RedisFeedError",
  ],
  "./metrics": ["createMetrics", "createMetricsServer", "REQUEST_DURATION_BUCKETS", "FEED_STATES"],
};

const PLUMBING = ["splitMountOptions", "stripPrefix", "parseCloseEngine"];

describe("entry points", () => {
  it("package.json lists exactly these subpaths, each with its types", () => {
    expect(Object.keys(pkg.exports).sort()).toEqual(
      [...Object.keys(EXPORTS), "./package.json"].sort(),
    );
    for (const entry of Object.keys(EXPORTS)) {
      const target = pkg.exports[entry] as { types: string; default: string };
      expect(existsSync(join(repoRoot, target.types)), `${entry} types`).toBe(true);
    }
  });

  for (const [entry, names] of Object.entries(EXPORTS))
    it(`${entry} exports ${names.length} runtime values`, async () => {
      const target = pkg.exports[entry] as { default: string };
      const module = (await import(pathToFileURL(join(repoRoot, target.default)).href)) as object;
      expect(Object.keys(module).sort()).toEqual([...names].sort());
      // The adapters' plumbing stays internal (src/http/mount.ts, handlerOptions.ts).
      for (const plumbing of PLUMBING) expect(Object.keys(module), entry).not.toContain(plumbing);
    });

  it("no entry registers a schema in zod's global registry, which the application's zod shares", async () => {
    // `.meta({ id })` would: the registry lives on globalThis, so an application's
    // `z.toJSONSchema(z.globalRegistry)` would hold the wire schemas (and throw on their bigints).
    const ids = () => Object.keys(z.toJSONSchema(z.globalRegistry).schemas);
    const before = ids();
    for (const target of Object.values(pkg.exports))
      if (typeof target !== "string")
        await import(pathToFileURL(join(repoRoot, target.default)).href);
    const root = (await import(
      pathToFileURL(join(repoRoot, "dist/index.js")).href
    )) as typeof import("../../src/index.js");
    root.createOpenApiDocument();
    root.createHandler(root.createEngine({ strategy: root.aip34() }));
    expect(ids()).toEqual(before);
  });

  it("VERSION (the OpenAPI document's info.version) is package.json's version", () => {
    expect(VERSION).toBe(pkg.version);
  });
});
