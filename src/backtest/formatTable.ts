import { escapeControls } from "../core/describeValue.js";
import { type BacktestResult, type SpikeResponse, TIERS, type TierResult } from "./types.js";

/** Column headers of {@link formatTable} / {@link tableRows}, in order. */
export const TABLE_COLUMNS: readonly string[] = Object.freeze([
  "strategy",
  "tier",
  "in 1",
  "in 3",
  "in 10",
  "promise",
  "kept",
  "over p50",
  "over p90",
  "over mean",
  "paid",
  "cover p50",
  "covered",
  "back p50",
  "back",
]);

/** What the columns mean, printed under the table. */
export const TABLE_LEGEND =
  "in k: share of bids included within k blocks. promise: what the tier promises (calibrated); kept: its share of bids included within the promised blocks.\n" +
  "over: estimate / clearing price of the block it got into (median, p90, mean). paid: mean price paid by the included bids, in mean clearing prices.\n" +
  "cover: blocks from a spike's start until the tier's bid gets into a spike block (median; spikes covered / spikes).\n" +
  "back: blocks from a spike's end until the tier is back at its idle value (median; spikes it came back after / spikes).";

const percent = (v: number | null) => (v === null ? "-" : `${(v * 100).toFixed(2)}%`);
/**
 * A ratio with 3 decimals, or with 6 significant digits from a million up: a bid near 2^64 over a
 * clearing price of 1 is no ratio to read to the thousandth (`18446744073709551616.000`, above
 * u64's maximum, from a double).
 */
export const showRatio = (v: number): string =>
  Math.abs(v) < 1e6 ? v.toFixed(3) : v.toPrecision(6);
const ratio = (v: number | undefined) => (v === undefined ? "-" : showRatio(v));
const blocks = (v: number | null) =>
  v === null ? "-" : Number.isInteger(v) ? String(v) : v.toFixed(1);
const share = (r: SpikeResponse) => `${r.hits}/${r.spikes}`;

/**
 * The cells of the results table: one row per strategy and tier, columns as
 * {@link TABLE_COLUMNS}: inclusion within 1/3/10 blocks, overpayment median, p90 and mean, mean
 * price paid (`cost`), median blocks to cover a spike and spikes covered, median blocks back to
 * the idle value after a spike and spikes after which it came back.
 *
 * @example
 * tableRows(result)[0]; // ["aip34", "deprioritized", "90.17%", ...]
 */
export function tableRows(result: BacktestResult): string[][] {
  const rows: string[][] = [];
  for (const s of result.strategies)
    for (const tier of TIERS) {
      const t: TierResult = s.tiers[tier];
      rows.push([
        s.name,
        tier,
        percent(t.inclusion.within1),
        percent(t.inclusion.within3),
        percent(t.inclusion.within10),
        // As the option was written: rounded to two decimals, 99.999 % read "100%", a promise
        // no bid keeps, beside the share of its bids that kept it.
        t.promise
          ? `${+(t.promise.probability * 100).toPrecision(15)}% in ${t.promise.withinBlocks}`
          : "-",
        t.promise ? percent(t.promise.achieved) : "-",
        ratio(t.overpayment?.median),
        ratio(t.overpayment?.p90),
        ratio(t.overpayment?.mean),
        ratio(t.cost ?? undefined),
        blocks(t.spikeCover.median),
        share(t.spikeCover),
        blocks(t.spikeReturn.median),
        share(t.spikeReturn),
      ]);
    }
  return rows;
}

/**
 * One paragraph saying what the table covers (blocks, bids, spikes, failures).
 *
 * @example
 * console.log(describeResult(result)); // "20000 blocks (heights 1..20000), ..."
 */
export function describeResult(result: BacktestResult): string {
  // A strategy that failed on a block made no bid there: the count is the others'.
  const counts = result.strategies.map((s) => s.tiers.regular.bids);
  const bids = counts.length > 0 ? Math.max(...counts) : 0;
  const fewer = counts.some((n) => n < bids)
    ? " (fewer for a strategy that failed: see below)"
    : "";
  // Every bid is scored or one of the last ones, left out: counted apart, so that neither reads
  // as a part of the other.
  const unsettled = result.unsettledBids === 1 ? "1 bid" : `${result.unsettledBids} bids`;
  const lines = [
    `${result.blocks} blocks (heights ${result.firstHeight ?? "-"}..${result.lastHeight ?? "-"}), ${result.blocksAtMinimum} cleared at the minimum price; ${result.spikes} spikes (a spike: clearing above the minimum after ${result.calmBlocks} blocks at it, until ${result.calmBlocks} blocks at it again).`,
    `Each tier bid its estimate before every block but the first: ${bids} ${bids === 1 ? "bid" : "bids"} scored each${fewer}, and the last ${unsettled} left out (their 10-block outcome is unknown).`,
  ];
  if (result.duplicates > 0) lines.push(`${result.duplicates} repeated heights were skipped.`);
  for (const s of result.strategies)
    for (const tier of TIERS) {
      const promise = s.tiers[tier].promise;
      if (promise && promise.withinBlocks > 10)
        lines.push(
          `${s.name} ${tier} promises inclusion within ${promise.withinBlocks} blocks: the backtest scores 10 blocks ahead at most, so its "kept" is "-" (the within-10 column bounds it from below).`,
        );
    }
  for (const s of result.strategies)
    if (s.failures > 0)
      lines.push(
        `${s.name} had no estimate before ${s.failures} blocks (no bid there)${s.firstFailure ? `; the first, before block ${s.firstFailure.height}: ${s.firstFailure.message}` : "."}`,
      );
  return lines.join("\n");
}

/**
 * The results as a plain-text table (strategy × tier × metric) with a short header, for a
 * terminal. Columns: inclusion within 1, 3 and 10 blocks; overpayment (estimate / clearing
 * price of the block it got into) median, p90 and mean; mean price paid (in mean clearing
 * prices); blocks to cover a spike (median, and spikes covered / spikes); blocks back at the
 * idle value after a spike (median, and how often).
 *
 * @example
 * process.stdout.write(formatTable(await runBacktest(history, options)));
 */
export function formatTable(result: BacktestResult): string {
  const rows = [TABLE_COLUMNS as string[], ...tableRows(result)].map((r) => r.map(escapeControls));
  const widths = TABLE_COLUMNS.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) =>
    r.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  ");
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  // A strategy's name is its module's to choose: nothing in it may move a terminal's cursor.
  const summary = describeResult(result).split("\n").map(escapeControls).join("\n");
  return `${summary}\n\n${line(rows[0]!)}\n${rule}\n${rows.slice(1).map(line).join("\n")}\n\n${TABLE_LEGEND}\n`;
}
