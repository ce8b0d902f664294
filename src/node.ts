// gasdigest/node: what needs node itself. The node:http server (createServer, listen), the
// NDJSON file source and reader (node:fs), and the live-node source aptosRest. The core
// (engine, strategies, handler, push source, simulator) is the root entry, "gasdigest".

export * from "./adapters/node/index.js";
// The type the sources' Observables carry, named here (as the root names rxjs's) so a consumer
// importing this entry only can emit declarations for `ndjsonFile()` and `aptosRest()` (TS2742
// otherwise).
export type { BlockSample } from "./core/blockSample.js";
export {
  type AptosRestEvent,
  type AptosRestOptions,
  aptosRest,
  aptosRestEventFields,
  describeAptosRestEvent,
  InvalidResponseError,
  type RequestFailureKind,
  SourceRequestError,
} from "./sources/aptosRest.js";
export {
  InvalidLineError,
  type NdjsonFileOptions,
  ndjsonFile,
  type WaitCutEvent,
} from "./sources/ndjsonFile.js";
export { type NdjsonLine, type ReadNdjsonOptions, readNdjson } from "./sources/readNdjson.js";
