import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

/** The bits of a canvas element the checks read (the project compiles without the DOM types). */
interface Canvas {
  width: number;
  height: number;
  getContext(kind: "2d"): {
    getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> };
  };
}

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const fixture = (name: string) => join(import.meta.dirname, "..", "fixtures", name);

/** The frontier run the report is made from (and read again as JSON). */
const FRONTIER_RUN = [
  "backtest",
  "--input",
  fixture("scenario-mixed-500.ndjson"),
  "--strategies",
  "aip34,last-block,calibrated",
  "--frontier",
];

let browser: Browser;
let reportPath: string;
let frontierPath: string;

/**
 * Write `lines` as a history named `name`, make its report with `aip34` (and `args`), check the
 * exit code, and open the report in a new page once its charts are drawn.
 */
async function openReport(
  name: string,
  lines: readonly string[],
  code: number,
  args: string[] = [],
) {
  const dir = dirname(reportPath);
  const history = join(dir, `${name}.ndjson`);
  writeFileSync(history, `${lines.join("\n")}\n`);
  const report = join(dir, `${name}.html`);
  const r = await runCli([
    "backtest",
    "--input",
    history,
    ...args,
    "--strategies",
    "aip34",
    "--report",
    report,
  ]);
  expect(r.code).toBe(code);
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  await page.addInitScript(recordLabels);
  await page.goto(pathToFileURL(report).href);
  await page.waitForSelector("body[data-charts]");
  return page;
}

/** Run in the page before its scripts: keeps every text uPlot draws (axis ticks and titles) per chart. */
function recordLabels() {
  type Context = { canvas: { closest(s: string): { id: string } | null } };
  const g = globalThis as unknown as {
    CanvasRenderingContext2D: {
      prototype: { fillText(this: Context, t: string, ...r: number[]): void };
    };
    __labels?: Record<string, string[]>;
  };
  const proto = g.CanvasRenderingContext2D.prototype;
  const fillText = proto.fillText;
  proto.fillText = function (this: Context, text: string, ...rest: number[]) {
    const id = this.canvas.closest(".chart")?.id ?? "";
    g.__labels ??= {};
    g.__labels[id] ??= [];
    g.__labels[id].push(String(text));
    fillText.call(this, text, ...rest);
  };
}

/** The texts drawn on chart `id` (recorded by {@link recordLabels}), tick labels and axis titles. */
const labelsOf = (page: Page, id: string) =>
  page.evaluate(
    (chart) =>
      (globalThis as unknown as { __labels?: Record<string, string[]> }).__labels?.[chart] ?? [],
    id,
  );

beforeAll(async () => {
  reportPath = join(mkdtempSync(join(tmpdir(), "gasdigest-report-")), "report.html");
  const r = await runCli([
    "backtest",
    "--input",
    fixture("scenario-spike-500.ndjson"),
    "--strategies",
    "aip34,geth,last-block",
    "--report",
    reportPath,
  ]);
  expect(r.stderr).toContain(`report written to ${reportPath}`);
  expect(r.code).toBe(0);
  frontierPath = join(dirname(reportPath), "frontier.html");
  const f = await runCli([...FRONTIER_RUN, "--report", frontierPath]);
  expect(f.code).toBe(0);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--headless", "--disable-gpu", "--no-first-run"],
  });
});

afterAll(async () => {
  await browser?.close();
});

/** How wide the page is laid out, in CSS pixels: wider than the viewport, it scrolls sideways. */
const pageWidth = (page: { evaluate<T>(f: () => T): Promise<T> }) =>
  page.evaluate(
    () =>
      (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
        .documentElement.scrollWidth,
  );
describe("the backtest report in a headless browser", () => {
  it("draws every chart with uPlot, loads nothing but itself, and shows the table", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const requests: string[] = [];
    const problems: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(m.text());
    });
    page.on("pageerror", (e) => problems.push(String(e)));
    const url = pathToFileURL(reportPath).href;
    await page.goto(url);
    await page.waitForSelector("body[data-charts]");

    expect(problems).toEqual([]);
    expect(requests).toEqual([url]);
    // Three strategies over time, then inclusion against overpayment for 1, 3 and 10 blocks.
    expect(await page.getAttribute("body", "data-charts")).toBe("6");
    const canvases = await page.$$eval("canvas", (els) =>
      els.map((el) => {
        const c = el as unknown as Canvas;
        return { w: c.width, h: c.height };
      }),
    );
    expect(canvases).toHaveLength(6);
    for (const c of canvases) {
      expect(c.w).toBeGreaterThan(300);
      expect(c.h).toBeGreaterThan(200);
    }
    // Legends name each tier and the clearing price; the scatter has one entry per strategy × tier.
    const timeline = await page.locator("#timeline-0 .u-legend").textContent();
    for (const label of ["clearing price", "deprioritized", "regular", "prioritized"])
      expect(timeline).toContain(label);
    expect(await page.locator("#scatter-1 .u-legend .u-series").count()).toBe(1 + 9);
    expect(await page.locator("#scores tbody tr").count()).toBe(9);
    expect(await page.locator("#scores tbody tr").first().textContent()).toContain("aip34");

    // Something was drawn: the first chart's canvas is not blank.
    const inked = await page.$eval("#timeline-0 canvas", (c) => {
      const canvas = c as unknown as Canvas;
      const px = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0;
      for (let i = 3; i < px.length; i += 4) if (px[i]! > 0) n++;
      return n;
    });
    expect(inked).toBeGreaterThan(1000);

    mkdirSync(join(import.meta.dirname, "..", "..", ".tmp"), { recursive: true });
    await page.screenshot({
      path: join(import.meta.dirname, "..", "..", ".tmp", "report.png"),
      fullPage: true,
    });
    await page.close();
  });
  it("has a policy that runs its own two scripts only: markup slipped past the escaping stays inert", async () => {
    const html = readFileSync(reportPath, "utf8");
    expect(html).toMatch(
      /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[^']+' 'sha256-[^']+'; /,
    );
    // As if a strategy's name had got through unescaped.
    const tampered = join(dirname(reportPath), "tampered.html");
    writeFileSync(
      tampered,
      html.replace(
        "<h2>Scores</h2>",
        `<h2>Scores</h2><script>window.__ran = 1</script><img src="https://example.invalid/x.png" onerror="window.__ran = 2">`,
      ),
    );
    const page = await browser.newPage();
    const loaded: string[] = [];
    const refused: string[] = [];
    page.on("requestfinished", (r) => loaded.push(r.url()));
    page.on("requestfailed", (r) => refused.push(`${r.url()} ${r.failure()?.errorText}`));
    const url = pathToFileURL(tampered).href;
    await page.goto(url);
    await page.waitForSelector("body[data-charts]");
    expect(
      await page.evaluate(() => (globalThis as unknown as { __ran?: number }).__ran),
    ).toBeUndefined();
    expect(loaded).toEqual([url]);
    expect(refused).toEqual(["https://example.invalid/x.png csp"]);
    expect(await page.getAttribute("body", "data-charts")).toBe("6");
    await page.close();
  });

  it("draws a frontier report's curves against median overpayment and against price paid", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const problems: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(m.text());
    });
    page.on("pageerror", (e) => problems.push(String(e)));
    await page.goto(pathToFileURL(frontierPath).href);
    await page.waitForSelector("body[data-charts]");
    expect(problems).toEqual([]);
    // Three timelines, three scatters, then two frontier charts per horizon.
    expect(await page.getAttribute("body", "data-charts")).toBe("12");
    for (const id of ["frontier", "frontier-cost"])
      for (const h of [1, 3, 10]) {
        const legend = await page.locator(`#${id}-${h} .u-legend`).textContent();
        for (const label of [
          "aip34 (tiers)",
          "last-block (multiplier)",
          "calibrated (probability)",
        ])
          expect(legend).toContain(label);
      }
    // Both measures drawn, and not the same picture: the price paid is its own data.
    const ink = (id: string) =>
      page.$eval(`#${id} canvas`, (c) => {
        const canvas = c as unknown as Canvas;
        const px = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
        let n = 0;
        let weighted = 0;
        for (let i = 3; i < px.length; i += 4)
          if (px[i]! > 0) {
            n++;
            weighted += i;
          }
        return { n, weighted };
      });
    const median = await ink("frontier-3");
    const paid = await ink("frontier-cost-3");
    expect(median.n).toBeGreaterThan(1000);
    expect(paid.n).toBeGreaterThan(1000);
    expect(paid.weighted).not.toBe(median.weighted);
    expect(await page.locator("#frontier-table").textContent()).toContain(
      "Frontier: mean price paid at equal inclusion",
    );
    await page.close();
  });

  it("widens a price axis to its tick labels: a wei history's 100,000,000,000 is not cut off", async () => {
    // The first 300 blocks of the Ethereum history, in wei: ticks from 1 to 100 gwei and above.
    const lines = readFileSync(fixture("eth-2017-12/blocks-4710000-4719999.ndjson"), "utf8").split(
      "\n",
    );
    const page = await openReport("wei", lines.slice(0, 300), 0, [
      "--config",
      fixture("eth-2017-12/wei.config.json"),
    ]);
    const room = await page.$eval("#timeline-0", (chart) => {
      // The vertical axis is the one taller than wide; its width is the room for its labels.
      const axes = [...chart.querySelectorAll(".u-axis")] as unknown as {
        getBoundingClientRect(): { width: number; height: number };
      }[];
      const y = axes.map((a) => a.getBoundingClientRect()).find((b) => b.height > b.width)!;
      const doc = (globalThis as unknown as { document: { createElement(t: string): Canvas } })
        .document;
      const ctx = doc.createElement("canvas").getContext("2d") as unknown as {
        font: string;
        measureText(t: string): { width: number };
      };
      ctx.font =
        '12px system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif';
      return { axis: y.width, label: ctx.measureText("100,000,000,000").width };
    });
    // Tick marks (10 px) and their gap (5 px) come before the label.
    expect(room.axis).toBeGreaterThanOrEqual(room.label + 15);
    await page.close();
  });

  it("draws a history whose heights go back (a chain started again) across the chart, not on one stroke", async () => {
    // 250 blocks at heights 1,001-1,250, then the chain again from 1: the backtest follows it
    // after its resync, and the timeline, drawn against the heights, folded onto one line.
    const lines = readFileSync(fixture("scenario-spike-500.ndjson"), "utf8").trim().split("\n");
    const raised = lines
      .slice(0, 250)
      .map((line) =>
        line.replace(/^\{"height":"(\d+)"/, (_, h) => `{"height":"${Number(h) + 1000}"`),
      );
    // 2: the blocks refused before the resync are reported; the report is written all the same.
    const page = await openReport("restarted", [...raised, ...lines.slice(0, 250)], 2);
    // The share of the canvas's columns holding a tier's coloured stroke (opaque, far from grey):
    // about 0.9 drawn in history order, 0.005 folded onto one stroke.
    const spread = await page.$eval("#timeline-0 canvas", (c) => {
      const canvas = c as unknown as Canvas;
      const px = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
      const columns = new Set<number>();
      for (let i = 0; i < px.length; i += 4) {
        const [r, g, b, a] = [px[i]!, px[i + 1]!, px[i + 2]!, px[i + 3]!];
        if (a > 200 && Math.max(r, g, b) - Math.min(r, g, b) > 80)
          columns.add((i / 4) % canvas.width);
      }
      return columns.size / canvas.width;
    });
    expect(spread).toBeGreaterThan(0.5);
    await page.close();
  });

  it("where several settings reach the same inclusion, the curve shows the cheapest of them", async () => {
    // The same run as JSON: last-block's multipliers that reach its highest inclusion in 1 block.
    const r = await runCli([...FRONTIER_RUN, "--json"]);
    const curve = (
      JSON.parse(r.stdout).frontier.curves as {
        strategy: string;
        horizon: number;
        points: { inclusion: number | null; overpay: number | null }[];
      }[]
    ).find((c) => c.strategy === "last-block" && c.horizon === 1)!;
    const top = Math.max(...curve.points.map((p) => p.inclusion ?? 0));
    const atTop = curve.points.filter((p) => p.inclusion === top).map((p) => p.overpay!);
    expect(atTop.length).toBeGreaterThan(1);
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(pathToFileURL(frontierPath).href);
    await page.waitForSelector("body[data-charts]");
    // Hover the right edge of the chart (the highest inclusion) and read the legend's value.
    const over = page.locator("#frontier-1 .u-over");
    await over.scrollIntoViewIfNeeded();
    const box = (await over.boundingBox())!;
    await page.mouse.move(box.x + box.width - 1, box.y + box.height / 2);
    const legend = await page.locator("#frontier-1 .u-legend").textContent();
    const shown = /last-block \(multiplier\)\s*([\d.]+)/.exec(legend ?? "")?.[1];
    expect(Number(shown)).toBeCloseTo(Math.min(...atTop), 2);
    await page.close();
  });

  it("labels a short history's heights in whole blocks, and a frontier's inclusion up to 100 % only", async () => {
    // 11 blocks at the minimum price: every setting of every strategy includes every bid.
    const lines = readFileSync(fixture("scenario-spike-500.ndjson"), "utf8").split("\n");
    const page = await openReport("short", lines.slice(0, 11), 0, ["--frontier"]);
    const heights = await labelsOf(page, "timeline-0");
    const inclusion = await labelsOf(page, "frontier-1");
    expect(heights).toContain("block height");
    expect(heights).toContain("11");
    expect(inclusion).toContain("100");
    expect({
      // The ticks read 2, 3, 4, ...: no block 2.5.
      heights: heights.filter((t) => /^\d+\.\d+$/.test(t)),
      // A single inclusion, 100 %: the axis ends there, not at 200 %.
      inclusion: inclusion.filter((t) => /^\d+$/.test(t) && Number(t) > 100),
    }).toEqual({ heights: [], inclusion: [] });
    await page.close();
  });

  it("keeps the page within a phone's width: a wide table scrolls in its own box", async () => {
    const page = await browser.newPage({ viewport: { width: 360, height: 800 } });
    await page.goto(pathToFileURL(frontierPath).href);
    await page.waitForSelector("body[data-charts]");
    const widths = await page.evaluate(() => {
      const doc = (
        globalThis as unknown as {
          document: {
            documentElement: { scrollWidth: number };
            querySelector(s: string): { scrollWidth: number; clientWidth: number };
          };
        }
      ).document;
      const box = (s: string) => {
        const el = doc.querySelector(s);
        return { scroll: el.scrollWidth, client: el.clientWidth };
      };
      return {
        page: doc.documentElement.scrollWidth,
        scores: box(".wide"),
        frontier: box("#frontier-table"),
      };
    });
    expect(widths.page).toBeLessThanOrEqual(360);
    // The tables are still all there, to scroll sideways.
    expect(widths.scores.scroll).toBeGreaterThan(widths.scores.client);
    expect(widths.frontier.scroll).toBeGreaterThan(widths.frontier.client);
    await page.close();
  });

  it("wraps a note's long unbroken run (heights at u64's top) rather than widen the page", async () => {
    // "(heights 18446744073709551516..18446744073709551615)," has no place to break: it ran
    // 30 px past a 360 px phone's screen, and the whole page scrolled sideways.
    const top = 18_446_744_073_709_551_615n;
    const lines = readFileSync(fixture("scenario-spike-500.ndjson"), "utf8").trim().split("\n");
    const page = await openReport(
      "u64-heights-phone",
      lines
        .slice(0, 100)
        .map((line, i) =>
          line.replace(/^\{"height":"\d+"/, `{"height":"${top - 99n + BigInt(i)}"`),
        ),
      0,
    );
    await page.setViewportSize({ width: 360, height: 800 });
    await page.reload();
    await page.waitForSelector("body[data-charts]");
    const width = await pageWidth(page);
    expect(width).toBeLessThanOrEqual(360);
    await page.close();
  });

  it("gives each of eight strategies a colour of its own", async () => {
    // The five registered strategies and three module files: a palette of six used twice made
    // the seventh and eighth strategies' points pass for the first and second's.
    const dir = dirname(reportPath);
    const example = join(import.meta.dirname, "..", "..", "examples", "strategies", "mine.js");
    const modules = [1, 2, 3].map((n) => join(dir, `mine${n}.js`));
    for (const m of modules) writeFileSync(m, readFileSync(example));
    const report = join(dir, "eight.html");
    const r = await runCli([
      "backtest",
      "--input",
      fixture("scenario-spike-500.ndjson"),
      "--strategies",
      ["aip34", "tdigest", "geth", "calibrated", "last-block", ...modules].join(","),
      "--report",
      report,
    ]);
    expect(r.code).toBe(0);
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(pathToFileURL(report).href);
    await page.waitForSelector("body[data-charts]");
    // One legend entry per strategy and tier, after the x series; the three tiers share a colour.
    const colours = await page.$$eval("#scatter-1 .u-legend .u-series .u-marker", (els) =>
      els.map((el) => (el as unknown as { style: { borderColor: string } }).style.borderColor),
    );
    expect(colours).toHaveLength(1 + 24);
    expect(new Set(colours.slice(1)).size).toBe(8);
    await page.close();
  });

  it("labels heights too large for a number with the exact heights, each label clear of the next", async () => {
    // The spike history's first 100 blocks at the top of u64: as numbers every height is
    // 18446744073709552000, which the axis wrote under every tick, ten of them run together.
    const top = 18_446_744_073_709_551_615n;
    const lines = readFileSync(fixture("scenario-spike-500.ndjson"), "utf8").trim().split("\n");
    const heights = lines.slice(0, 100).map((_, i) => String(top - 99n + BigInt(i)));
    const page = await openReport(
      "u64-heights",
      lines
        .slice(0, 100)
        .map((line, i) => line.replace(/^\{"height":"\d+"/, `{"height":"${heights[i]}"`)),
      0,
    );
    const drawn = await labelsOf(page, "timeline-0");
    const title = drawn.findIndex((t) => t.startsWith("block height"));
    const ticks = drawn.slice(title + 1, drawn.indexOf("gas unit price")).filter((t) => t !== "");
    expect(ticks.length).toBeGreaterThan(1);
    for (const t of ticks) expect(heights).toContain(t);
    // The ticks' labels fit side by side in the chart's width.
    const fit = await page.$eval(
      "#timeline-0 canvas",
      (c, labels) => {
        const canvas = c as unknown as {
          width: number;
          getContext(kind: "2d"): { font: string; measureText(t: string): { width: number } };
        };
        const ctx = canvas.getContext("2d");
        ctx.font = "12px sans-serif";
        const widest = Math.max(...labels.map((l) => ctx.measureText(l).width));
        return { labels: widest * labels.length, room: canvas.width };
      },
      ticks,
    );
    expect(fit.labels).toBeLessThan(fit.room);
    await page.close();
  });
});

describe("the backtest report of a history too short or too wide for uPlot's defaults", () => {
  const spike = () => readFileSync(fixture("scenario-spike-500.ndjson"), "utf8").trim().split("\n");
  /** The pixels of chart `id` in colour `rgb` (opaque, within 40 of each channel). */
  const inkOf = (page: Page, id: string, rgb: readonly number[]) =>
    page.$eval(
      `#${id} canvas`,
      (c, want) => {
        const canvas = c as unknown as Canvas;
        const px = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
        let n = 0;
        for (let i = 0; i < px.length; i += 4)
          if (px[i + 3]! > 200 && want.every((v, k) => Math.abs(px[i + k]! - v) < 40)) n++;
        return n;
      },
      rgb,
    );

  it("says why a one-block history has nothing to draw, in place of empty frames", async () => {
    // The first block only gives the strategies their first estimate: no block is scored. The
    // timeline was a blank 300 px gap (uPlot draws no axis without data), the scatters an empty
    // frame from 95 to 100 %, the frontier an empty 0-100 % axis.
    const page = await openReport("one-block", spike().slice(0, 1), 0, ["--frontier"]);
    for (const id of ["timeline-0", "scatter-1", "scatter-10", "frontier-3", "frontier-cost-10"]) {
      expect(await page.locator(`#${id} canvas`).count()).toBe(0);
      expect(await page.locator(`#${id}`).textContent()).toMatch(/^Nothing to draw: /);
    }
    expect(await page.locator("#timeline-0").textContent()).toContain("no block was scored");
    await page.close();
  });

  it("draws a single scored block as points around its height, not at 0 to twice the height", async () => {
    // Two blocks of the Ethereum history: one scored, at height 4,710,001. uPlot spread the x
    // axis from 0 to 9,400,000, and drew the point as a 5 px hollow ring.
    const lines = readFileSync(fixture("eth-2017-12/blocks-4710000-4719999.ndjson"), "utf8")
      .trim()
      .split("\n");
    const page = await openReport("two-blocks", lines.slice(0, 2), 0, [
      "--config",
      fixture("eth-2017-12/wei.config.json"),
    ]);
    const drawn = await labelsOf(page, "timeline-0");
    const ticks = drawn
      .slice(drawn.indexOf("block height") + 1, drawn.indexOf("gas unit price"))
      .filter((t) => t !== "")
      .map((t) => Number(t.replace(/,/g, "")));
    expect(ticks).toContain(4_710_001);
    for (const t of ticks) expect(Math.abs(t - 4_710_001)).toBeLessThanOrEqual(1);
    // The clearing price's point (#111827) and the prioritized tier's (#d62828), filled.
    expect(await inkOf(page, "timeline-0", [0x11, 0x18, 0x27])).toBeGreaterThan(30);
    expect(await inkOf(page, "timeline-0", [0xd6, 0x28, 0x28])).toBeGreaterThan(30);
    await page.close();
  });

  it("labels a price axis from 100 to u64's top with labels clear of one another", async () => {
    // The spike history with 15 full blocks at prices near 2^64: 18 decades in a 220 px axis.
    // uPlot keeps every k-th of its nine ticks a decade where it means every k-th decade: k = 3
    // labelled every decade, one label over the next.
    const lines = spike()
      .slice(0, 60)
      .map((line, i) => {
        if (i < 20 || i >= 35) return line;
        const block = JSON.parse(line) as { gas_unit_prices: string[] } & Record<string, unknown>;
        block.gas_unit_prices = block.gas_unit_prices.map((_, j) =>
          String(18_446_744_073_709_551_615n - BigInt(j) * 1000n),
        );
        block.block_gas_limit_reached = true;
        return JSON.stringify(block);
      });
    const page = await openReport("u64-prices", lines, 0, ["--frontier"]);
    for (const [id, title] of [
      ["timeline-0", "gas unit price"],
      ["frontier-1", "median overpayment"],
    ] as const) {
      const drawn = await labelsOf(page, id);
      const ticks = drawn.slice(drawn.indexOf(title) + 1).filter((t) => t !== "");
      expect(ticks.length).toBeGreaterThan(2);
      const plot = (await page.locator(`#${id} .u-over`).boundingBox())!;
      // A 12 px label and some room between two of them.
      expect(ticks.length * 18, `${id}: ${ticks.join(" ")}`).toBeLessThanOrEqual(plot.height);
    }
    await page.close();
  });
});

describe("the backtest report's axis labels and titles", () => {
  /**
   * Run in the page before its scripts: keeps every horizontal text drawn on a chart's canvas
   * that does not fit in it (part of it cut off by the canvas's edge).
   */
  function recordCutOff() {
    type Context = {
      canvas: { width: number; closest(s: string): { id: string } | null };
      textAlign: string;
      getTransform(): { a: number; b: number; c: number; e: number };
      measureText(t: string): { width: number };
    };
    const g = globalThis as unknown as {
      CanvasRenderingContext2D: {
        prototype: { fillText(this: Context, t: string, x: number, ...r: number[]): void };
      };
      __cutOff?: string[];
    };
    const proto = g.CanvasRenderingContext2D.prototype;
    const fillText = proto.fillText;
    proto.fillText = function (this: Context, text: string, x: number, ...rest: number[]) {
      const m = this.getTransform();
      const id = this.canvas.closest(".chart")?.id;
      if (id && m.b === 0 && m.c === 0 && text !== "") {
        const width = this.measureText(String(text)).width * m.a;
        const at = m.a * x + m.e;
        const align = this.textAlign;
        const left =
          align === "center"
            ? at - width / 2
            : align === "right" || align === "end"
              ? at - width
              : at;
        if (left < -0.5 || left + width > this.canvas.width + 0.5) {
          g.__cutOff ??= [];
          g.__cutOff.push(`${id}: ${text}`);
        }
      }
      fillText.call(this, text, x, ...rest);
    };
  }

  /** The texts cut off in the report `file` at `width` CSS pixels. */
  async function cutOff(file: string, width: number) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    await page.addInitScript(recordCutOff);
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector("body[data-charts]");
    const texts = await page.evaluate(
      () => (globalThis as unknown as { __cutOff?: string[] }).__cutOff ?? [],
    );
    await page.close();
    return texts;
  }

  it("keeps the x axis's last label whole: 4,710,002 read 4,710,00, a mean overpayment of 10^17 read 100,000,000", async () => {
    const dir = dirname(reportPath);
    const eth = readFileSync(fixture("eth-2017-12/blocks-4710000-4719999.ndjson"), "utf8")
      .trim()
      .split("\n");
    const two = join(dir, "cut-two.ndjson");
    writeFileSync(two, `${eth.slice(0, 2).join("\n")}\n`);
    // The spike history with 15 full blocks at prices near 2^64.
    const spike = readFileSync(fixture("scenario-spike-500.ndjson"), "utf8").trim().split("\n");
    const u64 = join(dir, "cut-u64.ndjson");
    writeFileSync(
      u64,
      `${spike
        .slice(0, 60)
        .map((line, i) => {
          if (i < 20 || i >= 35) return line;
          const block = JSON.parse(line) as Record<string, unknown>;
          block.gas_unit_prices = (block.gas_unit_prices as string[]).map((_, j) =>
            String(18_446_744_073_709_551_615n - BigInt(j) * 1000n),
          );
          block.block_gas_limit_reached = true;
          return JSON.stringify(block);
        })
        .join("\n")}\n`,
    );
    const runs = [
      [two, "--config", fixture("eth-2017-12/wei.config.json"), "--strategies", "aip34"],
      [u64, "--strategies", "aip34,geth,last-block"],
    ];
    for (const [input, ...args] of runs) {
      const report = `${input}.html`;
      const r = await runCli(["backtest", "--input", input!, ...args, "--report", report]);
      expect(r.code).toBe(0);
      expect(await cutOff(report, 1200)).toEqual([]);
    }
  });

  it("shortens an axis title wider than a phone's chart rather than cut it off", async () => {
    expect(await cutOff(frontierPath, 360)).toEqual([]);
  });

  it("fits the charts in a 320 px screen: they were 320 px wide in its 288 px of room", async () => {
    expect(await cutOff(frontierPath, 320)).toEqual([]);
    // Prices near 2^64 leave the plot a sliver: its axis title is shortened, not cut off.
    const full = readFileSync(fixture("scenario-spike-500.ndjson"), "utf8")
      .split("\n")
      .slice(0, 40)
      .map((line) => {
        const block = JSON.parse(line) as Record<string, unknown>;
        block.gas_unit_prices = ["18446744073709551615"];
        block.gas_used = undefined;
        block.block_gas_limit_reached = true;
        return JSON.stringify(block);
      });
    await (await openReport("u64-prices-320", full, 0)).close();
    expect(await cutOff(join(dirname(reportPath), "u64-prices-320.html"), 320)).toEqual([]);
    const page = await browser.newPage({ viewport: { width: 320, height: 900 } });
    await page.goto(pathToFileURL(frontierPath).href);
    await page.waitForSelector("body[data-charts]");
    const width = await pageWidth(page);
    expect(width).toBeLessThanOrEqual(320);
    await page.close();
  });
});
