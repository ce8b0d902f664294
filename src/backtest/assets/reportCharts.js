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
  const widthOf = (el) => Math.max(240, Math.min(1100, el.clientWidth || 900));
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
  /** The width of `text` in axis `axisIndex`'s font, in CSS pixels. */
  const textWidth = (
    /** @type {uPlot} */ u,
    /** @type {number} */ axisIndex,
    /** @type {string} */ text,
  ) => {
    const font = /** @type {unknown} */ (u.axes[axisIndex]?.font);
    u.ctx.save();
    u.ctx.font = Array.isArray(font) ? String(font[0]) : String(font);
    const width = u.ctx.measureText(text).width / (window.devicePixelRatio || 1);
    u.ctx.restore();
    return width;
  };
  /**
   * The ticks of a log axis to label, and whether its decades are too close to label each: as
   * uPlot chooses (every digit, 1-2-3-5-7, 1-2-5 or 1 of a decade, as room allows), but where
   * even the decades are too close, every k-th decade from the top. uPlot keeps every k-th of
   * its ticks, nine a decade, for that: with k = 3 (a divisor of 9) it labelled all 18 decades
   * of a price axis from 100 to 2^64, one label over the next. A label's room is 30 px up a
   * vertical axis, its width (the widest decade's) and a gap along a horizontal one.
   * @param {uPlot} u
   * @param {number[]} splits
   * @param {number} axisIndex
   */
  const logLabels = (u, splits, axisIndex) => {
    const axis = u.axes[axisIndex];
    const key = axis?.scale ?? "y";
    /** @param {number} v */
    const parts = (v) => {
      const [digits = "", exp = "0"] = v.toExponential().split("e");
      return { lead: digits[0] ?? "", exp: Number(exp) };
    };
    let room = 30;
    if ((axis?.side ?? 3) % 2 === 0) {
      room = 50;
      for (const v of splits)
        if (parts(v).lead === "1")
          room = Math.max(room, textWidth(u, axisIndex, uPlot.fmtNum(v)) + 16);
    }
    const gap = (/** @type {number} */ a) => Math.abs(u.valToPos(a, key) - u.valToPos(10, key));
    const leads =
      gap(9) >= room ? /./ : gap(7) >= room ? /[12357]/ : gap(5) >= room ? /[125]/ : /1/;
    const every = Math.max(1, Math.ceil(room / gap(1)));
    let top = Number.NEGATIVE_INFINITY;
    for (const v of splits) if (parts(v).lead === "1") top = Math.max(top, parts(v).exp);
    const labels = splits.map((v) => {
      const { lead, exp } = parts(v);
      return leads.test(lead) && (lead !== "1" || (top - exp) % every === 0) ? v : null;
    });
    return { labels, crowded: every > 1 };
  };
  /**
   * A log axis's labels ({@link logLabels}), and its tick marks and grid lines at those labels
   * only where the decades are crowded (nine lines a decade, 12 px apart, greyed the chart).
   * @type {Pick<uPlot.Axis, "filter" | "grid" | "ticks">}
   */
  const logAxis = {
    filter: (u, splits, axisIndex) => logLabels(u, splits, axisIndex).labels,
    grid: { filter: crowdedLines },
    ticks: { filter: crowdedLines },
  };
  /** @type {uPlot.Axis.Filter} */
  function crowdedLines(u, splits, axisIndex) {
    const { labels, crowded } = logLabels(u, splits, axisIndex);
    return crowded ? labels : splits;
  }
  /** The options of a value axis: {@link logAxis}'s on a log scale (`distr` 3). */
  const valueAxis = (/** @type {number} */ distr, /** @type {uPlot.Axis} */ axis) =>
    distr === 3 ? { ...axis, ...logAxis } : axis;
  /**
   * Room right of the plot for half the x axis's last label, centred on its tick at the plot's
   * edge: uPlot leaves 25 px, and cut the rest off (4,710,002 read 4,710,00; a mean overpayment
   * of 10^17, 100,000,000,000,000,000, read 100,000,000).
   * @type {uPlot.Padding}
   */
  const padding = [
    null,
    (u) => {
      // uPlot keeps the labels it last wrote for an axis (not in its types).
      const values = /** @type {{ _values?: unknown[] | null }} */ (u.axes[0])?._values ?? [];
      let last = "";
      for (const v of values) if (v !== null && v !== undefined && v !== "") last = String(v);
      return Math.max(25, Math.ceil(textWidth(u, 0, last) / 2) + 2);
    },
    null,
    null,
  ];
  /**
   * An axis title, or its short form where the long one is wider than the room either side of
   * the plot's middle (on a phone's 320 px chart it ran off both edges of the canvas).
   * @returns {uPlot.Axis.Label}
   */
  const title = (/** @type {string} */ long, /** @type {string} */ short) => (u) => {
    // Called with the title's font set; the title is centred on the plot.
    const middle = u.bbox.left + u.bbox.width / 2;
    const room = 2 * Math.min(middle, u.ctx.canvas.width - middle);
    return u.ctx.measureText(long).width <= room ? long : short;
  };
  /**
   * Write why a chart has nothing to draw in its place: uPlot without a point drew no axis at
   * all (a 300 px gap) or an empty frame with a made-up range.
   * @param {HTMLElement} el
   * @param {string} why
   */
  const nothingToDraw = (el, why) => {
    const note = document.createElement("p");
    note.className = "note";
    note.textContent = `Nothing to draw: ${why}.`;
    el.classList.add("empty");
    el.replaceChildren(note);
  };

  const s = data.series;
  // The x axis is the heights when they rise. A history whose chain started again (heights back
  // at 1 after a resync), or heights too large for a number to tell apart (near 2^64), would
  // fold the chart onto one vertical stroke: the points go in history order then, labelled
  // with their heights.
  const rising =
    s.labels === null && s.heights.every((h, i) => i === 0 || h > (s.heights[i - 1] ?? h));
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
    ? { label: title("block height", "height"), incrs: wholeSteps, space: heightSpace }
    : {
        label: title(
          "block height (in history order: the heights went back or are too large to order)",
          "block height (in history order)",
        ),
        incrs: wholeSteps,
        space: heightSpace,
        values: (_u, splits) => splits.map(heightAt),
      };
  /** @type {uPlot.Series} */
  const heightSeries = rising
    ? { label: "height" }
    : { label: "height", value: (_u, x) => heightAt(x) };
  /**
   * A line of the timeline; a lone point (one scored block) drawn as a filled dot, where uPlot
   * drew a 5 px ring.
   * @returns {uPlot.Series}
   */
  const line = (/** @type {string} */ label, /** @type {string} */ stroke, width = 1) =>
    positions.length === 1
      ? { label, stroke, width, points: { show: true, size: 9, fill: stroke } }
      : { label, stroke, width };
  // One position either side of a lone point: uPlot spread it from 0 to twice its height.
  const lone = positions.length === 1 ? positions[0] : undefined;
  s.strategies.forEach((strategy, index) => {
    const el = byId(`timeline-${index}`);
    if (positions.length === 0) {
      nothingToDraw(
        el,
        "no block was scored (a history's first block only gives the strategies their first estimate)",
      );
      return;
    }
    const columns = [s.clearing, strategy.deprioritized, strategy.regular, strategy.prioritized];
    const distr = distrOf(columns);
    /** @type {uPlot.Options} */
    const opts = {
      width: widthOf(el),
      padding,
      height: 300,
      scales: {
        x: { time: false, range: lone === undefined ? undefined : [lone - 1, lone + 1] },
        y: { distr },
      },
      axes: [heightAxis, valueAxis(distr, { label: "gas unit price", size: fitTicks(70) })],
      series: [
        heightSeries,
        line("clearing price", "#111827", 1.5),
        line("deprioritized", tierColors.deprioritized),
        line("regular", tierColors.regular),
        line("prioritized", tierColors.prioritized),
      ],
    };
    charts.push(new uPlot(opts, [positions, ...columns], el));
  });

  for (const h of data.horizons) {
    const el = byId(`scatter-${h}`);
    const key = /** @type {const} */ (`within${h}`);
    const points = data.points.filter((p) => p.overpayment !== null && p.inclusion[key] !== null);
    if (points.length === 0) {
      nothingToDraw(
        el,
        `no tier had a bid scored and included within ${h} block${h === 1 ? "" : "s"}`,
      );
      continue;
    }
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
    const distr = distrOf([xs]);
    /** @type {uPlot.Options} */
    const opts = {
      width: widthOf(el),
      padding,
      height: 320,
      scales: {
        x: { time: false, distr },
        y: { range: [Math.max(0, Math.floor(lowest / 5) * 5 - 5), 100] },
      },
      axes: [
        valueAxis(distr, {
          label: title("mean overpayment (estimate / clearing price)", "mean overpayment"),
        }),
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
        if (xs.length === 0) {
          nothingToDraw(
            el,
            `no strategy's curve has a point within ${h} block${h === 1 ? "" : "s"}`,
          );
          continue;
        }
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
        const distr = distrOf(ys);
        /** @type {uPlot.Options} */
        const opts = {
          width: widthOf(el),
          padding,
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
            y: { distr },
          },
          axes: [
            { label: withinLabel(h) },
            valueAxis(distr, { label: m.label, size: fitTicks(60) }),
          ],
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
