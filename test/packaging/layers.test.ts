// The layer rules of docs/architecture.md ("Layers, and which may import which"), checked on
// every source file: a relative import (static or dynamic) from one layer reaches only the
// layers, or the leaf modules, that the table lets it. Keep the two in step.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

/** What each layer may import: whole layers (folders under src) or single core modules. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  core: ["core", "sketch"],
  sketch: [
    "sketch",
    "core/errors.ts",
    "core/describeValue.ts",
    "core/readOptions.ts",
    "core/didYouMean.ts",
  ],
  strategies: ["strategies", "core", "sketch"],
  sources: ["sources", "core"],
  sinks: ["sinks", "core", "sources"],
  http: ["http", "core"],
  adapters: [
    "adapters",
    "http",
    "core/maxTimerMs.ts",
    "core/errors.ts",
    "core/readOptions.ts",
    "core/didYouMean.ts",
  ],
  backtest: ["backtest", "core", "sketch", "strategies", "sources"],
  metrics: ["metrics", "core", "http"],
  // cli: everything; the entries at the root of src: the layers they export.
};

/** Whether `layer` may import `target` (a path under src). */
const mayImport = (layer: string, target: string) =>
  MAY_IMPORT[layer]!.some((a) => target === a || target.startsWith(`${a}/`));

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(folder, e.name))
      : /\.[cm]?[jt]s$/.test(e.name)
        ? [join(folder, e.name)]
        : [],
  );
}

/** Every relative import of `file`, as a path under src (`core/errors.ts`). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((m) =>
    relative(SRC, resolve(dirname(file), m[1]!)).replace(/\.js$/, ".ts"),
  );
}

describe("layers (docs/architecture.md)", () => {
  it("no source file imports a layer its own may not", () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of sourceFiles(SRC)) {
      const from = relative(SRC, file);
      const layer = from.split("/")[0]!;
      if (MAY_IMPORT[layer] === undefined) continue;
      for (const target of importsOf(file)) {
        checked++;
        if (!mayImport(layer, target)) broken.push(`${from} imports ${target}`);
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(300);
  });

  it("would see a broken rule: core importing http, sketch importing the engine", () => {
    expect(mayImport("core", "http/createHandler.ts")).toBe(false);
    expect(mayImport("sketch", "core/createEngine.ts")).toBe(false);
    expect(mayImport("adapters", "core/errors.ts")).toBe(true);
    expect(mayImport("adapters", "core/errorsExtra.ts")).toBe(false);
  });
});
