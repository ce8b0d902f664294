#!/usr/bin/env node
// Runs every suite in bench/suites (against the built output in dist/), prints one markdown
// table of ratios and writes bench/results/latest.json. `--quick` is the short CI smoke run;
// `--only a,b` runs the named suites.
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { quick: { type: "boolean", default: false }, only: { type: "string" } },
  strict: true,
});
const suitesDir = new URL("./suites/", import.meta.url);
const only = values.only ? new Set(values.only.split(",")) : undefined;
const names = readdirSync(suitesDir)
  .filter((f) => f.endsWith(".js"))
  .map((f) => f.slice(0, -3))
  .filter((n) => !only || only.has(n))
  .sort();

const fmt = (v) =>
  typeof v !== "number"
    ? String(v ?? "")
    : Math.abs(v) >= 1000
      ? Math.round(v).toLocaleString("en-US")
      : Number(v.toPrecision(4)).toString();

const results = [];
const started = Date.now();
for (const name of names) {
  const t0 = Date.now();
  process.stderr.write(`bench: ${name}${values.quick ? " (quick)" : ""}...\n`);
  const mod = await import(new URL(`${name}.js`, suitesDir).href);
  const result = await mod.default({ quick: values.quick });
  results.push({ suite: name, seconds: (Date.now() - t0) / 1000, ...result });
}

const lines = [
  "| suite | case | ours | baseline | unit | ratio | note |",
  "|---|---|---|---|---|---|---|",
];
for (const r of results)
  for (const row of r.rows)
    lines.push(
      `| ${r.suite} | ${row.name} | ${fmt(row.ours)} | ${fmt(row.baseline)} | ${row.unit ?? ""} | ${row.ratio === undefined ? "" : `${fmt(row.ratio)}×`} | ${row.note ?? ""} |`,
    );
process.stdout.write(`${lines.join("\n")}\n`);

mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
const machine = {
  node: process.version,
  cpus: cpus().length,
  cpu: cpus()[0]?.model,
  memGiB: Math.round(totalmem() / 2 ** 30),
};
writeFileSync(
  new URL("./results/latest.json", import.meta.url),
  `${JSON.stringify({ date: new Date().toISOString(), quick: values.quick, machine, seconds: (Date.now() - started) / 1000, results }, null, 2)}\n`,
);
process.stderr.write(
  `bench: wrote bench/results/latest.json in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
);
