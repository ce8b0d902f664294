// Internal: what the adapters under src/adapters import (the handler and the mount plumbing).
// Not a package entry point: the handler's public API is exported from the root (src/index.ts).
// createNodeHandler reads files with node:fs, so the runtime-neutral fetch adapter imports
// createHandler and the plumbing from their own modules, never from here.
export { describeValue } from "../core/describeValue.js";
export {
  BaseError,
  InvalidArgumentError,
  InvalidConfigError,
  type ValidationIssue,
} from "../core/errors.js";
export {
  hasMethods,
  openOptions,
  suggestOuterFields,
  unknownFieldIssues,
  unreadableOptions,
} from "../core/readOptions.js";
export { CHAIN_STATE_HEADERS, chainStateHeaders } from "./chainStateHeaders.js";
export { createHandler } from "./createHandler.js";
export { createNodeHandler } from "./createNodeHandler.js";
export {
  type CreateOpenApiDocumentOptions,
  createOpenApiDocument,
} from "./createOpenApiDocument.js";
export { encodeErrorObject } from "./encodeErrorObject.js";
export { type BcsLayout, encodeEstimateBcs, encodeEstimateJson } from "./encodeEstimate.js";
export {
  type HandlerOptions,
  parseHandlerOptions,
  safeParseHandlerOptions,
  silentLogger,
} from "./handlerOptions.js";
export { hostValueProblem } from "./hostValueProblem.js";
export { parseCloseEngine, splitMountOptions, stripPrefix, withinMount } from "./mount.js";
export { type EstimateFormat, negotiateFormat } from "./negotiateFormat.js";
export {
  ERROR_CODES,
  type ErrorCode,
  type Handler,
  type HandlerEngine,
  type HandlerLogger,
  type HandlerMetrics,
  type HandlerRequest,
  type HandlerResponse,
  type ResolvedHandlerOptions,
} from "./types.js";
export { withEarlierLists } from "./withEarlierVary.js";
