// An application that makes its engine and metrics again (a reload, an engine per tenant) must
// be able to let the old ones go: close() takes gasdigest's metrics out of the registry.
import { spawnSync } from "node:child_process";
import { Counter, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createEngine } from "../../src/core/createEngine.js";
import { createMetrics } from "../../src/metrics.js";
import { calibrated } from "../../src/strategies/calibrated.js";
import { block } from "../helpers/blocks.js";

describe("createMetrics().close()", () => {
  it("takes out its own metrics only, and the registry takes a new createMetrics", async () => {
    const registry = new Registry();
    const mine = new Counter({
      name: "app_jobs_total",
      help: "the app's own",
      registers: [registry],
    });
    mine.inc();
    const engine = createEngine({ strategy: calibrated() });
    for (let h = 1; h <= 5; h++) engine.ingest(block(h));
    const metrics = createMetrics({ engine, registry, defaultMetrics: false });
    metrics.source("aptos")({ type: "connected" });
    metrics.published({ outcome: "published", height: 5n });
    expect((await registry.metrics()).includes("gasdigest_block_height 5")).toBe(true);
    metrics.close();
    metrics.close(); // idempotent
    expect(registry.getMetricsAsArray().map((m) => m.name)).toEqual(["app_jobs_total"]);
    metrics.observeRequest("/v1/estimate_gas_price", 200, 0.001); // ignored
    expect(() => metrics.source("redis")).toThrow(
      "cannot declare a source: the metrics are closed",
    );
    expect(() => metrics.published({ outcome: "published", height: 6n })).toThrow(
      "cannot count a published block: the metrics are closed",
    );
    const again = createMetrics({ engine, registry, defaultMetrics: false });
    expect((await again.scrape()).body).toContain("gasdigest_block_height 5");
  });

  it("lets the engine go: 100 engines with their metrics (default metrics on) are all collected", () => {
    // A child with --expose-gc against the built package, so collection is exact.
    const dist = (f: string) => JSON.stringify(new URL(`../../dist/${f}`, import.meta.url).href);
    const script = `
      import { createEngine, calibrated } from ${dist("index.js")};
      import { createMetrics } from ${dist("metrics.js")};
      import { Registry } from "prom-client";
      const refs = [];
      for (let i = 0; i < 100; i++) {
        let engine = createEngine({ strategy: calibrated() });
        for (let h = 1; h <= 20; h++) engine.ingest({ height: String(h), epoch: "1", gas_unit_prices: ["100", "300"] });
        let metrics = createMetrics({ engine, registry: new Registry() });
        await metrics.scrape();
        /*CLOSE*/
        engine.close();
        refs.push(new WeakRef(engine));
        engine = metrics = undefined;
        await new Promise((r) => setImmediate(r));
      }
      for (let i = 0; i < 3; i++) { gc(); await new Promise((r) => setImmediate(r)); }
      process.stdout.write(String(refs.filter((r) => r.deref() !== undefined).length));
      process.exit(0);
    `;
    const alive = (close: boolean) => {
      const r = spawnSync(
        process.execPath,
        [
          "--expose-gc",
          "--input-type=module",
          "-e",
          script.replace("/*CLOSE*/", close ? "metrics.close();" : ""),
        ],
        { encoding: "utf8", cwd: new URL("../..", import.meta.url).pathname },
      );
      expect(r.stderr).toBe("");
      return Number(r.stdout);
    };
    expect(alive(true)).toBe(0);
    // The control: without close(), prom-client's process collectors keep every one.
    expect(alive(false)).toBe(100);
  }, 60_000);
});
