import { Gauge, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createEngine } from "../../src/core/createEngine.js";
import { InvalidConfigError } from "../../src/core/errors.js";
import { createHandler } from "../../src/http/createHandler.js";
import type { HandlerResponse } from "../../src/http/types.js";
import { createMetrics, createMetricsServer } from "../../src/metrics.js";
import { aip34 } from "../../src/strategies/aip34.js";
import { calibrated } from "../../src/strategies/calibrated.js";
import { block } from "../helpers/blocks.js";
import { parsePrometheusText, sampleValue } from "./parsePrometheusText.js";

/** A full block whose cheapest transaction pays `clearing` (as in calibrated's tests). */
const cleared = (height: number, clearing: number) =>
  block(height, {
    gas_unit_prices: [String(clearing), String(clearing + 7), String(clearing * 2)],
    block_gas_limit_reached: true,
  });

const text = (res: HandlerResponse) => new TextDecoder().decode(res.body);

/** The known history: 50 full blocks clearing at 500, one duplicate, one malformed block. */
function knownHistory(now: () => number) {
  const engine = createEngine({ strategy: calibrated(), now });
  for (let h = 1; h <= 50; h++) engine.ingest(cleared(h, 500));
  expect(engine.ingest(cleared(50, 500))).toBe("duplicate");
  expect(() => engine.ingest({ height: "x" } as never)).toThrow();
  return engine;
}

describe("createMetrics with the handler: a known history", () => {
  it("serves a scrape that parses, with the counters, gauges and promises of that history", async () => {
    let clock = 1_700_000_000_000;
    const now = () => clock;
    const engine = knownHistory(now);
    const metrics = createMetrics({ engine, now });
    const handler = createHandler(engine, { metrics, maxStalenessMs: false });
    const get = (url: string, method = "GET") =>
      handler.respond({ method, url, headers: {} }) as HandlerResponse;
    for (let i = 0; i < 3; i++) expect(get("/v1/estimate_gas_price").status).toBe(200);
    expect(get("/v1/nope").status).toBe(404);
    expect(get("/v1/estimate_gas_price", "POST").status).toBe(405);
    expect(get("/v1/estimate_gas_price", "HEAD").status).toBe(200);
    clock += 2_500;

    const res = await handler.respond({ method: "GET", url: "/metrics", headers: {} });
    expect(res.status).toBe(200);
    expect(res.headers["Content-Type"]).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(res.headers["Cache-Control"]).toBe("no-store");
    // For Prometheus, not web pages: no CORS header lets another origin's page read it (the
    // interface's routes carry the default corsOrigin "*").
    expect(res.headers["Access-Control-Allow-Origin"]).toBeUndefined();
    expect(get("/v1/estimate_gas_price").headers["Access-Control-Allow-Origin"]).toBe("*");
    const m = parsePrometheusText(text(res));

    expect(sampleValue(m, "gasdigest_blocks_total", { outcome: "accepted" })).toBe(50);
    expect(sampleValue(m, "gasdigest_blocks_total", { outcome: "duplicate" })).toBe(1);
    expect(sampleValue(m, "gasdigest_blocks_total", { outcome: "rejected" })).toBe(1);
    expect(m.get("gasdigest_blocks_total")!.type).toBe("counter");
    expect(sampleValue(m, "gasdigest_block_height")).toBe(50);
    expect(sampleValue(m, "gasdigest_block_age_seconds")).toBe(2.5);
    const estimate = engine.snapshot()!.estimate!;
    for (const tier of ["deprioritized", "regular", "prioritized"] as const)
      expect(sampleValue(m, "gasdigest_estimate_gas_unit_price", { tier })).toBe(
        Number(estimate[tier]),
      );
    // The promises of calibrated after 50 blocks (see test/strategies/calibrated.test.ts).
    const p = engine.snapshot()!.promises!;
    expect(sampleValue(m, "gasdigest_promise_bids_total", { tier: "prioritized" })).toBe(48);
    expect(sampleValue(m, "gasdigest_promise_bids_total", { tier: "regular" })).toBe(46);
    expect(sampleValue(m, "gasdigest_promise_bids_total", { tier: "deprioritized" })).toBe(39);
    for (const tier of ["deprioritized", "regular", "prioritized"] as const) {
      expect(sampleValue(m, "gasdigest_promise_included_total", { tier })).toBe(p[tier].included);
      expect(sampleValue(m, "gasdigest_promise_inclusion_ratio", { tier, window: "all" })).toBe(
        p[tier].rate,
      );
      expect(sampleValue(m, "gasdigest_promise_probability", { tier })).toBe(p[tier].probability);
      // Every block cleared above the minimum: nothing got in free, so the share where the
      // price was a choice is the same; too few recent outcomes for its recent sample.
      expect(sampleValue(m, "gasdigest_promise_included_at_minimum_total", { tier })).toBe(0);
      expect(
        sampleValue(m, "gasdigest_promise_inclusion_ratio_above_minimum", { tier, window: "all" }),
      ).toBe(p[tier].rate);
      expect(
        sampleValue(m, "gasdigest_promise_inclusion_ratio_above_minimum", {
          tier,
          window: "recent",
        }),
      ).toBeUndefined();
    }
    expect(sampleValue(m, "gasdigest_info", { strategy: "calibrated" })).toBe(1);

    // Requests by route and status, and the latency histogram (HEAD counts as the route's 200).
    const route = "/v1/estimate_gas_price";
    expect(sampleValue(m, "gasdigest_http_requests_total", { route, status: "200" })).toBe(4);
    expect(sampleValue(m, "gasdigest_http_requests_total", { route, status: "405" })).toBe(1);
    expect(
      sampleValue(m, "gasdigest_http_requests_total", { route: "unmatched", status: "404" }),
    ).toBe(1);
    expect(m.get("gasdigest_http_request_duration_seconds")!.type).toBe("histogram");
    expect(sampleValue(m, "gasdigest_http_request_duration_seconds_count", { route })).toBe(5);
    expect(
      sampleValue(m, "gasdigest_http_request_duration_seconds_bucket", { route, le: "+Inf" }),
    ).toBe(5);
    // prom-client's process defaults.
    expect(m.get("process_cpu_seconds_total")?.type).toBe("counter");
    expect(m.get("nodejs_eventloop_lag_seconds")?.type).toBe("gauge");

    // The scrape itself is recorded, as route /metrics.
    const again = parsePrometheusText(
      text(await handler.respond({ method: "GET", url: "/metrics", headers: {} })),
    );
    expect(
      sampleValue(again, "gasdigest_http_requests_total", { route: "/metrics", status: "200" }),
    ).toBe(1);
  });

  it("reads the same through prom-client's own registry (getMetricsAsJSON)", async () => {
    const engine = knownHistory(Date.now);
    const registry = new Registry();
    const metrics = createMetrics({ engine, registry, defaultMetrics: false });
    createHandler(engine, { metrics })({
      method: "GET",
      url: "/v1/estimate_gas_price",
      headers: {},
    });
    const json = await registry.getMetricsAsJSON();
    const byName = new Map(json.map((j) => [j.name, j]));
    expect(byName.get("gasdigest_blocks_total")!.values).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ labels: { outcome: "accepted" }, value: 50 }),
      ]),
    );
    // The request that happened, and 0 for 200/500/503 of every other route of the handler.
    const requests = byName.get("gasdigest_http_requests_total")!.values as {
      labels: Record<string, string>;
      value: number;
    }[];
    expect(requests.filter((v) => v.value > 0)).toEqual([
      { labels: { route: "/v1/estimate_gas_price", status: "200" }, value: 1 },
    ]);
    expect(byName.has("process_cpu_seconds_total")).toBe(false);
    // resetMetrics() clears the request totals too.
    registry.resetMetrics();
    const text = await registry.metrics();
    expect(sampleValue(parsePrometheusText(text), "gasdigest_http_requests_total")).toBeUndefined();
  });

  it("refuses a second createMetrics on one registry and prefix by name, and leaves the first working", async () => {
    const engine = knownHistory(Date.now);
    const registry = new Registry();
    const first = createMetrics({ engine, registry, defaultMetrics: false });
    expect(() => createMetrics({ engine, registry, defaultMetrics: false })).toThrow(
      expect.objectContaining({
        name: "InvalidConfigError",
        message: expect.stringMatching(
          /registry: .*prefix "gasdigest_".*another prefix or registry/,
        ),
      }),
    );
    // Another prefix on the same registry is fine, and both scrape.
    createMetrics({ engine, registry, defaultMetrics: false, prefix: "other_" });
    const text = (await first.scrape()).body;
    expect(
      sampleValue(parsePrometheusText(text), "gasdigest_blocks_total", { outcome: "accepted" }),
    ).toBe(50);
    expect(
      sampleValue(parsePrometheusText(text), "other_blocks_total", { outcome: "accepted" }),
    ).toBe(50);
  });

  it("leaves out the promises for a strategy without them, and the newest block before any", async () => {
    const engine = createEngine({ strategy: aip34() });
    const metrics = createMetrics({ engine, defaultMetrics: false });
    let m = parsePrometheusText((await metrics.scrape()).body);
    expect(sampleValue(m, "gasdigest_block_height")).toBeUndefined();
    expect(
      sampleValue(m, "gasdigest_estimate_gas_unit_price", { tier: "regular" }),
    ).toBeUndefined();
    engine.ingest(block(1));
    m = parsePrometheusText((await metrics.scrape()).body);
    expect(sampleValue(m, "gasdigest_block_height")).toBe(1);
    expect(m.get("gasdigest_promise_bids_total")!.samples).toEqual([]);
    expect(m.get("gasdigest_promise_inclusion_ratio")!.samples).toEqual([]);
  });

  it("a scrape that fails is a 500 error object, and the handler keeps answering", async () => {
    const engine = knownHistory(Date.now);
    const handler = createHandler(engine, {
      metrics: {
        observeRequest() {
          throw new Error("a broken recorder is ignored");
        },
        scrape: () => Promise.reject(new Error("boom")),
      },
    });
    const res = await handler.respond({ method: "GET", url: "/metrics", headers: {} });
    expect(res.status).toBe(500);
    expect(text(res)).toContain('"error_code":"internal_error"');
    expect(res.headers["Access-Control-Allow-Origin"]).toBeUndefined();
    expect(
      (
        handler.respond({
          method: "GET",
          url: "/v1/estimate_gas_price",
          headers: {},
        }) as HandlerResponse
      ).status,
    ).toBe(200);
  });

  it("no answer of the metrics route grants another origin anything: not a preflight, not a 405", async () => {
    const engine = knownHistory(Date.now);
    const metrics = createMetrics({ engine, registry: new Registry(), defaultMetrics: false });
    const handler = createHandler(engine, { metrics, corsOrigin: "https://wallet.example" });
    const ask = (method: string, url: string) =>
      handler.respond({
        method,
        url,
        headers: { origin: "https://wallet.example", "access-control-request-headers": "x-a" },
      }) as HandlerResponse;
    const preflight = ask("OPTIONS", "/metrics");
    expect(preflight.status).toBe(204);
    expect(preflight.headers).toEqual({
      "X-Content-Type-Options": "nosniff",
      Allow: "GET, HEAD, OPTIONS",
    });
    const post = ask("POST", "/metrics");
    expect(post.status).toBe(405);
    expect(post.headers.Allow).toBe("GET, HEAD, OPTIONS");
    expect(Object.keys(post.headers).filter((h) => h.startsWith("Access-Control"))).toEqual([]);
    // The interface's routes keep their grants.
    const api = ask("OPTIONS", "/v1/estimate_gas_price");
    expect(api.headers["Access-Control-Allow-Origin"]).toBe("https://wallet.example");
    expect(api.headers["Access-Control-Allow-Headers"]).toBe("x-a");
    expect(ask("POST", "/v1").headers["Access-Control-Allow-Origin"]).toBe(
      "https://wallet.example",
    );
    metrics.close();
  });
});

describe("createMetrics: the share above the minimum at its least counts", () => {
  it("reads one bid above the minimum (all) and exactly 100 recent ones, absent with one fewer", async () => {
    // 200 bids, 199 of them in at the minimum: one bid was a choice, and it got in (1). Of the
    // 120 recent ones, 20 got in at the minimum: 100 were a choice. Then none (all), and 99.
    let free = 199;
    let recentBids = 120;
    const record = () => ({
      withinBlocks: 1,
      probability: 0.9,
      bids: 200,
      included: 200,
      includedAtMinimum: free,
      rate: 1,
      recentBids,
      recentRate: 1,
      recentIncludedAtMinimum: 20,
    });
    const engine = createEngine({
      strategy: () => ({
        name: "promising",
        ingest() {},
        estimate: (min: bigint) => ({ deprioritized: min, regular: min, prioritized: min }),
        reset() {},
        promises: () => ({ deprioritized: record(), regular: record(), prioritized: record() }),
      }),
    });
    const metrics = createMetrics({ engine });
    const ratio = async (window: string) => {
      const m = parsePrometheusText((await metrics.scrape()).body);
      return sampleValue(m, "gasdigest_promise_inclusion_ratio_above_minimum", {
        tier: "regular",
        window,
      });
    };
    engine.ingest(cleared(1, 500));
    expect(engine.snapshot()!.failure).toBeUndefined();
    expect(await ratio("all")).toBe(1);
    expect(await ratio("recent")).toBe(1);
    free = 200;
    recentBids = 119;
    engine.ingest(cleared(2, 500));
    expect(await ratio("all")).toBeUndefined();
    expect(await ratio("recent")).toBeUndefined();
  });
});

describe("createMetrics: sources, sinks and publish outcomes", () => {
  it("follows a source from starting to connected, retrying, connected, stale and completed", async () => {
    let clock = 0;
    let newest: number | undefined;
    let completed = false;
    const metrics = createMetrics({
      now: () => clock,
      maxStalenessMs: 1_000,
      defaultMetrics: false,
    });
    const listen = metrics.source("aptos", {
      newestBlockMs: () => newest,
      completed: () => completed,
    });
    const state = async () => {
      const m = parsePrometheusText((await metrics.scrape()).body);
      const on = m
        .get("gasdigest_source_state")!
        .samples.filter((s) => s.labels.source === "aptos" && s.value === 1);
      expect(on).toHaveLength(1);
      return { state: on[0]!.labels.state, m };
    };
    expect((await state()).state).toBe("starting");
    listen({ type: "started" });
    expect((await state()).state).toBe("connected");
    clock = 100;
    listen({ type: "retrying" });
    listen({ type: "retrying" });
    listen({ type: "unreachable" });
    listen({ type: "rejected" });
    const down = await state();
    expect(down.state).toBe("retrying");
    expect(sampleValue(down.m, "gasdigest_source_retries_total", { source: "aptos" })).toBe(2);
    expect(sampleValue(down.m, "gasdigest_source_outages_total", { source: "aptos" })).toBe(1);
    expect(sampleValue(down.m, "gasdigest_source_invalid_total", { source: "aptos" })).toBe(1);
    // A block arriving after the failure ends it.
    clock = 200;
    newest = 200;
    expect((await state()).state).toBe("connected");
    clock = 1_201;
    expect((await state()).state).toBe("stale");
    completed = true;
    expect((await state()).state).toBe("completed");
  });

  it("refuses a second source or sink of one kind, whose state would overwrite the first's", () => {
    const metrics = createMetrics({ defaultMetrics: false });
    metrics.source("aptos");
    expect(() => metrics.source("aptos")).toThrow(
      'kind: a source "aptos" is declared already: give each source its own kind, such as "aptos-2"',
    );
    expect(() => metrics.source("aptos-2")).not.toThrow();
    metrics.sink("redis");
    expect(() => metrics.sink("redis")).toThrow('a sink "redis" is declared already');
  });

  it("refuses a source or sink without a kind, and an outcome that is none, naming them", async () => {
    // They made series of label "undefined", "[object Object]" or "bogus".
    const metrics = createMetrics({ defaultMetrics: false });
    expect(() => (metrics.source as (kind?: unknown) => unknown)()).toThrow(
      'kind: must be a non-empty string naming the source, such as "aptos" (got nothing)',
    );
    expect(() => metrics.source("")).toThrow("kind: must be a non-empty string");
    expect(() => metrics.sink({} as never)).toThrow(
      "kind: must be a non-empty string naming the sink",
    );
    expect(() => metrics.published({ outcome: "bogus" as never, height: 1n })).toThrow(
      'outcome: must be one of published, already_published, refused, skipped, dropped (got "bogus")',
    );
    const body = (await metrics.scrape()).body;
    for (const value of ["undefined", "[object Object]", "bogus"])
      expect(body).not.toContain(`"${value}"`);
  });

  it("refuses a published height and a dropped count that are none, before counting anything", async () => {
    // A height of undefined or "x" was exported as `gasdigest_publish_height Nan`, -5n as -5; a
    // dropped count of NaN made the counter NaN for good (every later increase() NaN).
    const metrics = createMetrics({ defaultMetrics: false });
    const sink = metrics.sink("redis");
    metrics.published({ outcome: "published", height: 3n });
    for (const height of [undefined, "x", 4, -5n, 1n << 64n])
      expect(() => metrics.published({ outcome: "published", height: height as never })).toThrow(
        /height: must be a block height, a bigint from 0 to 18446744073709551615 \(got /,
      );
    for (const count of [Number.NaN, -1, 1.5, "2", Number.POSITIVE_INFINITY])
      expect(() => sink({ type: "dropped", count } as { type: string })).toThrow(
        /count: must be a whole number of blocks >= 0 \(got /,
      );
    sink({ type: "dropped", count: 2 } as { type: string });
    const body = (await metrics.scrape()).body;
    expect(body).toContain("\ngasdigest_publish_height 3\n");
    expect(body).toContain('\ngasdigest_publish_blocks_total{outcome="published"} 1\n');
    expect(body).toContain('\ngasdigest_publish_blocks_total{outcome="dropped"} 2\n');
  });

  it("counts publish outcomes, dropped blocks and the sink's retries", async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const sink = metrics.sink("redis");
    let m = parsePrometheusText((await metrics.scrape()).body);
    for (const outcome of ["published", "already_published", "refused", "skipped", "dropped"])
      expect(sampleValue(m, "gasdigest_publish_blocks_total", { outcome })).toBe(0);
    expect(sampleValue(m, "gasdigest_publish_height")).toBeUndefined();
    for (let h = 1n; h <= 3n; h++) metrics.published({ outcome: "published", height: h });
    metrics.published({ outcome: "already_published", height: 4n });
    metrics.published({ outcome: "already_published", height: 5n });
    metrics.published({ outcome: "skipped", height: 0n });
    metrics.published({ outcome: "refused", height: 6n });
    sink({ type: "retrying" });
    sink({ type: "dropped", count: 7 } as { type: string });
    m = parsePrometheusText((await metrics.scrape()).body);
    expect(sampleValue(m, "gasdigest_publish_blocks_total", { outcome: "published" })).toBe(3);
    expect(sampleValue(m, "gasdigest_publish_blocks_total", { outcome: "already_published" })).toBe(
      2,
    );
    expect(sampleValue(m, "gasdigest_publish_blocks_total", { outcome: "skipped" })).toBe(1);
    expect(sampleValue(m, "gasdigest_publish_blocks_total", { outcome: "refused" })).toBe(1);
    expect(sampleValue(m, "gasdigest_publish_blocks_total", { outcome: "dropped" })).toBe(7);
    expect(sampleValue(m, "gasdigest_publish_height")).toBe(5);
    expect(sampleValue(m, "gasdigest_sink_retries_total", { sink: "redis" })).toBe(1);
    expect(sampleValue(m, "gasdigest_sink_state", { sink: "redis", state: "retrying" })).toBe(1);
  });
});

describe("options", () => {
  it("names every invalid option", () => {
    let error: unknown;
    try {
      createMetrics({
        prefix: "9bad",
        maxStalenessMs: -1,
        requestDurationBuckets: [0.1, 0.05],
        engine: {} as never,
        colour: 1,
      } as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidConfigError);
    expect((error as InvalidConfigError).issues.map((i) => i.path).sort()).toEqual([
      "colour",
      "engine",
      "maxStalenessMs",
      "prefix",
      "requestDurationBuckets",
    ]);
  });

  it("every route of the handler reports 200, 500 and 503 at 0 before its first request", async () => {
    const engine = createEngine({ strategy: aip34() });
    const metrics = createMetrics({ engine, defaultMetrics: false });
    const handler = createHandler(engine, { metrics, basePath: "/api" });
    let m = parsePrometheusText((await metrics.scrape()).body);
    for (const route of ["/api/estimate_gas_price", "/api/-/healthy", "/metrics", "unmatched"])
      for (const status of ["200", "500", "503"])
        expect(sampleValue(m, "gasdigest_http_requests_total", { route, status })).toBe(0);
    // The first 503 (no block yet) is an increase from 0, which rate() sees.
    expect(handler({ method: "GET", url: "/api/estimate_gas_price", headers: {} }).status).toBe(
      503,
    );
    m = parsePrometheusText((await metrics.scrape()).body);
    const route = "/api/estimate_gas_price";
    expect(sampleValue(m, "gasdigest_http_requests_total", { route, status: "503" })).toBe(1);
    expect(
      sampleValue(m, "gasdigest_http_requests_total", { route, status: "404" }),
    ).toBeUndefined();
  });

  it("counts a request at a bucket's bound in that bucket (le is inclusive), a status below 100 as 0", async () => {
    const engine = createEngine({ strategy: aip34() });
    const metrics = createMetrics({
      engine,
      defaultMetrics: false,
      requestDurationBuckets: [0.01, 0.1],
    });
    metrics.observeRequest("/r", 200, 0.01);
    const m = parsePrometheusText((await metrics.scrape()).body);
    const bucket = (le: string) =>
      sampleValue(m, "gasdigest_http_request_duration_seconds_bucket", { route: "/r", le });
    expect([bucket("0.01"), bucket("0.1"), bucket("+Inf")]).toEqual([1, 1, 1]);
    // A status that is no HTTP status (below 100) is counted as status 0.
    metrics.observeRequest("/r", 99, 0.01);
    const again = parsePrometheusText((await metrics.scrape()).body);
    expect(sampleValue(again, "gasdigest_http_requests_total", { route: "/r", status: "0" })).toBe(
      1,
    );
  });

  it("counts a request of infinite seconds, as one of NaN or negative ones, without timing it", async () => {
    // Timed, it made the sum +Inf for good: every rate() of it NaN.
    const metrics = createMetrics({ defaultMetrics: false, requestDurationBuckets: [0.01] });
    metrics.observeRequest("/r", 200, 0.002);
    for (const seconds of [Number.POSITIVE_INFINITY, Number.NaN, -1])
      metrics.observeRequest("/r", 200, seconds);
    const body = (await metrics.scrape()).body;
    expect(body).toContain('\ngasdigest_http_requests_total{route="/r",status="200"} 4\n');
    expect(body).toContain('\ngasdigest_http_request_duration_seconds_sum{route="/r"} 0.002\n');
    expect(body).toContain('\ngasdigest_http_request_duration_seconds_count{route="/r"} 1\n');
    expect(body).toContain(
      '\ngasdigest_http_request_duration_seconds_bucket{le="+Inf",route="/r"} 1\n',
    );
  });

  it("reads a block's age as 0, never negative, when the wall clock stepped back behind its arrival", async () => {
    let clock = 1_700_000_000_000;
    const engine = knownHistory(() => clock);
    const metrics = createMetrics({ engine, defaultMetrics: false, now: () => clock });
    clock -= 10_000;
    const m = parsePrometheusText((await metrics.scrape()).body);
    expect(sampleValue(m, "gasdigest_block_age_seconds")).toBe(0);
  });

  it("routes past the 63rd, from handlers sharing one metrics, are counted as other", async () => {
    const engine = createEngine({ strategy: aip34() });
    const metrics = createMetrics({ engine, defaultMetrics: false });
    // Ten handlers under their own base paths: about 70 routes declared in all.
    const handlers = "abcdefghij"
      .split("")
      .map((x) => createHandler(engine, { metrics, basePath: `/${x}/v1` }));
    for (const h of handlers) h({ method: "GET", url: "/nope", headers: {} });
    const last = handlers[9]!;
    for (let i = 0; i < 3; i++)
      last({ method: "GET", url: "/j/v1/estimate_gas_price", headers: {} });
    for (let i = 0; i < 70; i++) metrics.observeRequest(`/r${i}`, 200, 0.001);
    const samples = parsePrometheusText((await metrics.scrape()).body).get(
      "gasdigest_http_requests_total",
    )!.samples;
    const routes = new Set(samples.map((x) => x.labels.route));
    expect(routes.size).toBe(64);
    expect(routes.has("other")).toBe(true);
    // Every request is counted somewhere: 10 unmatched, 3 estimates and 70 more.
    const total = samples.reduce((sum, x) => sum + x.value, 0);
    expect(total).toBe(83);
  });

  it("createMetricsServer: HEAD carries GET's Content-Length; a failed scrape is logged once", async () => {
    const { listen } = await import("../../src/adapters/node/listen.js");
    const errors: unknown[] = [];
    let fail = false;
    const metrics = createMetrics({ defaultMetrics: false });
    const server = createMetricsServer(
      {
        ...metrics,
        scrape: () =>
          fail
            ? new Promise((_, reject) => setTimeout(() => reject(new Error("registry broke")), 100))
            : metrics.scrape(),
      },
      { logger: { error: (fields) => errors.push(fields) } },
    );
    const address = await listen(server, { host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${address.port}/metrics`;
    try {
      await (await fetch(url)).text(); // the scrape's own series exist from here on
      const get = await fetch(url);
      const body = await get.text();
      const head = await fetch(url, { method: "HEAD" });
      expect(head.status).toBe(200);
      // The length of the scrape it answered (the recorded requests change a few digits).
      expect(Number(get.headers.get("content-length"))).toBe(body.length);
      const length = Number(head.headers.get("content-length"));
      expect(Math.abs(length - body.length)).toBeLessThan(body.length / 20);
      fail = true;
      // Five requests sharing one failed collection: five 500s, one line in the log.
      const failed = await Promise.all(Array.from({ length: 5 }, () => fetch(url)));
      expect(failed.map((r) => r.status)).toEqual([500, 500, 500, 500, 500]);
      expect(errors).toHaveLength(1);
      expect(String((errors[0] as { err: Error }).err.message)).toBe("registry broke");
    } finally {
      await server.shutdown();
    }
    expect(() => createMetricsServer(metrics, { logger: {} as never })).toThrow(
      /logger: must be a logger with an error method/,
    );
  });

  it("createMetricsServer: a scrape that answers no scrape is a logged 500, as through the handler", async () => {
    const { listen } = await import("../../src/adapters/node/listen.js");
    const errors: unknown[] = [];
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on("unhandledRejection", onRejection);
    let answer: unknown;
    const server = createMetricsServer(
      { observeRequest: () => {}, scrape: async () => answer as never },
      { logger: { error: (fields) => errors.push(fields) } },
    );
    const address = await listen(server, { host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${address.port}/metrics`;
    try {
      for (const bad of [undefined, { contentType: "text/plain", body: 42 }]) {
        answer = bad;
        // Before, the answer threw: an unhandled rejection (the process ended), no answer.
        const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
        expect(res.status).toBe(500);
        expect(await res.json()).toMatchObject({ message: "collecting the metrics failed" });
      }
      // Scraped again once it answers a scrape.
      answer = {
        contentType: "text/plain; version=0.0.4",
        body: new TextEncoder().encode("x 1\n"),
      };
      expect(await (await fetch(url)).text()).toBe("x 1\n");
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(rejections).toEqual([]);
      expect(errors).toHaveLength(2);
      expect(String((errors[0] as { err: Error }).err.message)).toMatch(
        /^scrape\(\) must resolve to \{ contentType: string, body: string \| Uint8Array \}, got nothing$/,
      );
    } finally {
      process.off("unhandledRejection", onRejection);
      await server.shutdown();
    }
  });

  it("createMetricsServer names every invalid option", () => {
    let error: unknown;
    try {
      createMetricsServer({} as never, { path: "metrics", maxConnections: 0, port: 1 } as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidConfigError);
    expect((error as InvalidConfigError).issues.map((i) => i.path).sort()).toEqual([
      "maxConnections",
      "metrics",
      "path",
      "port",
    ]);
  });

  it("createMetricsServer refuses a timeout longer than a timer takes, as the node server does", () => {
    // 2^31 ms of closeTimeout destroyed the connections still open 1 ms after shutdown() (node
    // fires a longer timer after 1 ms), and a writeIdleTimeout that long looked every 1 ms.
    const metrics = createMetrics({ defaultMetrics: false });
    let error: unknown;
    try {
      createMetricsServer(metrics, { closeTimeout: 2 ** 31, writeIdleTimeout: 2 ** 31 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidConfigError);
    expect((error as InvalidConfigError).issues).toMatchObject([
      {
        path: "closeTimeout",
        message: "must be a whole number of ms from 0 to 2147483647 (got 2147483648)",
      },
      {
        path: "writeIdleTimeout",
        message: "must be a whole number of ms from 1 to 2147483647 (got 2147483648)",
      },
    ]);
    const server = createMetricsServer(metrics, { closeTimeout: 2_147_483_647 });
    void server.shutdown();
  });

  it("a registry that already holds the process defaults is a clear error", () => {
    const registry = new Registry();
    createMetrics({ registry });
    expect(() => createMetrics({ registry, prefix: "other_" })).toThrow(/defaultMetrics: false/);
  });

  it("a registry holding a metric of one of gasdigest's names is refused, and left as it was", async () => {
    // prom-client's raw Error, with the 48 metrics registered before it left in the registry
    // (holding the engine), and every later createMetrics on it refused as "called twice".
    const registry = new Registry();
    new Gauge({ name: "gasdigest_info", help: "the app's own", registers: [registry] });
    const engine = createEngine({ strategy: aip34() });
    const make = () => createMetrics({ engine, registry });
    expect(make).toThrow(InvalidConfigError);
    expect(make).toThrow(
      "registry: the registry holds a metric of one of gasdigest's names (A metric with the name gasdigest_info has already been registered.); give this one another prefix or registry",
    );
    expect(registry.getMetricsAsArray().map((m) => m.name)).toEqual(["gasdigest_info"]);
    const other = createMetrics({ engine, registry, prefix: "chain_" });
    expect((await other.scrape()).body).toContain("chain_blocks_total");
  });

  it("the handler refuses a metricsPath without metrics, or one that is a route already", () => {
    const engine = createEngine({ strategy: aip34() });
    expect(() => createHandler(engine, { metricsPath: "/m" })).toThrow(
      "metricsPath: only applies with the metrics option",
    );
    const metrics = createMetrics({ defaultMetrics: false });
    expect(() => createHandler(engine, { metrics, metricsPath: "/spec.json" })).toThrow(
      /already a route/,
    );
    expect(() => createHandler(engine, { metrics: {} as never })).toThrow(
      /missing observeRequest, scrape/,
    );
  });

  it("the scrape answers 404 through the synchronous handler (only respond() serves it)", () => {
    const engine = createEngine({ strategy: aip34() });
    const metrics = createMetrics({ defaultMetrics: false });
    const res = createHandler(engine, { metrics })({ method: "GET", url: "/metrics", headers: {} });
    expect(res.status).toBe(404);
    expect(text(res)).toContain("handler.respond(request)");
  });
});
