// `serve --metrics`, `serve --metrics-port` and `publish --metrics-port` end to end, in process,
// on free ports of 127.0.0.1, over a known history (a file with a duplicate, a block of a lower
// epoch and two bad lines); publish against a real redis-server.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { startPublish } from "../../src/cli/publish.js";
import { type ServeHandle, startServe } from "../../src/cli/serve.js";
import { parseBlockSample, serializeBlockSample } from "../../src/core/blockSample.js";
import { block } from "../helpers/blocks.js";
import { FAST_DRAIN } from "../helpers/fastDrain.js";
import { redisSkipReason, startRedis } from "../helpers/redisServer.js";
import { until } from "../helpers/until.js";
import { parsePrometheusText, sampleValue } from "./parsePrometheusText.js";

/** The options of every metrics server made, in order. */
const metricsServerOptions = vi.hoisted(() => [] as ({ closeTimeout?: number } | undefined)[]);
vi.mock("../../src/metrics/createMetricsServer.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../src/metrics/createMetricsServer.js")>();
  return {
    ...actual,
    createMetricsServer: (...args: Parameters<typeof actual.createMetricsServer>) => {
      metricsServerOptions.push(args[1]);
      return actual.createMetricsServer(...args);
    },
  };
});

const dir = mkdtempSync(join(tmpdir(), "gasdigest-metrics-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (h: number, epoch = 1) =>
  serializeBlockSample(parseBlockSample(block(h, { epoch: String(epoch) })));
/** Heights 1..20, 20 again, 21 of a lower epoch, two bad lines, 22..25. */
const HISTORY = join(dir, "history.ndjson");
writeFileSync(
  HISTORY,
  `${[
    ...Array.from({ length: 20 }, (_, i) => line(i + 1, 2)),
    line(20, 2),
    line(21, 1),
    "not json",
    '{"height":"x"}',
    ...Array.from({ length: 4 }, (_, i) => line(i + 22, 2)),
  ].join("\n")}\n`,
);

const io = () => ({ stdout: new PassThrough().resume(), stderr: new PassThrough().resume() });
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function serve(argv: string[]): Promise<ServeHandle> {
  const handle = await startServe(
    ["--host", "127.0.0.1", "--port", "0", "--source", `ndjson:${HISTORY}`, ...FAST_DRAIN, ...argv],
    io(),
  );
  cleanup.push(() => handle.close());
  return handle;
}

async function scrape(url: string) {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return parsePrometheusText(await res.text());
}

/** What every scrape of the history shows. */
function expectHistory(m: ReturnType<typeof parsePrometheusText>) {
  expect(sampleValue(m, "gasdigest_blocks_total", { outcome: "accepted" })).toBe(24);
  expect(sampleValue(m, "gasdigest_blocks_total", { outcome: "duplicate" })).toBe(1);
  expect(sampleValue(m, "gasdigest_blocks_total", { outcome: "rejected" })).toBe(1);
  expect(sampleValue(m, "gasdigest_block_height")).toBe(25);
  expect(sampleValue(m, "gasdigest_source_invalid_total", { source: "ndjson" })).toBe(2);
  expect(sampleValue(m, "gasdigest_source_state", { source: "ndjson", state: "completed" })).toBe(
    1,
  );
  expect(sampleValue(m, "process_resident_memory_bytes")).toBeGreaterThan(0);
}

describe("gasdigest serve --metrics", () => {
  it("serves /metrics on the main port with the history's counters and the requests", async () => {
    const handle = await serve(["--metrics", "--max-staleness-ms", "0"]);
    expect(handle.metricsUrl).toBe(`${handle.url}/metrics`);
    await until(() => handle.engine.sourcesCompleted, 10_000, "the file to be read");
    // A completed file is served however old its newest block (--max-staleness-ms 0).
    expect((await fetch(`${handle.url}/v1/estimate_gas_price`)).status).toBe(200);
    expect((await fetch(`${handle.url}/v1/estimate_gas_price`, { method: "POST" })).status).toBe(
      405,
    );
    const m = await scrape(`${handle.url}/metrics`);
    expectHistory(m);
    const route = "/v1/estimate_gas_price";
    expect(sampleValue(m, "gasdigest_http_requests_total", { route, status: "200" })).toBe(1);
    expect(sampleValue(m, "gasdigest_http_requests_total", { route, status: "405" })).toBe(1);
    expect(sampleValue(m, "gasdigest_info", { strategy: "aip34" })).toBe(1);
  });

  it("--metrics-port serves it on its own port only, and close() stops both", async () => {
    const handle = await serve(["--metrics-port", "0"]);
    const metricsUrl = handle.metricsUrl!;
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(metricsUrl).port).not.toBe(new URL(handle.url).port);
    await until(() => handle.engine.sourcesCompleted, 10_000, "the file to be read");
    expect((await fetch(`${handle.url}/metrics`)).status).toBe(404);
    await fetch(`${handle.url}/v1/estimate_gas_price`);
    const m = await scrape(metricsUrl);
    expectHistory(m);
    // The main port's requests are recorded (the /metrics 404 as unmatched).
    expect(
      sampleValue(m, "gasdigest_http_requests_total", { route: "unmatched", status: "404" }),
    ).toBe(1);
    expect((await fetch(metricsUrl.replace("/metrics", "/other"))).status).toBe(404);
    expect((await fetch(metricsUrl, { method: "POST" })).status).toBe(405);
    await handle.close();
    await expect(fetch(metricsUrl)).rejects.toThrow();
  });

  it("--close-timeout-ms reaches the metrics port too (its own default without it)", async () => {
    // The metrics port used to keep its 2 s whatever the flag: a scrape connection with half a
    // request held the stop 2 s after --close-timeout-ms 0, and was cut at 2 s with 8000.
    metricsServerOptions.length = 0;
    for (const argv of [["--close-timeout-ms", "0"], ["--close-timeout-ms", "8000"], []]) {
      const handle = await serve(["--metrics-port", "0", ...argv]);
      await handle.close();
    }
    expect(metricsServerOptions.map((o) => o?.closeTimeout)).toEqual([0, 8000, undefined]);
  });

  it("refuses unusable metrics flags with a usage error naming the flag", async () => {
    await expect(serve(["--metrics-host", "127.0.0.1"])).rejects.toThrow(
      "--metrics-host only applies with --metrics-port",
    );
    await expect(serve(["--metrics-port", "70000"])).rejects.toThrow(/--metrics-port/);
    // Not "cannot listen on :0 (--metrics-port): ... host: ...".
    await expect(serve(["--metrics-port", "0", "--metrics-host", ""])).rejects.toThrow(
      /^--metrics-host must be a non-empty string \(got ""\)$/,
    );
    // A base path that puts the handler's own routes where the scrape would be: named by the
    // flags, not by the handler's option (metricsPath) the user never set.
    await expect(serve(["--base-path", "/metrics", "--metrics"])).rejects.toThrow(
      '--metrics "/metrics" is already a route of the handler (its routes are under the base path "/metrics")',
    );
  });
});

const skip = redisSkipReason();
describe.skipIf(skip !== undefined)("gasdigest publish --metrics-port (real redis-server)", () => {
  it("counts published and already-published blocks of two publishers", async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.close());
    const publish = async () => {
      const argv = ["--source", `ndjson:${HISTORY}`, "--to", redis.url, "--metrics-port", "0"];
      const handle = await startPublish(argv, io());
      cleanup.push(() => handle.stop(1_000));
      expect(await handle.done).toBe(0);
      // The metrics port stays up until stop().
      return { handle, m: await scrape(handle.metricsUrl!) };
    };
    const first = await publish();
    const outcome = (m: typeof first.m, o: string) =>
      sampleValue(m, "gasdigest_publish_blocks_total", { outcome: o });
    // 25 heights written; the second 20 is refused by Redis: already published.
    expect(outcome(first.m, "published")).toBe(25);
    expect(outcome(first.m, "already_published")).toBe(1);
    expect(outcome(first.m, "dropped")).toBe(0);
    expect(first.handle.counts()).toMatchObject({ published: 25, already_published: 1 });
    expect(sampleValue(first.m, "gasdigest_publish_height")).toBe(25);
    expect(sampleValue(first.m, "gasdigest_source_invalid_total", { source: "ndjson" })).toBe(2);
    expect(
      sampleValue(first.m, "gasdigest_sink_state", { sink: "redis", state: "connected" }),
    ).toBe(1);
    // No engine in a publisher: no estimate metrics.
    expect(first.m.has("gasdigest_blocks_total")).toBe(false);

    // The second one resumes after the stream's top (25): nothing left in the file to write.
    const second = await publish();
    expect(outcome(second.m, "published")).toBe(0);
    expect(outcome(second.m, "already_published")).toBe(0);
    expect(outcome(second.m, "refused")).toBe(0);
    expect(await redis.client.xlen("gasdigest:blocks")).toBe(25);

    await second.handle.stop();
    await expect(fetch(second.handle.metricsUrl!)).rejects.toThrow();
  });
});
