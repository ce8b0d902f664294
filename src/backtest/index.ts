// gasdigest/backtest: replay a history through strategies and score them (the harness, the
// HTML report, the history reader). Node only: readHistory and renderReport read files.
export { clearingPrice } from "../core/clearingPrice.js";
// What readHistory yields (gasdigest/node's readNdjson line), named here so a consumer importing
// this entry only can emit declarations for it (TS2742 otherwise).
export type { NdjsonLine } from "../sources/readNdjson.js";
export {
  type Backtest,
  type BacktestStats,
  type BacktestStrategy,
  type CreateBacktestOptions,
  createBacktest,
} from "./createBacktest.js";
export {
  createSeriesRecorder,
  type RecordedSeries,
  type SeriesRecorder,
  type SeriesRecorderOptions,
  type StrategySeries,
} from "./createSeriesRecorder.js";
export { formatTable } from "./formatTable.js";
export type { Horizon } from "./frontierPlan.js";
export type {
  FrontierCurve,
  FrontierPoint,
  FrontierReading,
  FrontierResult,
} from "./frontierResult.js";
export { LookaheadError } from "./lookaheadError.js";
export { type ReadHistoryOptions, readHistory } from "./readHistory.js";
export { type RenderReportOptions, renderReport } from "./renderReport.js";
export { type History, runBacktest } from "./runBacktest.js";
export type {
  BacktestBlock,
  BacktestResult,
  SpikeResponse,
  StrategyResult,
  Tier,
  TierResult,
} from "./types.js";
