/**
 * The package version (`info.version` of the OpenAPI document). A constant rather than a read of
 * package.json, so the core loads on runtimes without a file system; a test keeps it equal to
 * package.json's `version`.
 */
export const VERSION = "0.1.0";
