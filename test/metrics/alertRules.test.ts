// The alert rules of docs/operations.md are YAML of Prometheus's rule file shape, and every
// metric they name is one that a replica or a publisher exposes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { createEngine } from "../../src/core/createEngine.js";
import { createMetrics } from "../../src/metrics.js";
import { calibrated } from "../../src/strategies/calibrated.js";
import { block, fullBlock } from "../helpers/blocks.js";
import { parsePrometheusText } from "./parsePrometheusText.js";

const doc = readFileSync(join(import.meta.dirname, "../../docs/operations.md"), "utf8");

function alertRules() {
  const section = doc.slice(doc.indexOf("### Alert rules"));
  const m = /```yaml\n([\s\S]*?)```/.exec(section);
  if (m === null) throw new Error("no yaml block under ### Alert rules");
  return parse(m[1]!) as { groups: { name: string; rules: Record<string, unknown>[] }[] };
}

/** Every metric family a replica (calibrated, a source) and a publisher (a sink) expose. */
async function exposed() {
  return new Set((await exposedLabels()).keys());
}

/** The label names each exposed family's samples carry (`le` of histograms included). */
async function exposedLabels() {
  // Quiet blocks, then busy ones: enough bids above the minimum for every promise series.
  const engine = createEngine({ strategy: calibrated() });
  for (let h = 1; h <= 30; h++) engine.ingest(block(h));
  for (let h = 31; h <= 180; h++) engine.ingest(fullBlock(h, 500));
  const replica = createMetrics({ engine });
  replica.source("redis")({ type: "connected" });
  replica.observeRequest("/v1/estimate_gas_price", 200, 0.00002);
  const publisher = createMetrics({ defaultMetrics: false });
  publisher.source("aptos");
  publisher.sink("redis");
  publisher.published({ outcome: "published", height: 1n });
  const labels = new Map<string, Set<string>>();
  for (const m of [replica, publisher])
    for (const [name, family] of parsePrometheusText((await m.scrape()).body)) {
      const set = labels.get(name) ?? new Set<string>();
      for (const sample of family.samples) for (const l of Object.keys(sample.labels)) set.add(l);
      labels.set(name, set);
    }
  return labels;
}

describe("docs/operations.md: alert rules", () => {
  it("are a rule file: groups of rules, each with alert and expr", () => {
    const { groups } = alertRules();
    expect(groups.length).toBeGreaterThan(0);
    for (const group of groups) {
      expect(typeof group.name).toBe("string");
      for (const rule of group.rules) {
        expect(Object.keys(rule).sort()).toEqual(expect.arrayContaining(["alert", "expr"].sort()));
        for (const key of Object.keys(rule))
          expect(["alert", "expr", "for", "labels", "annotations"]).toContain(key);
        expect(rule.alert).toMatch(/^Gasdigest[A-Za-z]+$/);
        expect(typeof rule.expr).toBe("string");
        if (rule.for !== undefined) expect(rule.for).toMatch(/^\d+[smh]$/);
      }
    }
  });

  it("name only metrics that are exposed", async () => {
    const names = await exposed();
    const used = new Set<string>();
    for (const rule of alertRules().groups.flatMap((g) => g.rules))
      for (const [token] of String(rule.expr).matchAll(/\b(gasdigest|nodejs|process)_[a-z0-9_]+/g))
        used.add(token.replace(/_bucket$/, ""));
    expect(used.size).toBeGreaterThan(10);
    for (const name of used) expect(names, name).toContain(name);
  });

  it("select only labels those metrics carry", async () => {
    const labels = await exposedLabels();
    let checked = 0;
    for (const rule of alertRules().groups.flatMap((g) => g.rules))
      for (const [, name, selector] of String(rule.expr).matchAll(
        /\b((?:gasdigest|nodejs|process)_[a-z0-9_]+)\{([^}]*)\}/g,
      )) {
        const family = name!.replace(/_bucket$/, "");
        for (const [, label] of selector!.matchAll(/([a-z_]+)\s*(?:=~|!~|!=|=)/g)) {
          expect(labels.get(family), `${rule.alert}: ${family}{${label}}`).toContain(label);
          checked++;
        }
      }
    expect(checked).toBeGreaterThan(5);
  });

  it("the metrics table lists every gasdigest metric exposed", async () => {
    const table = doc.slice(doc.indexOf("### Every metric"), doc.indexOf("### Alert rules"));
    for (const name of await exposed())
      if (name.startsWith("gasdigest_")) expect(table, name).toContain(`\`${name}\``);
  });
});
