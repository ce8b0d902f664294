/** The Swagger UI files the explorer page loads, as named in the `swagger-ui-dist` package. */
export const SWAGGER_UI_FILES = Object.freeze([
  "swagger-ui-bundle.js",
  "swagger-ui.css",
  "index.css",
  "favicon-16x16.png",
  "favicon-32x32.png",
] as const);

/** Name of one Swagger UI file the explorer page loads (`swagger-ui-bundle.js`, `swagger-ui.css`, ...). */
export type SwaggerUiFile = (typeof SWAGGER_UI_FILES)[number];

/**
 * One file's content: its bytes, its text (sent as UTF-8), or a function returning either, called
 * once, on the file's first request (so a host can read files lazily).
 */
export type ExplorerFile = Uint8Array | string | (() => Uint8Array | string);

/**
 * The files behind the explorer page (`<basePath>/spec`), by name: the handler option
 * `explorerAssets`. `gasdigest/explorer-assets` exports them built into a module (any runtime);
 * the node hosts read the package's copy of them when the option is left out.
 */
export type ExplorerAssets = Readonly<Record<SwaggerUiFile, ExplorerFile>>;

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

/** Content type of each file served under `<basePath>/spec/assets/`: a whitelist. */
export const EXPLORER_CONTENT_TYPES: Readonly<Record<SwaggerUiFile | "explorer.js", string>> =
  Object.freeze({
    "swagger-ui-bundle.js": JS,
    "swagger-ui.css": CSS,
    "index.css": CSS,
    "favicon-16x16.png": "image/png",
    "favicon-32x32.png": "image/png",
    "explorer.js": JS,
  });

/**
 * The explorer's own script (source: `src/http/assets/explorerInit.js`, made a string module at
 * build time): loads `spec.json` (relative to the page, so it works under any mount prefix),
 * points the server at the page's own base URL, and starts Swagger UI with the validator badge
 * off and no URL taken from the page's query. No inline script, no other origin.
 */
export { EXPLORER_SCRIPT } from "./explorerScript.generated.js";

/** What the explorer page answers (404) when the handler was given no `explorerAssets`. */
export const EXPLORER_OFF_MESSAGE =
  "the API explorer is off on this server (no explorerAssets were given); the API document is at spec.json";

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
