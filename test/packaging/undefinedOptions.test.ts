// Every optional field of an options object takes an explicit `undefined` as "not given", at
// runtime and in the types (`field?: T | undefined`), so an application compiled with
// `exactOptionalPropertyTypes` can forward a value it may not have: `{ seed: opts.seed }`.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lastValueFrom, take, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { createFetchHandler } from "../../src/adapters/fetch/index.js";
import { gasdigest as koaGasdigest } from "../../src/adapters/koa/index.js";
import { createBacktest, createSeriesRecorder, renderReport } from "../../src/backtest/index.js";
import {
  aip34,
  BaseError,
  createEngine,
  createOpenApiDocument,
  createSlidingDigest,
  createTDigest,
  geth,
  parseBlockSample,
  parseJsonLossless,
  simulator,
} from "../../src/index.js";
import { createMetrics, createMetricsServer } from "../../src/metrics.js";
import { createServer, listen, ndjsonFile, readNdjson } from "../../src/node.js";

describe("an optional field given as undefined is a field not given", () => {
  it("in every options object of the entry points", async () => {
    const u = undefined;
    const engine = createEngine({ strategy: aip34(), config: u, now: u });
    const block = parseBlockSample({
      height: 1,
      epoch: 1,
      gas_unit_prices: [100],
      timestamp_usec: u,
      first_version: u,
      last_version: u,
      chain_id: u,
      min_gas_unit_price: u,
      gas_used: u,
      block_gas_limit_reached: u,
      block_gas_limit: u,
      majority_use_case_fraction: u,
    });
    engine.ingest(block);
    expect(engine.snapshot()!.estimate).toBeDefined();
    expect(new BaseError("x", { details: u, cause: u }).message).toBe("x");
    expect(
      parseJsonLossless("[1]", {
        maxContainers: u,
        maxMembers: u,
        maxObjectMembers: u,
        maxValues: u,
      }),
    ).toEqual([1]);
    createTDigest({ compression: u, bufferSize: u }).add(1);
    createSlidingDigest({ windowBlocks: 3, chunks: u, exactUpTo: u, compression: u });
    geth({ blocks: u, samplesPerBlock: u, percentiles: u });
    createOpenApiDocument({
      basePath: u,
      headerPrefix: u,
      bcsLayout: u,
      jsonOutput: u,
      bcsOutput: u,
      estimateEnabled: u,
      explorer: u,
    });
    const blocks = await lastValueFrom(
      simulator({
        seed: u,
        scenario: u,
        blocks: 2,
        intervalMs: 0,
        blockCapacity: u,
        mempoolCapacity: u,
        startHeight: u,
        startVersion: u,
        epochLength: u,
        startTimeUsec: u,
        clock: u,
        now: u,
        chainId: u,
        minGasUnitPrice: u,
      }).pipe(take(2), toArray()),
    );
    expect(blocks).toHaveLength(2);
    const file = join(mkdtempSync(join(tmpdir(), "gasdigest-undefined-")), "h.ndjson");
    writeFileSync(file, '{"height":"1","epoch":"1","gas_unit_prices":["100"]}\n');
    const read = await lastValueFrom(
      ndjsonFile(file, {
        onInvalidLine: u,
        maxLineBytes: u,
        speed: u,
        maxWaitMs: u,
        fromHeight: u,
        onWaitCut: u,
      }).pipe(toArray()),
    );
    expect(read).toHaveLength(1);
    for await (const entry of readNdjson(file, {
      maxLineBytes: u,
      signal: u,
      onBytes: u,
      fastPath: u,
    }))
      expect(entry.ok).toBe(true);
    const backtest = createBacktest({
      strategies: [{ strategy: aip34(), name: u, config: u }],
      config: u,
      calmBlocks: u,
      verify: u,
      verifyEvery: u,
      onBlock: u,
    });
    backtest.push(block);
    const series = createSeriesRecorder({ strategies: ["aip34"], maxPoints: u });
    expect(
      renderReport({
        result: backtest.result(),
        series: series.series(),
        title: u,
        source: u,
        frontier: u,
      }),
    ).toContain("<html");
    createFetchHandler(engine, { prefix: u });
    koaGasdigest(engine, { prefix: u });
    const metrics = createMetrics({
      engine,
      registry: u,
      prefix: u,
      defaultMetrics: false,
      maxStalenessMs: u,
      requestDurationBuckets: u,
      now: u,
    });
    metrics.source("sim", { newestBlockMs: u, completed: u });
    const metricsServer = createMetricsServer(metrics, {
      path: u,
      maxConnections: u,
      requestTimeout: u,
      keepAliveTimeout: u,
      closeTimeout: u,
      logger: u,
    });
    await metricsServer.shutdown();
    metrics.close();
    const server = createServer(engine, {
      maxHeaderSize: u,
      maxBodySize: u,
      maxConnections: u,
      maxPipelinedRequests: u,
      writeIdleTimeout: u,
      keepAliveTimeout: u,
      requestTimeout: u,
      closeTimeout: u,
      closeEngine: u,
    });
    const address = await listen(server, { host: "127.0.0.1", port: u });
    expect(address.port).toBeGreaterThan(0);
    await server.shutdown();
  });
});
