import type { SwaggerUiFile } from "./explorer.js";

/**
 * Licence files copied next to the Swagger UI files at build time: Swagger UI's own, and the
 * notices of the libraries its bundle holds (the bundle's first line points at that file).
 */
export const SWAGGER_UI_LICENSE_FILES = Object.freeze([
  "LICENSE",
  "NOTICE",
  "swagger-ui-bundle.js.LICENSE.txt",
] as const);

/** A trailing source-map comment of a CSS file. */
const SOURCE_MAP_COMMENT = /\n?\/\*# sourceMappingURL=[^*]*\*\/\s*$/;

/**
 * The bytes the explorer serves for `name`, given swagger-ui-dist's: the same, but a CSS file
 * loses its trailing `sourceMappingURL` comment (the maps are not shipped, and a browser's
 * developer tools would request one and log the 404). Idempotent. Used by the build (which
 * copies the files) and by the node hosts when they read swagger-ui-dist itself.
 *
 * @example
 * shippedSwaggerUiBytes("swagger-ui.css", bytes); // without "/*# sourceMappingURL=... *\/"
 */
export function shippedSwaggerUiBytes(name: SwaggerUiFile, bytes: Uint8Array): Uint8Array {
  if (!name.endsWith(".css")) return bytes;
  const text = new TextDecoder().decode(bytes);
  const stripped = text.replace(SOURCE_MAP_COMMENT, "\n");
  return stripped === text ? bytes : new TextEncoder().encode(stripped);
}
