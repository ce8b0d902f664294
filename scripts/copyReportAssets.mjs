// Build step: copies uPlot's browser build, stylesheet and licence into dist/uplot/, for the
// backtest report (src/backtest/renderReport.ts reads them from there). uplot is then a build-time
// dependency only: a library user does not install it, and the report still inlines it (never a
// CDN).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "package.json"));
const folder = dirname(require.resolve("uplot/package.json"));
const { version, license } = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
const out = join(root, "dist/uplot");
mkdirSync(out, { recursive: true });
for (const file of ["dist/uPlot.iife.min.js", "dist/uPlot.min.css", "LICENSE"])
  copyFileSync(join(folder, file), join(out, file.replace("dist/", "")));
writeFileSync(
  join(out, "package.json"),
  `${JSON.stringify({ name: "uplot", version, license })}\n`,
);
