#!/usr/bin/env node
// Runs every suite in bench/suites (against the built output in dist/), prints one markdown
// table of ratios and writes bench/results/latest.json. `--quick` is the short CI smoke run;
// `--only a,b` runs the named suites; `--docs` rewrites docs/benchmarks.md's table and charts.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { parseArgs } from "node:util";
import { markdownTable, writeDocs } from "./report.js";

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    docs: { type: "boolean", default: false },
  },
  strict: true,
});
const suitesDir = new URL("./suites/", import.meta.url);
const latestUrl = new URL("./results/latest.json", import.meta.url);
// `--only ""` names no suite (it ran them all).
const only = values.only === undefined ? undefined : new Set(values.only.split(","));
const all = readdirSync(suitesDir)
  .filter((f) => f.endsWith(".js"))
  .map((f) => f.slice(0, -3))
  .sort();
const names = all.filter((n) => !only || only.has(n));
if (only)
  for (const n of only)
    if (!names.includes(n))
      throw new Error(`bench: no suite named "${n}" in bench/suites (${all.join(", ")})`);
// --docs with --only keeps the other suites' rows from the previous run of the same mode:
// without them, the page's table and chart would be left with the named suites alone.
const previous = existsSync(latestUrl) ? JSON.parse(readFileSync(latestUrl, "utf8")) : undefined;
if (only && values.docs) {
  const kept = new Set(
    previous?.quick === values.quick ? previous.results.map((r) => r.suite) : [],
  );
  const missing = all.filter((n) => !only.has(n) && !kept.has(n));
  if (missing.length > 0)
    throw new Error(
      `bench: --docs with --only needs the other suites from a previous${values.quick ? " --quick" : ""} run in bench/results/latest.json, which has none of ${missing.join(", ")}: run without --only first`,
    );
}

const results = [];
const started = Date.now();
for (const name of names) {
  const t0 = Date.now();
  process.stderr.write(`bench: ${name}${values.quick ? " (quick)" : ""}...\n`);
  const mod = await import(new URL(`${name}.js`, suitesDir).href);
  const result = await mod.default({ quick: values.quick });
  results.push({ suite: name, seconds: (Date.now() - t0) / 1000, ...result });
}
process.stdout.write(`${markdownTable(results)}\n`);

mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
// With --only, keep the other suites of the previous run (so --docs still shows everything).
let merged = results;
if (only && previous) {
  if (previous.quick === values.quick)
    merged = [...previous.results.filter((r) => !only.has(r.suite)), ...results].sort((a, b) =>
      a.suite.localeCompare(b.suite),
    );
}
const latest = {
  date: new Date().toISOString(),
  quick: values.quick,
  machine: {
    node: process.version,
    cpus: cpus().length,
    cpu: cpus()[0]?.model,
    memGiB: Math.round(totalmem() / 2 ** 30),
  },
  seconds: (Date.now() - started) / 1000,
  results: merged,
};
writeFileSync(
  new URL("./results/latest.json", import.meta.url),
  `${JSON.stringify(latest, null, 2)}\n`,
);
process.stderr.write(`bench: wrote bench/results/latest.json in ${latest.seconds.toFixed(1)} s\n`);
if (values.docs) {
  writeDocs(latest, new URL("../docs/", import.meta.url));
  process.stderr.write(
    `bench: rewrote docs/benchmarks.md, docs/benchmarks.svg${merged.some((r) => r.suite === "memory") ? ", docs/benchmarks-memory.svg" : ""}\n`,
  );
}
