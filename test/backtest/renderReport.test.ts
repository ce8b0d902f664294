import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { createBacktest } from "../../src/backtest/createBacktest.js";
import { createSeriesRecorder } from "../../src/backtest/createSeriesRecorder.js";
import { renderReport } from "../../src/backtest/renderReport.js";
import { InvalidArgumentError } from "../../src/core/errors.js";
import { lastBlock } from "../../src/strategies/lastBlock.js";
import { constant, history } from "./helpers.js";

function report(names: [string, string]) {
  const recorder = createSeriesRecorder({ strategies: names });
  const bt = createBacktest({
    strategies: [
      { name: names[0], strategy: lastBlock() },
      { name: names[1], strategy: constant(100, 150, 300) },
    ],
    onBlock: recorder.record,
  });
  for (const b of history([100, 100, 300, 500, 100, 100, 100, 100, 100, 100, 100, 100, 100]))
    bt.push(b);
  return renderReport({ result: bt.result(), series: recorder.series(), source: "hand <history>" });
}

describe("renderReport", () => {
  const html = report(["last-block", "fixed"]);

  it("contains no URL at all", () => {
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/\bsrc=|\bhref=|@import|url\(/i);
  });

  it("inlines uPlot's browser build and stylesheet from the installed package", () => {
    const require = createRequire(import.meta.url);
    const lib = readFileSync(require.resolve("uplot/dist/uPlot.iife.min.js"), "utf8");
    const css = readFileSync(require.resolve("uplot/dist/uPlot.min.css"), "utf8");
    // Everything after the library's banner comment, byte for byte.
    const body = lib.replace(/^\/\*![\s\S]*?\*\/\s*/, "");
    expect(body.length).toBeGreaterThan(40_000);
    expect(html).toContain(body);
    expect(html).toContain(css.replace(/^\/\*![\s\S]*?\*\/\s*/, "").slice(0, 500));
    expect(html).toMatch(/uPlot \d+\.\d+\.\d+ \(MIT licence/);
  });

  it("inlines the chart script of src/backtest/assets/reportCharts.js as it is, last", () => {
    const source = readFileSync(
      new URL("../../src/backtest/assets/reportCharts.js", import.meta.url),
      "utf8",
    );
    expect(html).toContain(`<script>${source}</script>\n</body>`);
  });

  it("holds the table, a chart per strategy and the data", () => {
    expect(html).toContain('<div class="chart" id="timeline-0"></div>');
    expect(html).toContain('<div class="chart" id="timeline-1"></div>');
    for (const h of [1, 3, 10]) expect(html).toContain(`id="scatter-${h}"`);
    expect((html.match(/<tr><td>/g) ?? []).length).toBe(6);
    const data = JSON.parse(
      html.split('<script type="application/json" id="backtest-data">')[1]!.split("</script>")[0]!,
    );
    expect(data.series.heights).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(data.series.clearing.slice(0, 4)).toEqual([100, 300, 500, 100]);
    expect(data.points).toHaveLength(6);
    expect(html).toContain("hand &lt;history&gt;");
  });

  it("names what a series or frontier built by hand lacks, rather than write a page that draws nothing", () => {
    // A series without heights made a page whose script stopped at its first line
    // ("Cannot read properties of undefined (reading 'every')"); a frontier without curves threw
    // a TypeError; a series without blocksPerPoint read "over undefined consecutive blocks".
    const recorder = createSeriesRecorder({ strategies: ["fixed"] });
    const bt = createBacktest({
      strategies: [{ name: "fixed", strategy: constant(100, 150, 300) }],
      onBlock: recorder.record,
    });
    for (const b of history([100, 300, 100])) bt.push(b);
    const result = bt.result();
    const { strategies, clearing } = recorder.series();
    let error: unknown;
    try {
      renderReport({
        result,
        series: { strategies: [...strategies, { name: "x" }], clearing } as never,
        frontier: {} as never,
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as InvalidArgumentError).issues.map((i) => i.path)).toEqual([
      "series.heights",
      "series.blocksPerPoint",
      "series.strategies[1]",
      "frontier",
    ]);
  });

  it("escapes names so that nothing closes the script or injects markup", () => {
    const nasty = report(["</script><b>x", "<!--"]);
    expect(nasty).not.toContain("</script><b>");
    expect(nasty).toContain("&lt;/script&gt;&lt;b&gt;x");
    const json = nasty.split('id="backtest-data">')[1]!.split("</script>")[0]!;
    expect(JSON.parse(json).series.strategies[0].name).toBe("</script><b>x");
  });
});
