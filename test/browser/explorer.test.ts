import { mkdirSync } from "node:fs";
import http from "node:http";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { explorerAssets } from "../../dist/explorerAssets.js";
import { createServer, type GasdigestServer, listen } from "../../src/adapters/node/index.js";
import { createEngine } from "../../src/core/createEngine.js";
import { createHandler } from "../../src/http/createHandler.js";
import { aip34 } from "../../src/strategies/aip34.js";
import { block } from "../helpers/blocks.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ESTIMATE = {
  deprioritized_gas_estimate: 100,
  gas_estimate: 150,
  prioritized_gas_estimate: 300,
};

function engineWithBlocks() {
  const engine = createEngine({
    strategy: aip34(),
    config: { staticOverride: { low: "100", market: "150", aggressive: "300" } },
  });
  for (let h = 1; h <= 3; h++) engine.ingest(block(h));
  return engine;
}

let browser: Browser;
let server: GasdigestServer;
let base: string;

beforeAll(async () => {
  server = createServer(engineWithBlocks(), { maxStalenessMs: false });
  const { port } = await listen(server, { port: 0 });
  base = `http://127.0.0.1:${port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--headless",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.shutdown();
});

/** Open the explorer, recording every request and every console complaint. */
async function open(url: string) {
  const page = await browser.newPage();
  const requests: string[] = [];
  const problems: string[] = [];
  page.on("request", (r) => requests.push(r.url()));
  page.on("console", (m) => {
    if (m.type() === "error" || /Content.Security.Policy/i.test(m.text())) problems.push(m.text());
  });
  page.on("pageerror", (e) => problems.push(String(e)));
  await page.goto(url);
  return { page, requests, problems };
}

/**
 * Expand estimate_gas_price, press "Try it out" (choosing the response's media type, if given)
 * then "Execute", return the live response.
 */
async function tryEstimate(page: Page, mediaType?: string) {
  const op = page.locator("#operations-Transactions-estimate_gas_price");
  await op.locator(".opblock-summary").click();
  await op.getByRole("button", { name: "Try it out" }).click();
  if (mediaType !== undefined)
    await op
      .locator(".responses-table tr[data-code='200'] select[aria-label='Media Type']")
      .selectOption(mediaType);
  await op.getByRole("button", { name: "Execute" }).click();
  const live = op.locator(".live-responses-table .response");
  await live.first().waitFor();
  const status = ((await live.locator(".response-col_status").first().textContent()) ?? "").trim();
  const body = (
    (await live.locator(".response-col_description pre").first().textContent()) ?? ""
  ).trim();
  return { status, body };
}

describe("the offline explorer at /v1/spec", () => {
  it("renders the operations, sends nothing to another origin, and Try it out gets the live estimate", async () => {
    const { page, requests, problems } = await open(`${base}/v1/spec`);
    const op = page.locator("#operations-Transactions-estimate_gas_price");
    await op.waitFor();
    await expect(op.textContent()).resolves.toContain("estimate_gas_price");
    for (const id of [
      "operations-General-spec",
      "operations-General-get_ledger_info",
      "operations-General-healthy",
    ])
      await expect(page.locator(`#${id}`).count()).resolves.toBe(1);

    const { status, body } = await tryEstimate(page);
    expect(status).toBe("200");
    expect(JSON.parse(body)).toEqual(ESTIMATE);

    mkdirSync(".tmp", { recursive: true });
    await page.setViewportSize({ width: 1280, height: 1100 });
    await page.evaluate("window.scrollTo(0, 0)");
    await page.screenshot({ path: ".tmp/explorer.png" });

    // No link, image or script in the rendered page names another origin either.
    // (A string, evaluated in the page: this project's types have no DOM.)
    const urls = (await page.evaluate(
      `[...document.querySelectorAll("[href],[src],[action]")].map((e) => e.href || e.src || e.action)`,
    )) as string[];
    const foreign = urls.filter(
      (u) =>
        /^[a-z]+:/i.test(u) && !/^(data|blob|javascript):/i.test(u) && new URL(u).origin !== base,
    );
    expect(foreign).toEqual([]);

    const origins = new Set(
      requests.filter((u) => !u.startsWith("data:")).map((u) => new URL(u).origin),
    );
    expect([...origins]).toEqual([base]);
    expect(requests).toContain(`${base}/v1/estimate_gas_price`);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows a BCS answer to Try it out as its bytes in hex and the estimate they hold", async () => {
    const { page, requests, problems } = await open(`${base}/v1/spec`);
    await page.locator("#operations-Transactions-estimate_gas_price").waitFor();
    const { status, body } = await tryEstimate(page, "application/x-bcs");
    expect(status).toBe("200");
    // Not the bytes decoded as UTF-8 (0x96 of 150 became U+FFFD, on screen and in "Download").
    expect(body).toBe(
      "26 bytes of BCS (hex): 01 64 00 00 00 00 00 00 00 96 00 00 00 00 00 00 00 01 2c 01 00 00 00 00 00 00\n" +
        "as (Option<u64>, u64, Option<u64>): deprioritized_gas_estimate 100, gas_estimate 150, prioritized_gas_estimate 300",
    );
    expect(requests).toContain(`${base}/v1/estimate_gas_price`);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows an estimate beyond 2^53 as the wire holds it, not rounded by JSON.parse", async () => {
    // Swagger UI lays a JSON answer out through JSON.parse: 2^64 - 1 read 18446744073709552000.
    const engine = createEngine({
      strategy: aip34(),
      config: {
        staticOverride: {
          low: "9007199254740993",
          market: "12345678901234567891",
          aggressive: "18446744073709551615",
        },
      },
    });
    for (let h = 1; h <= 3; h++) engine.ingest(block(h));
    const huge = createServer(engine, { maxStalenessMs: false });
    const { port } = await listen(huge, { port: 0 });
    try {
      const { page, problems } = await open(`http://127.0.0.1:${port}/v1/spec`);
      await page.locator("#operations-Transactions-estimate_gas_price").waitFor();
      const { status, body } = await tryEstimate(page);
      expect(status).toBe("200");
      expect(body).toBe(
        [
          "{",
          '  "deprioritized_gas_estimate": 9007199254740993,',
          '  "gas_estimate": 12345678901234567891,',
          '  "prioritized_gas_estimate": 18446744073709551615',
          "}",
        ].join("\n"),
      );
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await huge.shutdown();
    }
  });

  it("fits a phone's width (360 px) with an operation open and its live answer shown", async () => {
    const { page, problems } = await open(`${base}/v1/spec`);
    await page.setViewportSize({ width: 360, height: 800 });
    await page.locator("#operations-Transactions-estimate_gas_price").waitFor();
    const { status } = await tryEstimate(page);
    expect(status).toBe("200");
    // Swagger UI's "Links" column of the responses table made the page 438 px wide.
    await expect(page.evaluate("document.documentElement.scrollWidth")).resolves.toBe(360);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("works mounted under a prefix: assets, document and Try it out all stay under it", async () => {
    // A host app mounting the handler at /chain (what the framework adapters do), with the
    // explorer's files from the generated module (gasdigest/explorer-assets), as on Workers.
    const handler = createHandler(engineWithBlocks(), { maxStalenessMs: false, explorerAssets });
    const host = http.createServer((req, res) => {
      const url = req.url ?? "/";
      if (!url.startsWith("/chain/")) {
        res.writeHead(404).end("host app");
        return;
      }
      const r = handler({
        method: req.method ?? "GET",
        url: url.slice("/chain".length),
        headers: req.headers,
      });
      res.writeHead(r.status, r.headers);
      res.end(req.method === "HEAD" ? undefined : r.body);
    });
    const { port } = await new Promise<{ port: number }>((resolve) =>
      host.listen(0, "127.0.0.1", () => resolve(host.address() as { port: number })),
    );
    try {
      const origin = `http://127.0.0.1:${port}`;
      const { page, requests, problems } = await open(`${origin}/chain/v1/spec`);
      await page.locator("#operations-Transactions-estimate_gas_price").waitFor();
      const { status, body } = await tryEstimate(page);
      expect(status).toBe("200");
      expect(JSON.parse(body)).toEqual(ESTIMATE);
      const paths = requests.filter((u) => !u.startsWith("data:")).map((u) => new URL(u));
      expect(paths.every((u) => u.origin === origin && u.pathname.startsWith("/chain/v1/"))).toBe(
        true,
      );
      expect(paths.map((u) => u.pathname)).toContain("/chain/v1/estimate_gas_price");
      expect(problems).toEqual([]);
      await page.close();

      // Asked for through an encoded slash, the page's relative URLs resolved against /chain/
      // (a blank page): it is sent to /chain/v1/spec, where they resolve under the mount.
      const encoded = await open(`${origin}/chain/v1%2Fspec`);
      await encoded.page.locator("#operations-Transactions-estimate_gas_price").waitFor();
      expect(new URL(encoded.page.url()).pathname).toBe("/chain/v1/spec");
      expect(encoded.problems).toEqual([]);
      await encoded.page.close();
    } finally {
      host.closeAllConnections();
      await new Promise((r) => host.close(r));
    }
  });

  it("says Swagger UI did not load when its bundle fails, not that the API document did", async () => {
    // What a node server bundled into one file serves: the files answer 500 (no file beside the
    // code), the page and the document 200.
    const handler = createHandler(engineWithBlocks(), {
      maxStalenessMs: false,
      explorerAssets: {
        ...explorerAssets,
        "swagger-ui-bundle.js": () => {
          throw new Error("not beside the code");
        },
      },
    });
    const host = http.createServer((req, res) => {
      const r = handler({ method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers });
      res.writeHead(r.status, r.headers);
      res.end(req.method === "HEAD" ? undefined : r.body);
    });
    const { port } = await new Promise<{ port: number }>((resolve) =>
      host.listen(0, "127.0.0.1", () => resolve(host.address() as { port: number })),
    );
    try {
      const { page, requests } = await open(`http://127.0.0.1:${port}/v1/spec`);
      const error = page.locator(".gasdigest-error");
      await error.waitFor();
      const text = (await error.textContent()) ?? "";
      expect(text).toMatch(/Swagger UI/);
      expect(text).toContain("spec/assets/swagger-ui-bundle.js");
      expect(text).not.toMatch(/Could not load the API document/);
      expect(requests.some((u) => u.endsWith("/v1/spec/assets/swagger-ui-bundle.js"))).toBe(true);
      await page.close();
    } finally {
      host.closeAllConnections();
      await new Promise((r) => host.close(r));
    }
  });
});
