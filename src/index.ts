// gasdigest: the library's public entry point. Framework adapters live under subpath exports.
export * from "./backtest/index.js";
export {
  type BlockSample,
  type BlockSampleInput,
  type BlockSampleResult,
  blockSampleSchema,
  isBlockSample,
  parseBlockSample,
  safeParseBlockSample,
  serializeBlockSample,
  toBlockSampleJson,
  type U64Input,
} from "./core/blockSample.js";
export { DEFAULT_BUCKETS, nextBucket } from "./core/buckets.js";
export { clearingPrice } from "./core/clearingPrice.js";
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
export {
  BaseError,
  type BaseErrorOptions,
  BlockOrderError,
  formatIssues,
  InvalidArgumentError,
  InvalidBlockSampleError,
  InvalidConfigError,
  MAX_ISSUES,
  NotImplementedError,
  StrategyError,
  ValidationError,
  type ValidationIssue,
} from "./core/errors.js";
export {
  blockFullness,
  defaultEstimate,
  effectiveMinPrice,
  type FullnessRule,
  minInclusionPrice,
  servedEstimate,
} from "./core/fullness.js";
export { parseJsonLossless } from "./core/parseJsonLossless.js";
export type {
  GasEstimate,
  LedgerState,
  Snapshot,
  Strategy,
  StrategyFactory,
} from "./core/types.js";
export { parseU64, U64_MAX } from "./core/u64.js";
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
export {
  type AptosRestEvent,
  type AptosRestOptions,
  aptosRest,
  aptosRestEventFields,
  describeAptosRestEvent,
  InvalidResponseError,
  SourceRequestError,
} from "./sources/aptosRest.js";
export { InvalidLineError, type NdjsonFileOptions, ndjsonFile } from "./sources/ndjsonFile.js";
export { type PushSource, pushSource } from "./sources/pushSource.js";
export { type NdjsonLine, type ReadNdjsonOptions, readNdjson } from "./sources/readNdjson.js";
export {
  parseSimulatorOptions,
  type Regime,
  type ResolvedSimulatorOptions,
  SCENARIOS,
  type Scenario,
  type SimulatorOptions,
  simulateBlocks,
  simulator,
} from "./sources/simulator.js";
export { aip34 } from "./strategies/aip34.js";
export {
  type GethOptions,
  geth,
  parseGethOptions,
  type ResolvedGethOptions,
} from "./strategies/geth.js";
export { lastBlock } from "./strategies/lastBlock.js";
export {
  registerStrategy,
  resolveStrategy,
  type StrategySettings,
  strategyNames,
} from "./strategies/registry.js";
export { type TDigestStrategy, tdigest } from "./strategies/tdigest.js";
export {
  parseTDigestOptions,
  type TDigestStrategyConfig,
  type TDigestStrategyOptions,
  tdigestOptionsShape,
} from "./strategies/tdigestOptions.js";
