// gasdigest: the runtime-neutral core. The engine, the strategies, the sketches, block samples
// and config, the errors, the push and simulated sources, and the framework-agnostic HTTP
// handler. Nothing here (nor anything it imports) uses a `node:` module, so it loads as is in
// node, Bun, Deno and Workers; test/packaging/importGraph.test.ts keeps it that way.
//
// Elsewhere: gasdigest/node (node:http server, NDJSON file and live-node sources),
// gasdigest/backtest, gasdigest/explorer-assets, and the adapters gasdigest/fetch, /express,
// /fastify, /koa. See docs/architecture.md#entry-points.

// The rxjs types the public signatures use (`simulator()`, `engine.snapshots$`, the sources
// and the Redis sink), named here so a consumer whose package manager does not hoist rxjs
// (pnpm) can emit declarations for values of these types (TS2742 otherwise).
export type { Observable, OperatorFunction, Subscription } from "rxjs";
export {
  type BlockSample,
  type BlockSampleInput,
  type BlockSampleResult,
  parseBlockSample,
  safeParseBlockSample,
  serializeBlockSample,
  type U64Input,
} from "./core/blockSample.js";
export { nextBucket } from "./core/buckets.js";
export type { JsonShapeLimits } from "./core/checkJsonShape.js";
export {
  DEFAULT_GAS_CONFIG,
  type GasConfig,
  type GasConfigInput,
  parseGasConfig,
} from "./core/config.js";
export {
  type CreateEngineOptions,
  createEngine,
  type Engine,
  type EngineCounters,
  type EngineEvent,
  type IngestOutcome,
} from "./core/createEngine.js";
export type { ObservableLike } from "./core/createSourceConnections.js";
export {
  BaseError,
  type BaseErrorOptions,
  BlockOrderError,
  InvalidArgumentError,
  InvalidBlockSampleError,
  InvalidConfigError,
  InvalidJsonError,
  StrategyError,
  ValidationError,
  type ValidationIssue,
} from "./core/errors.js";
export { servedEstimate } from "./core/estimate.js";
export { blockFullness, type FullnessRule, minInclusionPrice } from "./core/fullness.js";
export { type ParseJsonOptions, parseJsonLossless } from "./core/parseJsonLossless.js";
export { TIERS, type Tier } from "./core/tiers.js";
export type {
  GasEstimate,
  LedgerState,
  PromiseRecord,
  Snapshot,
  Strategy,
  StrategyFactory,
  TierPromise,
} from "./core/types.js";
export { createHandler } from "./http/createHandler.js";
export {
  type CreateOpenApiDocumentOptions,
  createOpenApiDocument,
  type OpenApiDocument,
  type OpenApiInfo,
  type OpenApiOperation,
  type OpenApiPathItem,
  type OpenApiServer,
} from "./http/createOpenApiDocument.js";
export type {
  ExplorerAssets,
  ExplorerFile,
  SwaggerUiFile,
} from "./http/explorer.js";
export type { HandlerOptions } from "./http/handlerOptions.js";
export type {
  ErrorCode,
  Handler,
  HandlerEngine,
  HandlerLogger,
  HandlerMetrics,
  HandlerRequest,
  HandlerResponse,
  MetricsScrape,
  ResolvedHandlerOptions,
} from "./http/types.js";
export type { Centroids } from "./sketch/centroids.js";
export { SketchError } from "./sketch/sketchError.js";
export {
  createSlidingDigest,
  type SlidingDigest,
  type SlidingDigestOptions,
} from "./sketch/slidingDigest.js";
export {
  createTDigest,
  type TDigest,
  type TDigestJSON,
  type TDigestOptions,
} from "./sketch/tdigest.js";
export { tdigestFromJSON } from "./sketch/tdigestFromJSON.js";
export { type PushSource, pushSource } from "./sources/pushSource.js";
export {
  type Regime,
  type Scenario,
  type SimulatorOptions,
  simulateBlocks,
  simulator,
} from "./sources/simulator.js";
export { aip34 } from "./strategies/aip34.js";
export type { CalibratedOptions } from "./strategies/calibrated/options.js";
export { calibrated } from "./strategies/calibrated.js";
export { type GethOptions, geth } from "./strategies/geth.js";
export { type LastBlockOptions, lastBlock } from "./strategies/lastBlock.js";
export {
  registerStrategy,
  resolveStrategy,
  type StrategyMaker,
  type StrategySettings,
} from "./strategies/registry.js";
export { type TDigestStrategy, tdigest } from "./strategies/tdigest.js";
export type { TDigestStrategyOptions } from "./strategies/tdigestOptions.js";
