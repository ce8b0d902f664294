// Installed, gasdigest's node hosts take the explorer's files from dist/explorerAssets.cjs, which
// holds the text files as strings: each handler used to encode them again on its first request
// for them, 1.9 MB more per server in a process (38 MB for 20), where from the sources (files
// read from swagger-ui-dist as bytes) every handler served the same bytes.
import { describe, expect, it, vi } from "vitest";

vi.mock("node:fs", async (original) => {
  const fs = await original<typeof import("node:fs")>();
  return { ...fs, existsSync: (path: string) => String(path).endsWith("explorerAssets.cjs") };
});
vi.mock("node:module", async (original) => {
  const mod = await original<typeof import("node:module")>();
  // What dist/explorerAssets.cjs exports: text as strings, images as bytes.
  const built = {
    explorerAssets: {
      "swagger-ui-bundle.js": "window.SwaggerUIBundle = function () {};",
      "swagger-ui.css": ".swagger-ui { color: black }",
      "index.css": "html { box-sizing: border-box }",
      "favicon-16x16.png": new Uint8Array([137, 80, 78, 71]),
      "favicon-32x32.png": new Uint8Array([137, 80, 78, 71]),
    },
  };
  return { ...mod, createRequire: () => Object.assign(() => built, { resolve: () => "" }) };
});

describe("swaggerUiFiles: the files of the built package", () => {
  it("encodes each text file once per process: every handler serves the same bytes", async () => {
    const { createEngine } = await import("../../src/core/createEngine.js");
    const { createNodeHandler } = await import("../../src/http/createNodeHandler.js");
    const { aip34 } = await import("../../src/strategies/aip34.js");
    const serve = (url: string) =>
      createNodeHandler(createEngine({ strategy: aip34() }))({ method: "GET", url, headers: {} });
    for (const name of [
      "swagger-ui-bundle.js",
      "swagger-ui.css",
      "index.css",
      "favicon-16x16.png",
    ]) {
      const a = serve(`/v1/spec/assets/${name}`);
      const b = serve(`/v1/spec/assets/${name}`);
      expect(a.status, name).toBe(200);
      expect(b.body, name).toBe(a.body);
    }
    expect(new TextDecoder().decode(serve("/v1/spec/assets/index.css").body)).toBe(
      "html { box-sizing: border-box }",
    );
  });
});
