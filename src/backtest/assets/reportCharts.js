// @ts-check
/// <reference types="uplot" />
// The backtest report's own script, run in the browser after uPlot (inlined in the page before
// it). It reads the JSON data block `#backtest-data` and draws, with uPlot, one chart per
// strategy of its three tiers against the clearing price over time, one scatter chart per
// horizon of inclusion against mean overpayment (one point per strategy and tier), and with a
// frontier run, per horizon, two charts of each strategy's curve: inclusion against median
// overpayment and against mean price paid. scripts/buildBrowserScripts.mjs
// copies its text into a string module at build time; renderReport inlines it.

/**
 * @typedef {1 | 3 | 10} Horizon
 * @typedef {"deprioritized" | "regular" | "prioritized"} Tier
 * @typedef {{ within1: number | null, within3: number | null, within10: number | null }} Inclusion
 * @typedef {{ strategy: string, strategyIndex: number, tier: Tier, overpayment: number | null, inclusion: Inclusion }} Point
 * @typedef {{ name: string } & Record<Tier, (number | null)[]>} StrategySeries
 * @typedef {{ heights: number[], labels: string[] | null, blocksPerPoint: number, clearing: (number | null)[], strategies: StrategySeries[] }} Series
 * @typedef {{ at: number | string, inclusion: number | null, overpay: number | null, cost: number | null }} FrontierPoint
 * @typedef {{ strategy: string, knob: string | null, horizon: Horizon, points: FrontierPoint[] }} FrontierCurve
 * @typedef {{ horizons: Horizon[], series: Series, points: Point[], frontier: FrontierCurve[] | null }} ReportData
 */

(() => {
  /** @param {string} id */
  function byId(id) {
    const el = document.getElementById(id);
    if (el === null) throw new Error(`the report has no element #${id}`);
    return el;
  }

  /** @type {ReportData} */
  const data = JSON.parse(byId("backtest-data").textContent ?? "null");
  /** @type {Record<Tier, string>} */
  const tierColors = { deprioritized: "#2a9d8f", regular: "#1d4ed8", prioritized: "#d62828" };
  const palette = [
    "#1d4ed8",
    "#d62828",
    "#2a9d8f",
    "#8338ec",
    "#e76f51",
    "#6b7280",
    "#65a30d",
    "#db2777",
    "#0891b2",
    "#a16207",
    "#111827",
    "#f59e0b",
  ];
  /**
   * A strategy's colour: the palette's, then, past it, hues a golden angle apart (a colour used
   * again would make one strategy's points pass for another's).
   */
  const colorOf = (/** @type {number} */ index) =>
    palette[index] ?? `hsl(${Math.round((index * 137.508) % 360)} 70% ${index % 2 ? 35 : 50}%)`;
  /** @type {Record<Tier, number>} */
  const tierSizes = { deprioritized: 7, regular: 10, prioritized: 13 };
  /** @type {uPlot[]} */
  const charts = [];
  /** Draws no line between a series' points (a scatter). */
  const noLine = () => null;

  /** @param {HTMLElement} el */
  const widthOf = (el) => Math.max(320, Math.min(1100, el.clientWidth || 900));
  /** uPlot's log scale (3) when every value is positive, else linear (1). */
  const distrOf = (/** @type {(number | null)[][]} */ columns) =>
    columns.every((column) => column.every((v) => v === null || v > 0)) ? 3 : 1;
  /** @param {Horizon} h */
  const withinLabel = (h) => `% included within ${h}${h === 1 ? " block" : " blocks"}`;
  /** A share (0..1) as a percentage with two decimals. */
  const percent = (/** @type {number} */ share) => Math.round(share * 10000) / 100;
  /**
   * A y axis as wide as its widest tick label, and never narrower than `least`: prices in wei
   * (100,000,000,000) need twice the room of prices in the thousands, and a fixed width cut
   * their leading digits off and ran them into the axis title.
   * @param {number} least
   * @returns {uPlot.Axis.Size}
   */
  const fitTicks = (least) => (u, values, axisIndex) => {
    const axis = u.axes[axisIndex];
    if (!values || !axis) return least;
    // uPlot keeps an axis's font as [font scaled to the device, its size, its CSS size].
    const font = /** @type {unknown} */ (axis.font);
    u.ctx.save();
    u.ctx.font = Array.isArray(font) ? String(font[0]) : String(font);
    let widest = 0;
    for (const v of values)
      if (v !== null && v !== undefined)
        widest = Math.max(widest, u.ctx.measureText(String(v)).width);
    u.ctx.restore();
    const ticks = (axis.ticks && typeof axis.ticks.size === "number" ? axis.ticks.size : 10) + 5;
    return Math.max(least, Math.ceil(widest / (window.devicePixelRatio || 1) + ticks + 4));
  };

  const s = data.series;
  // The x axis is the heights when they rise. A history whose chain started again (heights back
  // at 1 after a resync), or heights too large for a number to tell apart (near 2^64), would
  // fold the chart onto one vertical stroke: the points go in history order then, labelled
  // with their heights.
  const rising = s.heights.every((h, i) => i === 0 || h > (s.heights[i - 1] ?? h));
  const positions = rising ? s.heights : s.heights.map((_, i) => i);
  /**
   * The height a position stands for, as a label ("" between points): exact from the labels a
   * history past 2^53 comes with (a number there reads 18446744073709552000 for every height).
   */
  const heightAt = (/** @type {number | null | undefined} */ x) => {
    if (x === null || x === undefined || !Number.isInteger(x)) return "";
    const h = s.labels ? s.labels[x] : s.heights[x];
    return h === undefined ? "" : String(h);
  };
  /** The widest height label, as uPlot or {@link heightAt} writes it. */
  const widestHeight = rising
    ? (s.heights[s.heights.length - 1] ?? 0).toLocaleString("en-US")
    : s.heights.reduce((w, _, i) => (heightAt(i).length > w.length ? heightAt(i) : w), "");
  /**
   * Room between the height ticks for the widest label (uPlot's 50 px ran 20-digit heights
   * into one another).
   * @type {uPlot.Axis.Space}
   */
  const heightSpace = (u, axisIndex) => {
    const font = /** @type {unknown} */ (u.axes[axisIndex]?.font);
    u.ctx.save();
    u.ctx.font = Array.isArray(font) ? String(font[0]) : String(font);
    const width = u.ctx.measureText(widestHeight).width / (window.devicePixelRatio || 1);
    u.ctx.restore();
    return Math.max(50, Math.ceil(width + 16));
  };
  // Ticks a whole number of blocks (or points) apart: a short history's axis read 2.5, 3.5, ...
  /** @type {number[]} */
  const wholeSteps = [];
  for (let step = 1; step < 1e20; step *= 10) wholeSteps.push(step, step * 2, step * 5);
  /** @type {uPlot.Axis} */
  const heightAxis = rising
    ? { label: "block height", incrs: wholeSteps, space: heightSpace }
    : {
        label: "block height (in history order: the heights went back or are too large to order)",
        incrs: wholeSteps,
        space: heightSpace,
        values: (_u, splits) => splits.map(heightAt),
      };
  /** @type {uPlot.Series} */
  const heightSeries = rising
    ? { label: "height" }
    : { label: "height", value: (_u, x) => heightAt(x) };
  s.strategies.forEach((strategy, index) => {
    const el = byId(`timeline-${index}`);
    const columns = [s.clearing, strategy.deprioritized, strategy.regular, strategy.prioritized];
    /** @type {uPlot.Options} */
    const opts = {
      width: widthOf(el),
      height: 300,
      scales: { x: { time: false }, y: { distr: distrOf(columns) } },
      axes: [heightAxis, { label: "gas unit price", size: fitTicks(70) }],
      series: [
        heightSeries,
        { label: "clearing price", stroke: "#111827", width: 1.5 },
        { label: "deprioritized", stroke: tierColors.deprioritized, width: 1 },
        { label: "regular", stroke: tierColors.regular, width: 1 },
        { label: "prioritized", stroke: tierColors.prioritized, width: 1 },
      ],
    };
    charts.push(new uPlot(opts, [positions, ...columns], el));
  });

  for (const h of data.horizons) {
    const el = byId(`scatter-${h}`);
    const key = /** @type {const} */ (`within${h}`);
    const points = data.points.filter((p) => p.overpayment !== null && p.inclusion[key] !== null);
    /** @type {number[]} */
    const xs = [];
    for (const p of points)
      if (p.overpayment !== null && !xs.includes(p.overpayment)) xs.push(p.overpayment);
    xs.sort((a, b) => a - b);
    /** @type {(number | null)[][]} */
    const ys = [];
    /** @type {uPlot.Series[]} */
    const series = [{ label: "mean overpayment" }];
    for (const p of points) {
      const share = p.inclusion[key];
      ys.push(xs.map((x) => (x === p.overpayment && share !== null ? percent(share) : null)));
      const color = colorOf(p.strategyIndex);
      series.push({
        label: `${p.strategy} ${p.tier}`,
        stroke: color,
        paths: noLine,
        points: { show: true, size: tierSizes[p.tier], stroke: color, fill: color },
      });
    }
    let lowest = 100;
    for (const column of ys) for (const v of column) if (v !== null && v < lowest) lowest = v;
    /** @type {uPlot.Options} */
    const opts = {
      width: widthOf(el),
      height: 320,
      scales: {
        x: { time: false, distr: distrOf([xs]) },
        y: { range: [Math.max(0, Math.floor(lowest / 5) * 5 - 5), 100] },
      },
      axes: [
        { label: "mean overpayment (estimate / clearing price)" },
        { label: withinLabel(h), size: fitTicks(60) },
      ],
      series,
    };
    charts.push(new uPlot(opts, [xs, ...ys], el));
  }

  /** The frontier's two measures: the element id prefix, the point field and the axis label. */
  const measures = /** @type {const} */ ([
    { id: "frontier", key: "overpay", label: "median overpayment" },
    { id: "frontier-cost", key: "cost", label: "price paid / mean clearing price" },
  ]);
  const frontier = data.frontier;
  if (frontier)
    for (const m of measures)
      for (const h of data.horizons) {
        const el = byId(`${m.id}-${h}`);
        const curves = frontier.filter((c) => c.horizon === h);
        /** @type {number[]} */
        const xs = [];
        for (const c of curves)
          for (const p of c.points)
            if (p.inclusion !== null && p[m.key] !== null && !xs.includes(p.inclusion))
              xs.push(p.inclusion);
        xs.sort((a, b) => a - b);
        /** @type {(number | null)[][]} */
        const ys = [];
        /** @type {uPlot.Series[]} */
        const series = [{ label: `% included within ${h}` }];
        curves.forEach((c, i) => {
          ys.push(
            xs.map((x) => {
              // Several settings can reach the same inclusion (every high multiplier reaches
              // 100 %): the frontier there is the cheapest of them, as in the table.
              /** @type {number | null} */
              let hit = null;
              for (const p of c.points) {
                const v = p[m.key];
                if (p.inclusion === x && v !== null && (hit === null || v < hit)) hit = v;
              }
              return hit;
            }),
          );
          const color = colorOf(i);
          series.push({
            label: c.strategy + (c.knob ? ` (${c.knob})` : " (tiers)"),
            stroke: color,
            width: 1.5,
            spanGaps: true,
            paths: c.knob ? undefined : noLine,
            points: { show: true, size: c.knob ? 5 : 11, stroke: color, fill: color },
          });
        });
        /** @type {uPlot.Options} */
        const opts = {
          width: widthOf(el),
          height: 320,
          scales: {
            // A share, 0 to 100 %: uPlot widens a single inclusion (every setting at 100 %) to
            // 0..200, an axis reading "200 % included".
            x: {
              time: false,
              range: (_u, min, max) => [
                Number.isFinite(min) ? Math.max(0, min) : 0,
                Number.isFinite(max) ? Math.min(100, max) : 100,
              ],
            },
            y: { distr: distrOf(ys) },
          },
          axes: [{ label: withinLabel(h) }, { label: m.label, size: fitTicks(60) }],
          series,
        };
        charts.push(new uPlot(opts, [xs.map(percent), ...ys], el));
      }

  window.addEventListener("resize", () => {
    for (const chart of charts) {
      const el = /** @type {HTMLElement} */ (chart.root.parentNode);
      chart.setSize({ width: widthOf(el), height: chart.height });
    }
  });
  document.body.setAttribute("data-charts", String(charts.length));
})();
