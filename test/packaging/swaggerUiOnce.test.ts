// The package holds Swagger UI's files once: `gasdigest/explorer-assets` (any runtime) and the
// node hosts (which read them on the explorer's first request) share dist/explorerAssets.cjs. A
// second copy (dist/swagger-ui/*.js beside the module) made the tarball 0.5 MB and the install
// 1.9 MB larger. Reads the built package (npm test builds first).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { SWAGGER_UI_FILES } from "../../src/http/explorer.js";
import { repoRoot } from "../helpers/isolatedProject.js";
import { packedFiles } from "../helpers/packedFiles.js";

const swaggerUiDist = dirname(
  createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"),
);

/** A stretch of a file's text from its middle, as a copy of it holds it: raw, or in a string literal. */
function samples(name: string): [string, string] {
  const text = readFileSync(join(swaggerUiDist, name), "latin1");
  const raw = text.slice(text.length >> 1, (text.length >> 1) + 200);
  return [raw, JSON.stringify(raw).slice(1, -1)];
}

describe("Swagger UI in the npm package", () => {
  const files = packedFiles();

  it("is in the package once: each large file's text is in exactly one packed file", () => {
    const texts = [...files.keys()]
      .filter((f) => f.startsWith("dist/"))
      .map((f) => [f, readFileSync(join(repoRoot, f), "latin1")] as const);
    for (const name of ["swagger-ui-bundle.js", "swagger-ui.css"] as const) {
      const [raw, literal] = samples(name);
      const holders = texts
        .filter(([, text]) => text.includes(raw) || text.includes(literal))
        .map(([f]) => f);
      expect(holders, name).toEqual(["dist/explorerAssets.cjs"]);
    }
    expect(SWAGGER_UI_FILES.filter((name) => files.has(`dist/swagger-ui/${name}`))).toEqual([]);
  });

  it("ships its licence and notices, and the module behind gasdigest/explorer-assets", () => {
    for (const name of ["LICENSE", "NOTICE", "swagger-ui-bundle.js.LICENSE.txt"])
      expect(files.has(`dist/swagger-ui/${name}`), name).toBe(true);
    expect(files.has("dist/explorerAssets.js")).toBe(true);
    expect(files.get("dist/explorerAssets.js")).toBeLessThan(2_000);
  });
});
