/**
 * The report page's own script (plain ES2017, run in the browser after uPlot): reads the JSON
 * data block and draws, with uPlot, one chart per strategy of its three tiers against the
 * clearing price over time, and one scatter chart per horizon of inclusion against mean
 * overpayment (one point per strategy and tier).
 */
export const REPORT_SCRIPT = `(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("backtest-data").textContent);
  var tierColors = { deprioritized: "#2a9d8f", regular: "#1d4ed8", prioritized: "#d62828" };
  var palette = ["#1d4ed8", "#d62828", "#2a9d8f", "#8338ec", "#e76f51", "#6b7280"];
  var tierSizes = { deprioritized: 7, regular: 10, prioritized: 13 };
  var charts = [];

  function widthOf(el) {
    return Math.max(320, Math.min(1100, el.clientWidth || 900));
  }
  function allPositive(columns) {
    for (var c = 0; c < columns.length; c++)
      for (var i = 0; i < columns[c].length; i++) {
        var v = columns[c][i];
        if (v !== null && !(v > 0)) return false;
      }
    return true;
  }

  var s = data.series;
  s.strategies.forEach(function (strategy, index) {
    var el = document.getElementById("timeline-" + index);
    var columns = [s.clearing, strategy.deprioritized, strategy.regular, strategy.prioritized];
    var opts = {
      width: widthOf(el),
      height: 300,
      scales: { x: { time: false }, y: { distr: allPositive(columns) ? 3 : 1 } },
      axes: [{ label: "block height" }, { label: "gas unit price", size: 70 }],
      series: [
        { label: "height" },
        { label: "clearing price", stroke: "#111827", width: 1.5 },
        { label: "deprioritized", stroke: tierColors.deprioritized, width: 1 },
        { label: "regular", stroke: tierColors.regular, width: 1 },
        { label: "prioritized", stroke: tierColors.prioritized, width: 1 },
      ],
    };
    charts.push(new uPlot(opts, [s.heights].concat(columns), el));
  });

  data.horizons.forEach(function (h) {
    var el = document.getElementById("scatter-" + h);
    var points = data.points.filter(function (p) {
      return p.overpayment !== null && p.inclusion["within" + h] !== null;
    });
    var xs = [];
    points.forEach(function (p) {
      if (xs.indexOf(p.overpayment) < 0) xs.push(p.overpayment);
    });
    xs.sort(function (a, b) {
      return a - b;
    });
    var columns = [xs];
    var series = [{ label: "mean overpayment" }];
    points.forEach(function (p) {
      var column = xs.map(function (x) {
        return x === p.overpayment ? Math.round(p.inclusion["within" + h] * 10000) / 100 : null;
      });
      columns.push(column);
      var color = palette[p.strategyIndex % palette.length];
      series.push({
        label: p.strategy + " " + p.tier,
        stroke: color,
        paths: function () {
          return null;
        },
        points: { show: true, size: tierSizes[p.tier], stroke: color, fill: color },
      });
    });
    var lowest = 100;
    columns.slice(1).forEach(function (column) {
      column.forEach(function (v) {
        if (v !== null && v < lowest) lowest = v;
      });
    });
    var opts = {
      width: widthOf(el),
      height: 320,
      scales: {
        x: { time: false, distr: allPositive([xs]) ? 3 : 1 },
        y: { range: [Math.max(0, Math.floor(lowest / 5) * 5 - 5), 100] },
      },
      axes: [
        { label: "mean overpayment (estimate / clearing price)" },
        { label: "% included within " + h + (h === 1 ? " block" : " blocks"), size: 60 },
      ],
      series: series,
    };
    charts.push(new uPlot(opts, columns, el));
  });

  if (data.frontier)
    data.horizons.forEach(function (h) {
      var el = document.getElementById("frontier-" + h);
      var curves = data.frontier.filter(function (c) {
        return c.horizon === h;
      });
      var xs = [];
      curves.forEach(function (c) {
        c.points.forEach(function (p) {
          if (p.inclusion !== null && p.overpay !== null && xs.indexOf(p.inclusion) < 0)
            xs.push(p.inclusion);
        });
      });
      xs.sort(function (a, b) {
        return a - b;
      });
      var columns = [
        xs.map(function (x) {
          return Math.round(x * 10000) / 100;
        }),
      ];
      var series = [{ label: "% included within " + h }];
      curves.forEach(function (c, i) {
        columns.push(
          xs.map(function (x) {
            var hit = null;
            c.points.forEach(function (p) {
              if (p.inclusion === x && p.overpay !== null) hit = p.overpay;
            });
            return hit;
          }),
        );
        var color = palette[i % palette.length];
        series.push({
          label: c.strategy + (c.knob ? " (" + c.knob + ")" : " (tiers)"),
          stroke: color,
          width: 1.5,
          spanGaps: true,
          paths: c.knob
            ? undefined
            : function () {
                return null;
              },
          points: { show: true, size: c.knob ? 5 : 11, stroke: color, fill: color },
        });
      });
      var opts = {
        width: widthOf(el),
        height: 320,
        scales: { x: { time: false }, y: { distr: allPositive(columns.slice(1)) ? 3 : 1 } },
        axes: [
          { label: "% included within " + h + (h === 1 ? " block" : " blocks") },
          { label: "median overpayment", size: 60 },
        ],
        series: series,
      };
      charts.push(new uPlot(opts, columns, el));
    });

  window.addEventListener("resize", function () {
    charts.forEach(function (chart) {
      var el = chart.root.parentNode;
      chart.setSize({ width: widthOf(el), height: chart.height });
    });
  });
  document.body.setAttribute("data-charts", String(charts.length));
})();
`;
