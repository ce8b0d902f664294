// The backtest's public API (re-exported from the package entry point).
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
export {
  describeResult,
  formatTable,
  TABLE_COLUMNS,
  TABLE_LEGEND,
  tableRows,
} from "./formatTable.js";
export { LookaheadError } from "./lookaheadError.js";
export { type ReadHistoryOptions, readHistory } from "./readHistory.js";
export { type RenderReportOptions, renderReport } from "./renderReport.js";
export { type History, runBacktest } from "./runBacktest.js";
export {
  type BacktestBlock,
  type BacktestResult,
  HORIZONS,
  LOOKAHEAD_BLOCKS,
  type SpikeResponse,
  type StrategyResult,
  TIERS,
  type Tier,
  type TierResult,
} from "./types.js";
