// Turns bench/results/latest.json into the charts and the table of docs/benchmarks.md: an SVG of
// every ratio (log scale, 1× and 0.9× marked) and an SVG of retained memory by window size.
// Plain SVG text, no external URL. Used by `node bench/run.js --docs`.
import { readFileSync, writeFileSync } from "node:fs";

const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const fmt = (v) =>
  typeof v !== "number"
    ? String(v ?? "")
    : Math.abs(v) >= 1000
      ? Math.round(v).toLocaleString("en-US")
      : Number(v.toPrecision(4)).toString();

/** Horizontal bars of each row's ratio, on a log scale from 0.1× to the largest ratio. */
export function ratioChart(results) {
  const rows = results.flatMap((r) =>
    r.rows
      .filter((row) => typeof row.ratio === "number")
      .map((row) => ({ suite: r.suite, ...row })),
  );
  const width = 1100;
  const left = 560;
  const barH = 16;
  const top = 40;
  const height = top + rows.length * (barH + 6) + 50;
  const max = Math.max(10, ...rows.map((r) => r.ratio));
  const lo = Math.log10(0.1);
  const hi = Math.log10(max * 1.2);
  const x = (v) => left + ((Math.log10(Math.max(v, 0.1)) - lo) / (hi - lo)) * (width - left - 70);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    "<title>gasdigest benchmarks: ours divided by the baseline, every case</title>",
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${left}" y="20" font-size="14" font-weight="bold">ours ÷ baseline (log scale; right of 1× = ours better)</text>`,
  ];
  for (const tick of [0.1, 0.9, 1, 10, 100, 1000, 10000].filter((t) => t <= max * 1.2)) {
    const tx = x(tick);
    out.push(
      `<line x1="${tx}" y1="${top - 6}" x2="${tx}" y2="${height - 30}" stroke="${tick === 1 ? "#333" : tick === 0.9 ? "#c33" : "#ddd"}" stroke-dasharray="${tick === 0.9 ? "4 3" : ""}"/>`,
    );
    if (tick !== 0.9)
      out.push(`<text x="${tx}" y="${height - 14}" text-anchor="middle">${tick}×</text>`);
  }
  out.push(
    `<text x="${width - 10}" y="${height - 2}" text-anchor="end" fill="#666">dashed red: 0.9×. Grey: an overhead share (below 1× by nature). Red: a baseline better than ours.</text>`,
  );
  rows.forEach((r, i) => {
    const y = top + i * (barH + 6);
    const x1 = x(1);
    const x2 = x(r.ratio);
    const good = r.ratio >= 1;
    out.push(
      `<text x="${left - 8}" y="${y + barH - 4}" text-anchor="end">${esc(`${r.suite}: ${r.name}`.slice(0, 80))}</text>`,
    );
    out.push(
      `<rect x="${Math.min(x1, x2)}" y="${y}" width="${Math.max(1, Math.abs(x2 - x1))}" height="${barH}" fill="${r.kind === "overhead" ? "#999" : good ? "#3a7" : r.ratio >= 0.9 ? "#da3" : "#c44"}"/>`,
    );
    out.push(`<text x="${Math.max(x1, x2) + 4}" y="${y + barH - 4}">${fmt(r.ratio)}×</text>`);
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

/** Lines of retained KiB by window size (log-log), one per strategy, from the memory suite. */
export function memoryChart(memory) {
  const width = 720;
  const height = 380;
  const pad = { l: 70, r: 170, t: 40, b: 50 };
  const names = Object.keys(memory.series);
  const points = names.flatMap((n) => memory.series[n]);
  const wx = points.map((p) => p.window);
  const ky = points.map((p) => Math.max(p.bytes / 1024, 1));
  const [x0, x1] = [Math.log10(Math.min(...wx)), Math.log10(Math.max(...wx))];
  const [y0, y1] = [
    Math.floor(Math.log10(Math.min(...ky))),
    Math.ceil(Math.log10(Math.max(...ky))),
  ];
  const x = (w) => pad.l + ((Math.log10(w) - x0) / (x1 - x0)) * (width - pad.l - pad.r);
  const y = (kib) =>
    height -
    pad.b -
    ((Math.log10(Math.max(kib, 1)) - y0) / (y1 - y0 || 1)) * (height - pad.t - pad.b);
  const colors = ["#c44", "#37c", "#3a7", "#a6c"];
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    "<title>gasdigest benchmarks: memory retained by each strategy, by window size</title>",
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${pad.l}" y="22" font-size="14" font-weight="bold">Memory retained after ${memory.blocks.toLocaleString("en-US")} blocks, by window size</text>`,
  ];
  for (let e = y0; e <= y1; e++) {
    out.push(
      `<line x1="${pad.l}" y1="${y(10 ** e)}" x2="${width - pad.r}" y2="${y(10 ** e)}" stroke="#eee"/>`,
    );
    out.push(
      `<text x="${pad.l - 6}" y="${y(10 ** e) + 4}" text-anchor="end">${fmt(10 ** e)} KiB</text>`,
    );
  }
  for (const w of [...new Set(wx)])
    out.push(`<text x="${x(w)}" y="${height - pad.b + 18}" text-anchor="middle">${fmt(w)}</text>`);
  out.push(
    `<text x="${(pad.l + width - pad.r) / 2}" y="${height - 12}" text-anchor="middle">window (blocks)</text>`,
  );
  names.forEach((n, i) => {
    const pts = memory.series[n]
      .map((p) => `${x(p.window).toFixed(1)},${y(p.bytes / 1024).toFixed(1)}`)
      .join(" ");
    out.push(
      `<polyline points="${pts}" fill="none" stroke="${colors[i % colors.length]}" stroke-width="2"/>`,
    );
    for (const p of memory.series[n])
      out.push(
        `<circle cx="${x(p.window)}" cy="${y(p.bytes / 1024)}" r="3" fill="${colors[i % colors.length]}"/>`,
      );
    out.push(
      `<text x="${width - pad.r + 10}" y="${pad.t + 20 + i * 18}" fill="${colors[i % colors.length]}">${esc(n)}</text>`,
    );
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

/** The markdown table of one run (same as the runner prints). */
export function markdownTable(results) {
  const lines = [
    "| suite | case | ours | baseline | unit | ratio | note |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const r of results)
    for (const row of r.rows)
      lines.push(
        `| ${r.suite} | ${row.name} | ${fmt(row.ours)} | ${fmt(row.baseline)} | ${row.unit ?? ""} | ${row.ratio === undefined ? "" : `${fmt(row.ratio)}×`} | ${row.note ?? ""} |`,
      );
  return lines.join("\n");
}

/** Write the SVGs and replace the generated section of docs/benchmarks.md. */
export function writeDocs(latest, docsDir) {
  writeFileSync(new URL("benchmarks.svg", docsDir), ratioChart(latest.results));
  const memory = latest.results.find((r) => r.suite === "memory");
  if (memory) writeFileSync(new URL("benchmarks-memory.svg", docsDir), memoryChart(memory));
  const page = new URL("benchmarks.md", docsDir);
  const text = readFileSync(page, "utf8");
  const begin = "<!-- bench:begin -->";
  const end = "<!-- bench:end -->";
  const m = latest.machine;
  const generated = [
    begin,
    `Run of ${latest.date.slice(0, 10)}${latest.quick ? " (quick mode)" : ""}: Node ${m.node}, ${m.cpus} × ${m.cpu}, ${m.memGiB} GiB; ${Math.round(latest.seconds)} s in all.`,
    "",
    markdownTable(latest.results),
    end,
  ].join("\n");
  const i = text.indexOf(begin);
  const j = text.indexOf(end);
  if (i === -1 || j === -1)
    throw new Error(`docs/benchmarks.md has no ${begin} ... ${end} section`);
  writeFileSync(page, text.slice(0, i) + generated + text.slice(j + end.length));
}
