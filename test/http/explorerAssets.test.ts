// The explorer's files as a handler option: off without them (a 404 naming the option), served
// from what is handed in (bytes, text, lazy functions), the generated module equal to
// swagger-ui-dist, and the node hosts' zero-configuration default.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { explorerAssets, swaggerUiVersion } from "../../dist/explorerAssets.js";
import { InvalidConfigError } from "../../src/core/errors.js";
import { createNodeHandler } from "../../src/http/createNodeHandler.js";
import {
  EXPLORER_OFF_MESSAGE,
  type ExplorerAssets,
  SWAGGER_UI_FILES,
} from "../../src/http/explorer.js";
import {
  SWAGGER_UI_LICENSE_FILES,
  shippedSwaggerUiBytes,
} from "../../src/http/shippedSwaggerUi.js";
import { errorBody, recordingLogger, setup, text } from "./helpers.js";

const require = createRequire(import.meta.url);
const distFolder = dirname(require.resolve("swagger-ui-dist/package.json"));
const onDisk = (name: string) => readFileSync(join(distFolder, name));

/** Small stand-ins for the five files: text, bytes and lazy functions mixed. */
function handMade(calls: string[] = []): ExplorerAssets {
  return {
    "swagger-ui-bundle.js": () => {
      calls.push("bundle");
      return "window.SwaggerUIBundle = function () {}; // é";
    },
    "swagger-ui.css": "body { color: black }",
    "index.css": new TextEncoder().encode("html { margin: 0 }"),
    "favicon-16x16.png": () => new Uint8Array([137, 80, 78, 71]),
    "favicon-32x32.png": new Uint8Array([137, 80, 78, 71, 1]),
  };
}

describe("no explorerAssets (createHandler, gasdigest/fetch)", () => {
  it("the page answers 404 naming the option; its files are not routes; the document stays", () => {
    const s = setup({ explorerAssets: undefined });
    s.blocks(1, 3);
    const page = s.get("/v1/spec");
    expect(page.status).toBe(404);
    expect(text(page)).toBe(errorBody("web_framework_error", EXPLORER_OFF_MESSAGE));
    expect(EXPLORER_OFF_MESSAGE).toContain("explorerAssets");
    expect(page.headers["X-Aptos-Block-Height"]).toBe("3");
    expect(s.get("/v1/spec", {}, "HEAD").body).toBeUndefined();
    for (const name of [...SWAGGER_UI_FILES, "explorer.js"]) {
      const res = s.get(`/v1/spec/assets/${name}`);
      expect(res.status, name).toBe(404);
      expect(text(res)).toBe(errorBody("web_framework_error", "not found"));
    }
    expect(s.get("/v1/spec.json").status).toBe(200);
    expect(s.get("/spec.yaml").status).toBe(200);
    expect(s.handler.options.explorerAssets).toBeUndefined();
  });

  it("the page answers its 404 to every method: no 405 or preflight offers a GET of it", () => {
    const s = setup({ explorerAssets: undefined });
    s.blocks(1, 3);
    for (const method of ["POST", "PUT", "DELETE", "OPTIONS"]) {
      const res = s.get("/v1/spec", {}, method);
      expect(res.status, method).toBe(404);
      expect(res.headers.Allow, method).toBeUndefined();
      expect(text(res)).toBe(errorBody("web_framework_error", EXPLORER_OFF_MESSAGE));
      expect(res.headers["X-Aptos-Block-Height"]).toBe("3");
    }
    // The document's own routes still answer another method 405.
    expect(s.get("/v1/spec.json", {}, "POST").status).toBe(405);
  });
});

describe("explorerAssets handed in", () => {
  it("serves text as UTF-8 and bytes as they are, with the same headers as the files on disk", () => {
    const s = setup({ explorerAssets: handMade() });
    expect(s.get("/v1/spec").status).toBe(200);
    const bundle = s.get("/v1/spec/assets/swagger-ui-bundle.js");
    expect(bundle.status).toBe(200);
    expect(text(bundle)).toBe("window.SwaggerUIBundle = function () {}; // é");
    expect(bundle.headers["Content-Length"]).toBe(String(bundle.body!.length));
    expect(bundle.headers["Content-Type"]).toBe("text/javascript; charset=utf-8");
    expect(bundle.headers["Cache-Control"]).toBe("no-cache");
    expect(text(s.get("/v1/spec/assets/index.css"))).toBe("html { margin: 0 }");
    expect([...s.get("/v1/spec/assets/favicon-32x32.png").body!]).toEqual([137, 80, 78, 71, 1]);
    const tag = bundle.headers.ETag!;
    const again = s.get("/v1/spec/assets/swagger-ui-bundle.js", { "if-none-match": tag });
    expect(again.status).toBe(304);
    expect(s.get("/v1/spec/assets/explorer.js").status).toBe(200);
  });

  it("calls a function value once, on its file's first request, not before", () => {
    const calls: string[] = [];
    const s = setup({ explorerAssets: handMade(calls) });
    s.get("/v1/spec");
    expect(calls).toEqual([]);
    for (let i = 0; i < 3; i++) s.get("/v1/spec/assets/swagger-ui-bundle.js");
    s.get("/v1/spec/assets/swagger-ui-bundle.js", {}, "HEAD");
    expect(calls).toEqual(["bundle"]);
  });

  it("a function that throws, or returns neither bytes nor text, is a logged 500 for that file only", () => {
    const { logger, lines } = recordingLogger();
    const assets = {
      ...handMade(),
      "swagger-ui.css": () => {
        throw new Error("disk on fire");
      },
      "index.css": () => 42 as unknown as string,
    };
    const s = setup({ explorerAssets: assets, logger });
    const css = s.get("/v1/spec/assets/swagger-ui.css");
    expect(css.status).toBe(500);
    expect(text(css)).toBe(errorBody("internal_error", "internal error"));
    expect(s.get("/v1/spec/assets/index.css").status).toBe(500);
    const errors = lines.filter((l) => l.level === "error");
    expect(errors.map((l) => (l.obj.err as Error).message)).toEqual([
      "disk on fire",
      "explorerAssets: index.css returned neither bytes nor text",
    ]);
    expect(s.get("/v1/spec/assets/swagger-ui-bundle.js").status).toBe(200);
  });

  it("rejects a malformed value with one issue listing every problem", () => {
    const bad = [
      [
        "not an object",
        "yes",
        'must be an object of the explorer\'s files by name, such as explorerAssets from "gasdigest/explorer-assets", or false for no explorer (got "yes")',
      ],
      [
        "missing, unknown and wrong-typed files",
        { "swagger-ui-bundle.js": 5, "swagger-ui.css": "", "index.html": "<html>" },
        "missing index.css, favicon-16x16.png, favicon-32x32.png; unknown index.html; swagger-ui-bundle.js must be bytes (Uint8Array), text or a function returning either (got 5)",
      ],
    ] as const;
    for (const [what, value, message] of bad) {
      let error: unknown;
      try {
        setup({ explorerAssets: value as never, maxUrlLength: 0 });
      } catch (e) {
        error = e;
      }
      expect(error, what).toBeInstanceOf(InvalidConfigError);
      expect((error as InvalidConfigError).issues, what).toEqual([
        { path: "maxUrlLength", message: "must be a whole number >= 1 (got 0)", code: "custom" },
        { path: "explorerAssets", message, code: "custom" },
      ]);
    }
  });
});

describe("gasdigest/explorer-assets (generated at build time)", () => {
  it("holds every file of the installed swagger-ui-dist, byte for byte but for source-map comments, and its version", () => {
    expect(Object.keys(explorerAssets).sort()).toEqual([...SWAGGER_UI_FILES].sort());
    const version = JSON.parse(String(onDisk("package.json"))).version;
    expect(swaggerUiVersion).toBe(version);
    const s = setup({ explorerAssets });
    for (const name of SWAGGER_UI_FILES) {
      const res = s.get(`/v1/spec/assets/${name}`);
      expect(res.status, name).toBe(200);
      const shipped = shippedSwaggerUiBytes(name, new Uint8Array(onDisk(name)));
      expect(Buffer.from(res.body!).equals(shipped), name).toBe(true);
      // The maps are not shipped: a browser's developer tools would request them and log 404s.
      expect(Buffer.from(res.body!).toString("latin1"), name).not.toMatch(/sourceMappingURL/);
    }
    expect(onDisk("swagger-ui.css").toString()).toMatch(/sourceMappingURL/); // what is stripped
  });

  it("ships Swagger UI's licence and its bundle's third-party notices beside the files", () => {
    const folder = new URL("../../dist/swagger-ui/", import.meta.url).pathname;
    for (const name of SWAGGER_UI_LICENSE_FILES) {
      expect(existsSync(join(folder, name)), name).toBe(true);
      expect(readFileSync(join(folder, name)).equals(onDisk(name)), name).toBe(true);
    }
    // The bundle's first line names the notices file shipped beside it.
    const banner = String(explorerAssets["swagger-ui-bundle.js"]).split("\n", 1)[0];
    expect(banner).toContain("swagger-ui-bundle.js.LICENSE.txt");
  });

  it("gives the same ETags as the files read from disk (a cache survives switching)", () => {
    const fromModule = setup({ explorerAssets });
    const fromDisk = setup();
    for (const name of SWAGGER_UI_FILES) {
      const url = `/v1/spec/assets/${name}`;
      expect(fromModule.get(url).headers.ETag, name).toBe(fromDisk.get(url).headers.ETag);
    }
  });
});

describe("node hosts: createNodeHandler", () => {
  const engine = { snapshot: () => undefined, sourcesCompleted: false, close() {} } as never;

  it("reads the installed swagger-ui-dist when explorerAssets is left out", () => {
    for (const options of [undefined, {}, { basePath: "/x", explorerAssets: undefined }]) {
      const handler = createNodeHandler(engine, options);
      const base = options?.basePath ?? "/v1";
      const res = handler({ method: "GET", url: `${base}/spec/assets/index.css`, headers: {} });
      expect(Buffer.from(res.body!).equals(onDisk("index.css"))).toBe(true);
    }
  });

  it("uses the files it is given, and lets createHandler name a bad options value", () => {
    const handler = createNodeHandler(engine, { explorerAssets: handMade() });
    const res = handler({ method: "GET", url: "/v1/spec/assets/index.css", headers: {} });
    expect(text(res)).toBe("html { margin: 0 }");
    expect(() => createNodeHandler(engine, "nope" as never)).toThrow(InvalidConfigError);
  });
});
