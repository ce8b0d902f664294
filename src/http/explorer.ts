import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { etag } from "./etag.js";

/** One static file of the explorer, read once per process. */
export interface ExplorerAsset {
  readonly bytes: Uint8Array;
  readonly contentType: string;
  readonly etag: string;
}

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

/**
 * The explorer's own script: loads `spec.json` (relative to the page, so it works under any
 * mount prefix), points the server at the page's own base URL, and starts Swagger UI with the
 * validator badge off and no URL taken from the page's query. No inline script, no other origin.
 */
const EXPLORER_SCRIPT = `"use strict";
(function () {
  var root = document.getElementById("swagger-ui");
  var base = new URL(".", window.location.href);
  function fail(message) {
    var p = document.createElement("p");
    p.className = "gasdigest-error";
    p.textContent = "Could not load the API document: " + message;
    root.appendChild(p);
  }
  fetch(new URL("spec.json", base).href, { headers: { Accept: "application/json" }, credentials: "same-origin" })
    .then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.json();
    })
    .then(function (spec) {
      // The document says servers: [{url: basePath}]; resolve it against this page so that
      // "Try it out" also works when the routes are mounted under a prefix.
      spec.servers = [{ url: base.href.replace(/\\/$/, ""), description: "this server" }];
      window.ui = SwaggerUIBundle({
        spec: spec,
        dom_id: "#swagger-ui",
        validatorUrl: null,
        queryConfigEnabled: false,
        deepLinking: true,
        displayOperationId: true,
        docExpansion: "list",
        defaultModelsExpandDepth: 1,
        presets: [SwaggerUIBundle.presets.apis],
        layout: "BaseLayout",
      });
    })
    .catch(function (error) {
      fail(error && error.message ? error.message : String(error));
    });
})();
`;

/** Files served under `<basePath>/spec/assets/`: a whitelist, never a path from the request. */
const ASSETS: Record<string, { file?: string; text?: string; contentType: string }> = {
  "swagger-ui.css": { file: "swagger-ui.css", contentType: CSS },
  "index.css": { file: "index.css", contentType: CSS },
  "swagger-ui-bundle.js": { file: "swagger-ui-bundle.js", contentType: JS },
  "favicon-16x16.png": { file: "favicon-16x16.png", contentType: "image/png" },
  "favicon-32x32.png": { file: "favicon-32x32.png", contentType: "image/png" },
  "explorer.js": { text: EXPLORER_SCRIPT, contentType: JS },
};

/** Names of the files under `spec/assets/`. */
export const EXPLORER_ASSET_NAMES: readonly string[] = Object.freeze(Object.keys(ASSETS));

const cache = new Map<string, ExplorerAsset>();
let distFolder: string | undefined;

/**
 * One explorer asset by name (`swagger-ui-bundle.js`, `explorer.js`, ...), read from the
 * installed `swagger-ui-dist` package on first use and cached; `undefined` for any other name.
 *
 * @throws when the package files cannot be read (the handler answers 500 and logs it).
 * @example
 * readExplorerAsset("swagger-ui.css")?.contentType; // "text/css; charset=utf-8"
 */
export function readExplorerAsset(name: string): ExplorerAsset | undefined {
  const cached = cache.get(name);
  if (cached) return cached;
  const spec = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!spec) return undefined;
  let bytes: Uint8Array;
  if (spec.text !== undefined) bytes = new TextEncoder().encode(spec.text);
  else {
    distFolder ??= dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
    bytes = new Uint8Array(readFileSync(join(distFolder, spec.file!)));
  }
  const asset = Object.freeze({ bytes, contentType: spec.contentType, etag: etag(bytes) });
  cache.set(name, asset);
  return asset;
}

/**
 * The explorer page. Every URL in it is relative to the page (`<basePath>/spec`), so it works
 * under any mount prefix, and same-origin, so it works offline under a strict CSP.
 *
 * @example
 * explorerPage(); // "<!DOCTYPE html>..."
 */
export function explorerPage(): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gasdigest API explorer</title>
<link rel="stylesheet" href="spec/assets/index.css">
<link rel="stylesheet" href="spec/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="spec/assets/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="spec/assets/favicon-16x16.png" sizes="16x16">
</head>
<body>
<noscript>The explorer needs JavaScript. The API document is at <a href="spec.json">spec.json</a> and <a href="spec.yaml">spec.yaml</a>.</noscript>
<div id="swagger-ui"></div>
<script src="spec/assets/swagger-ui-bundle.js"></script>
<script src="spec/assets/explorer.js"></script>
</body>
</html>
`;
}

/** Content-Security-Policy of the explorer page: our own origin only (plus data: images). */
export const EXPLORER_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";
