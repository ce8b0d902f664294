import { describeValue } from "../core/describeValue.js";
import { InvalidConfigError } from "../core/errors.js";
import { unknownFieldIssues, unreadableOptions } from "../core/readOptions.js";
import { type BacktestBlock, TIERS } from "./types.js";

/** Options of {@link createSeriesRecorder}. */
export interface SeriesRecorderOptions {
  /** Labels of the strategies, in the backtest's order. */
  strategies: readonly string[];
  /** Most points kept per series (an even number >= 2). @default 5000 */
  maxPoints?: number | undefined;
}

/** One strategy's three tiers over time; `null` where it had no estimate. */
export interface StrategySeries {
  /** The strategy's label in the backtest. */
  readonly name: string;
  /** Highest deprioritized estimate of the blocks behind each point. */
  readonly deprioritized: readonly (number | null)[];
  /** Highest regular estimate of the blocks behind each point. */
  readonly regular: readonly (number | null)[];
  /** Highest prioritized estimate of the blocks behind each point. */
  readonly prioritized: readonly (number | null)[];
}

/** What the report draws: the clearing price and every estimate, downsampled alike. */
export interface RecordedSeries {
  /** Height of the first block behind each point. */
  readonly heights: readonly number[];
  /**
   * The same heights exact, in decimal (a height past 2^53 has no exact number); a series built
   * by hand may leave them out, and its axis then reads the numbers.
   */
  readonly heightLabels?: readonly string[] | undefined;
  /** Blocks behind each point (the last point may have fewer). */
  readonly blocksPerPoint: number;
  /** Highest clearing price of the blocks behind each point. */
  readonly clearing: readonly number[];
  /** Each strategy's series, in the backtest's order. */
  readonly strategies: readonly StrategySeries[];
}

/** Collects the series of a backtest; see {@link createSeriesRecorder}. */
export interface SeriesRecorder {
  /** Pass as the backtest's `onBlock`. */
  record(block: BacktestBlock): void;
  /** The series recorded so far. */
  series(): RecordedSeries;
  /** Points held now (never more than `maxPoints`, plus the block being gathered). */
  size(): number;
}

/**
 * Record the clearing price and each tier's estimate per block for charts, in bounded memory:
 * each point stands for `blocksPerPoint` consecutive blocks and carries the highest value among
 * them (a spike stays visible however long the history). It starts at one block per point; when
 * `maxPoints` are held, neighbouring points merge and the width doubles, so a history of any
 * length ends with between `maxPoints / 2` and `maxPoints` points per series.
 *
 * @example
 * const recorder = createSeriesRecorder({ strategies: ["aip34"] });
 * const backtest = createBacktest({ strategies: [{ strategy: aip34() }], onBlock: recorder.record });
 */
export function createSeriesRecorder(options: SeriesRecorderOptions): SeriesRecorder {
  if (typeof options !== "object" || options === null || Array.isArray(options))
    throw new InvalidConfigError([
      { path: "", message: `must be { strategies, maxPoints? } (got ${describeValue(options)})` },
    ]);
  const unreadable = unreadableOptions(options);
  if (unreadable) throw new InvalidConfigError([unreadable]);
  const maxPoints = options.maxPoints ?? 5000;
  const issues = unknownFieldIssues(options, ["strategies", "maxPoints"]);
  if (!Number.isInteger(maxPoints) || maxPoints < 2 || maxPoints % 2 !== 0)
    issues.push({
      path: "maxPoints",
      message: `must be an even whole number >= 2, got ${describeValue(maxPoints)}`,
    });
  if (!Array.isArray(options.strategies) || !options.strategies.every((n) => typeof n === "string"))
    issues.push({
      path: "strategies",
      message: `must be the strategies' names, an array of strings (got ${describeValue(options.strategies)})`,
    });
  if (issues.length > 0) throw new InvalidConfigError(issues);
  const names = [...options.strategies];
  const lanes = names.length * TIERS.length;
  const heights: number[] = [];
  const labels: string[] = [];
  // columns[0] is the clearing price, then strategy-major, tier-minor.
  const columns: (number | null)[][] = Array.from({ length: 1 + lanes }, () => []);
  const bucket: (number | null)[] = new Array(1 + lanes).fill(null);
  let width = 1;
  let filled = 0;
  let bucketHeight = 0;
  let bucketLabel = "";

  const max = (a: number | null, b: number | null) =>
    a === null ? b : b === null || a >= b ? a : b;

  function flush() {
    heights.push(bucketHeight);
    labels.push(bucketLabel);
    for (let c = 0; c < columns.length; c++) {
      columns[c]!.push(bucket[c]!);
      bucket[c] = null;
    }
    filled = 0;
    if (heights.length < maxPoints) return;
    // Full: merge neighbours, double the width.
    const half = maxPoints / 2;
    for (let i = 0; i < half; i++) {
      heights[i] = heights[2 * i]!;
      labels[i] = labels[2 * i]!;
    }
    heights.length = half;
    labels.length = half;
    for (const col of columns) {
      for (let i = 0; i < half; i++) col[i] = max(col[2 * i]!, col[2 * i + 1]!);
      col.length = half;
    }
    width *= 2;
  }

  return {
    record(block) {
      if (filled === 0) {
        bucketHeight = Number(block.height);
        bucketLabel = String(block.height);
      }
      bucket[0] = max(bucket[0]!, Number(block.clearing));
      for (let s = 0; s < names.length; s++) {
        const e = block.estimates[s];
        if (!e) continue;
        for (let t = 0; t < TIERS.length; t++) {
          const c = 1 + s * TIERS.length + t;
          bucket[c] = max(bucket[c]!, Number(e[TIERS[t]!]));
        }
      }
      if (++filled === width) flush();
    },
    series() {
      const h = [...heights];
      const l = [...labels];
      const cols = columns.map((c) => [...c]);
      if (filled > 0) {
        h.push(bucketHeight);
        l.push(bucketLabel);
        for (let c = 0; c < cols.length; c++) cols[c]!.push(bucket[c]!);
      }
      return {
        heights: h,
        heightLabels: l,
        blocksPerPoint: width,
        clearing: cols[0]! as number[],
        strategies: names.map((name, s) => {
          const at = (t: number) => cols[1 + s * TIERS.length + t]!;
          return { name, deprioritized: at(0), regular: at(1), prioritized: at(2) };
        }),
      };
    },
    size: () => heights.length,
  };
}
