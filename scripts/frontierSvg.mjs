// Frontier charts of one backtest as one SVG (plain text, no external URL): a panel per horizon
// (within 1, 3 and 10 blocks) and measure, inclusion on the x axis (a log scale of the miss rate,
// so that 90, 95 and 99 % are spread out), median overpayment (top row) and mean price paid in
// mean clearing prices (bottom row) on the y axis (log scale). A strategy with a knob is a line
// through its knob values; a strategy without one (aip34) is a mark per tier.

const COLOURS = {
  calibrated: "#c0392b",
  geth: "#e67e22",
  "last-block": "#27ae60",
  tdigest: "#2c7fb8",
  aip34: "#555555",
};
const colour = (s) => COLOURS[s] ?? "#8e44ad";
const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Misses shown: from 50 % (inclusion 50 %) down to 0.1 % (inclusion 99.9 %). */
const MISS_HI = 0.5;
const MISS_LO = 0.001;
const INCLUSION_TICKS = [0.5, 0.8, 0.9, 0.95, 0.99, 0.999];
const TARGETS = [0.9, 0.95, 0.99];
/** The rows: which field of a point, what it is, and how its values are written. */
const MEASURES = [
  { key: "overpay", label: "median overpayment", unit: "×", floor: 0.5 },
  { key: "cost", label: "mean price paid (mean clearing prices)", unit: "", floor: 0.01 },
];
const Y_TICKS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 1.5, 2, 3, 5, 10, 20, 50, 100];

/**
 * @param {string} title
 * @param {{ curves: { strategy: string, knob: string | null, horizon: number, points: { at: number | string, inclusion: number | null, overpay: number | null, cost?: number | null }[] }[] }} frontier
 * @returns {string} the SVG document
 */
export function frontierSvg(title, frontier) {
  const horizons = [...new Set(frontier.curves.map((c) => c.horizon))].sort((a, b) => a - b);
  const strategies = [...new Set(frontier.curves.map((c) => c.strategy))];
  const panelW = 360;
  const panelH = 300;
  const gap = 70;
  const left = 60;
  const top = 56;
  const rowGap = 80;
  const width = left + horizons.length * (panelW + gap);
  const height = top + MEASURES.length * (panelH + rowGap) + 30;
  const ly = (v) => Math.log10(v);
  const x = (inclusion) => {
    const miss = Math.min(MISS_HI, Math.max(MISS_LO, 1 - inclusion));
    return ((ly(MISS_HI) - ly(miss)) / (ly(MISS_HI) - ly(MISS_LO))) * panelW;
  };

  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>${esc(title)}: inclusion against median overpayment and mean price paid</title>`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${left}" y="20" font-size="15" font-weight="bold">${esc(title)}: what each inclusion costs (lower right is better)</text>`,
  ];
  MEASURES.forEach((m, row) => {
    // Points below 50 % inclusion are off the chart (no tier is meant for them).
    const usable = (p) =>
      p.inclusion !== null && p.inclusion >= 1 - MISS_HI && p[m.key] != null && p[m.key] > 0;
    const ys = frontier.curves.flatMap((c) => c.points.filter(usable).map((p) => p[m.key]));
    const yMax = Math.min(100, Math.max(2, ...ys) * 1.15);
    const yMin = Math.max(m.floor, Math.min(1, ...ys) / 1.05);
    const y = (v) =>
      panelH -
      ((ly(Math.min(yMax, Math.max(yMin, v))) - ly(yMin)) / (ly(yMax) - ly(yMin))) * panelH;
    const yTicks = Y_TICKS.filter((t) => t >= yMin && t <= yMax);
    const oy = top + row * (panelH + rowGap);
    horizons.forEach((k, i) => {
      const ox = left + i * (panelW + gap);
      out.push(`<g transform="translate(${ox},${oy})">`);
      out.push(
        `<text x="0" y="-10" font-weight="bold">${esc(m.label)}, within ${k} block${k === 1 ? "" : "s"}</text>`,
      );
      out.push(
        `<rect x="0" y="0" width="${panelW}" height="${panelH}" fill="none" stroke="#999"/>`,
      );
      for (const t of INCLUSION_TICKS) {
        const tx = x(t);
        const target = TARGETS.includes(t);
        out.push(
          `<line x1="${tx}" y1="0" x2="${tx}" y2="${panelH}" stroke="${target ? "#bbb" : "#eee"}" stroke-dasharray="${target ? "4 3" : ""}"/>`,
          `<text x="${tx}" y="${panelH + 16}" text-anchor="middle">${+(t * 100).toFixed(1)}%</text>`,
        );
      }
      for (const t of yTicks) {
        const ty = y(t);
        out.push(
          `<line x1="0" y1="${ty}" x2="${panelW}" y2="${ty}" stroke="${t === 1 ? "#999" : "#eee"}"/>`,
          `<text x="-6" y="${ty + 4}" text-anchor="end">${t}${m.unit}</text>`,
        );
      }
      out.push(
        `<text x="${panelW / 2}" y="${panelH + 34}" text-anchor="middle" fill="#444">inclusion within ${k}</text>`,
      );
      for (const s of strategies) {
        const curve = frontier.curves.find((c) => c.strategy === s && c.horizon === k);
        if (!curve) continue;
        const pts = curve.points.filter(usable);
        const c = colour(s);
        const tip = (p, knob) =>
          esc(
            `${s} ${knob ? `${knob} ` : ""}${p.at}: ${(p.inclusion * 100).toFixed(2)}% at ${p[m.key].toFixed(3)}${m.unit}`,
          );
        if (curve.knob === null) {
          for (const p of pts) {
            const px = x(p.inclusion);
            const py = y(p[m.key]);
            out.push(
              `<rect x="${px - 4}" y="${py - 4}" width="8" height="8" fill="none" stroke="${c}" stroke-width="2"><title>${tip(p, null)}</title></rect>`,
            );
          }
          continue;
        }
        const line = pts
          .map((p) => `${x(p.inclusion).toFixed(1)},${y(p[m.key]).toFixed(1)}`)
          .join(" ");
        out.push(
          `<polyline points="${line}" fill="none" stroke="${c}" stroke-width="${s === "calibrated" ? 2.5 : 1.6}"/>`,
        );
        for (const p of pts)
          out.push(
            `<circle cx="${x(p.inclusion).toFixed(1)}" cy="${y(p[m.key]).toFixed(1)}" r="2.5" fill="${c}"><title>${tip(p, curve.knob)}</title></circle>`,
          );
      }
      out.push("</g>");
    });
  });
  // Legend under the panels.
  const ly0 = height - 30;
  strategies.forEach((s, i) => {
    const lx = left + i * 170;
    const knob = frontier.curves.find((c) => c.strategy === s)?.knob;
    out.push(
      knob === null
        ? `<rect x="${lx}" y="${ly0 - 8}" width="8" height="8" fill="none" stroke="${colour(s)}" stroke-width="2"/>`
        : `<line x1="${lx - 4}" y1="${ly0 - 4}" x2="${lx + 14}" y2="${ly0 - 4}" stroke="${colour(s)}" stroke-width="2.5"/>`,
      `<text x="${lx + 20}" y="${ly0}">${esc(knob ? `${s} (${knob})` : `${s} (its tiers)`)}</text>`,
    );
  });
  out.push(
    `<text x="${width - 10}" y="${height - 6}" text-anchor="end" fill="#666">x: inclusion (log scale of the miss rate); y: log scale; dashed: 90, 95, 99 %</text>`,
    "</svg>",
  );
  return `${out.join("\n")}\n`;
}
