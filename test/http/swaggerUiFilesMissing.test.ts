// A server bundled into one file has no Swagger UI files beside its code: each request for one
// used to look for them on disk again (an existence check and a package resolution), 10,800
// times a second under 10 clients. The failure is kept, as the files would be.
import { describe, expect, it, vi } from "vitest";
import { createEngine } from "../../src/core/createEngine.js";
import { createHandler } from "../../src/http/createHandler.js";
import { aip34 } from "../../src/strategies/aip34.js";

const looked = vi.hoisted(() => ({ exists: 0, resolve: 0 }));

vi.mock("node:fs", async (original) => {
  const fs = await original<typeof import("node:fs")>();
  return {
    ...fs,
    existsSync: () => {
      looked.exists++;
      return false;
    },
  };
});
vi.mock("node:module", async (original) => {
  const mod = await original<typeof import("node:module")>();
  return {
    ...mod,
    createRequire: () =>
      Object.assign(
        () => {
          throw new Error("no require");
        },
        {
          resolve: () => {
            looked.resolve++;
            throw new Error("Cannot find module 'swagger-ui-dist/package.json'");
          },
        },
      ),
  };
});

describe("swaggerUiFiles: files that are not there", () => {
  it("says what to do, and looks for them once per process, not once per request", async () => {
    const { swaggerUiFiles } = await import("../../src/http/swaggerUiFiles.js");
    const files = swaggerUiFiles() as Record<string, () => Uint8Array>;
    for (let i = 0; i < 5; i++) {
      expect(() => files["swagger-ui.css"]!()).toThrow(
        /not beside gasdigest's code \(bundled into one file\?\): pass explorerAssets from gasdigest\/explorer-assets/,
      );
      expect(() => files["swagger-ui-bundle.js"]!()).toThrow(/bundled into one file/);
    }
    expect(looked).toEqual({ exists: 1, resolve: 1 });
  });

  it("offers advice the handler takes: explorerAssets from the module, or false, which turns the explorer off", async () => {
    const { swaggerUiFiles } = await import("../../src/http/swaggerUiFiles.js");
    const files = swaggerUiFiles() as Record<string, () => Uint8Array>;
    let message = "";
    try {
      files["index.css"]!();
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/pass explorerAssets from gasdigest\/explorer-assets/);
    expect(message).toMatch(/explorerAssets: false for no explorer/);
    // Refused before (a node host could not turn its default explorer off): now the page is the
    // explorer-off 404, its files are not served, and the document still is.
    const { createNodeHandler } = await import("../../src/http/createNodeHandler.js");
    const handler = createNodeHandler(createEngine({ strategy: aip34() }), {
      explorerAssets: false,
      maxStalenessMs: false,
    });
    const get = (url: string) => handler({ method: "GET", url, headers: {} });
    expect(get("/v1/spec").status).toBe(404);
    expect(new TextDecoder().decode(get("/v1/spec").body)).toContain("the API explorer is off");
    expect(get("/v1/spec/assets/index.css").status).toBe(404);
    expect(get("/v1/spec.json").status).toBe(200);
    expect(() =>
      createHandler(createEngine({ strategy: aip34() }), { explorerAssets: true as never }),
    ).toThrow(/or false for no explorer \(got true\)/);
  });
});
