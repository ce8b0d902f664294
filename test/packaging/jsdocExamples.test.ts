// The `@example` blocks of the JSDoc are what an editor shows a user: every package import in
// them must name a value that entry point really exports (reads the built package; npm test builds
// first).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/isolatedProject.js";

const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  exports: Record<string, string | { default: string }>;
};

/** `import { a, type B, c as d } from "gasdigest/x"` inside a JSDoc comment line. */
const EXAMPLE_IMPORT = /^\s*\*\s*import\s+\{([^}]*)\}\s+from\s+"(gasdigest(?:\/[\w-]+)?)"/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".generated.ts") ? [path] : [];
  });
}

async function runtimeExports(specifier: string): Promise<string[] | undefined> {
  const target = pkg.exports[`.${specifier.slice("gasdigest".length)}`];
  if (target === undefined || typeof target === "string") return undefined;
  return Object.keys(await import(pathToFileURL(join(repoRoot, target.default)).href));
}

describe("JSDoc examples", () => {
  it("import only what the named entry point exports", async () => {
    const problems: string[] = [];
    let checked = 0;
    for (const file of sourceFiles(join(repoRoot, "src"))) {
      const text = readFileSync(file, "utf8");
      for (const [, list, specifier] of text.matchAll(EXAMPLE_IMPORT)) {
        const where = `${relative(repoRoot, file)}: ${specifier}`;
        const names = await runtimeExports(specifier as string);
        if (names === undefined) {
          problems.push(`${where} is not an entry point`);
          continue;
        }
        for (const item of (list as string).split(",")) {
          const name = item.trim().split(/\s+as\s+/)[0] as string;
          if (name === "" || name.startsWith("type ")) continue; // types are checked by tsc
          checked++;
          if (!names.includes(name)) problems.push(`${where} does not export ${name}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(20);
  });
});
