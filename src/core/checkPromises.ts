import { describeValue } from "./describeValue.js";
import { TIERS, type Tier } from "./tiers.js";
import type { PromiseRecord } from "./types.js";

/** The result of {@link checkPromises}: the records to publish, or what is wrong with them. */
export type CheckedPromises =
  | { ok: true; promises: Readonly<Record<Tier, PromiseRecord>> }
  | { ok: false; problem: string };

const wholeAtLeast = (v: unknown, least: number) =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= least;
const share = (v: unknown): v is number => typeof v === "number" && v >= 0 && v <= 1;
/** Equal but for float rounding (a rate computed as `1 - missed / bids`, say). */
const near = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

/** The fields of a {@link PromiseRecord}, the last two optional. */
const RECORD_FIELDS = [
  "withinBlocks",
  "probability",
  "bids",
  "included",
  "rate",
  "recentBids",
  "recentRate",
  "includedAtMinimum",
  "recentIncludedAtMinimum",
] as const satisfies readonly (keyof PromiseRecord)[];

/** The first problem of one tier's record, `undefined` when it is a record a reader can trust. */
function recordProblem(r: Record<string, unknown>): string | undefined {
  // A BigInt reads like a number in describeValue: say which it is.
  const shown = (v: unknown) => (typeof v === "bigint" ? `${v}n, a BigInt` : describeValue(v));
  const bad = (field: string, expected: string) =>
    `${field}: must be ${expected} (got ${shown(r[field])})`;
  if (!wholeAtLeast(r.withinBlocks, 1))
    return bad("withinBlocks", "a whole number of blocks, at least 1");
  const p = r.probability;
  if (!(typeof p === "number" && p > 0 && p <= 1))
    return bad("probability", "a number above 0 and at most 1");
  if (!wholeAtLeast(r.bids, 0)) return bad("bids", "a whole number, at least 0");
  if (!wholeAtLeast(r.included, 0) || (r.included as number) > (r.bids as number))
    return bad("included", `a whole number from 0 to bids (${r.bids})`);
  if (!(r.rate === null || share(r.rate))) return bad("rate", "null or a number from 0 to 1");
  // The rates are exported beside the counts: one that says otherwise than its counts (0.99 of
  // 100 bids with 10 included, a rate before any outcome) would be exported as it is, next to
  // counts and a share above the minimum that contradict it.
  const bids = r.bids as number;
  if (
    bids === 0 ? r.rate !== null : r.rate === null || !near(r.rate, (r.included as number) / bids)
  )
    return bad(
      "rate",
      bids === 0
        ? "null while no bid has an outcome (bids 0)"
        : `included / bids (${r.included} / ${bids})`,
    );
  if (!wholeAtLeast(r.recentBids, 0) || (r.recentBids as number) > bids)
    return bad("recentBids", `a whole number from 0 to bids (${bids})`);
  if (!(r.recentRate === null || share(r.recentRate)))
    return bad("recentRate", "null or a number from 0 to 1");
  const recentBids = r.recentBids as number;
  const recentShare = r.recentRate === null ? 0 : r.recentRate * recentBids;
  if (
    recentBids === 0
      ? r.recentRate !== null
      : r.recentRate === null || !near(recentShare, Math.round(recentShare))
  )
    return bad(
      "recentRate",
      recentBids === 0
        ? "null while no recent bid has an outcome (recentBids 0)"
        : `a whole number of the ${recentBids} recent bids over ${recentBids}`,
    );
  if (
    r.includedAtMinimum !== undefined &&
    (!wholeAtLeast(r.includedAtMinimum, 0) ||
      (r.includedAtMinimum as number) > (r.included as number))
  )
    return bad("includedAtMinimum", `absent or a whole number from 0 to included (${r.included})`);
  // Of the recent included bids (back from their rate, as the metrics read them): more would
  // make the recent share above the minimum negative.
  const recentIncluded =
    r.recentRate === null ? 0 : Math.round((r.recentRate as number) * (r.recentBids as number));
  if (
    r.recentIncludedAtMinimum !== undefined &&
    (!wholeAtLeast(r.recentIncludedAtMinimum, 0) ||
      (r.recentIncludedAtMinimum as number) > recentIncluded)
  )
    return bad(
      "recentIncludedAtMinimum",
      `absent or a whole number from 0 to the recent included bids (recentRate × recentBids: ${recentIncluded})`,
    );
  return undefined;
}

/**
 * Check what a strategy's `promises()` returned before it reaches a snapshot, the metrics and
 * the backtest: an object with exactly the three tiers, each a {@link PromiseRecord} of sane
 * values (a count a whole number, a share from 0 to 1 that agrees with its counts, `null` without
 * any, `included` at most `bids`, the optional counts at the minimum at most `included` and the
 * recent included bids). On success the records are copies of the known fields, frozen, so a
 * snapshot never changes whatever the strategy does with the objects it returned. On failure,
 * the first problem, with its path.
 *
 * @example
 * checkPromises({ regular: { withinBlocks: 3, probability: 1.5 } }); // { ok: false, problem: "deprioritized: ..." }
 */
export function checkPromises(value: unknown): CheckedPromises {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return {
      ok: false,
      problem: `must be an object with a record per tier (got ${describeValue(value)})`,
    };
  const given = value as Record<string, unknown>;
  const extra = Object.keys(given).find((k) => !(TIERS as readonly string[]).includes(k));
  if (extra !== undefined)
    return { ok: false, problem: `${describeValue(extra)}: not a tier (${TIERS.join(", ")})` };
  const out: Partial<Record<Tier, PromiseRecord>> = {};
  for (const tier of TIERS) {
    const r = given[tier];
    if (r === undefined) return { ok: false, problem: `${tier}: missing (a record per tier)` };
    if (typeof r !== "object" || r === null)
      return {
        ok: false,
        problem: `${tier}: must be a promise record (got ${describeValue(r)})`,
      };
    const record = r as Record<string, unknown>;
    const problem = recordProblem(record);
    if (problem !== undefined) return { ok: false, problem: `${tier}.${problem}` };
    // Only the known fields, the optional ones where given.
    const copy: Record<string, unknown> = {};
    for (const field of RECORD_FIELDS) if (record[field] !== undefined) copy[field] = record[field];
    out[tier] = Object.freeze(copy as unknown as PromiseRecord);
  }
  return { ok: true, promises: Object.freeze(out) as Readonly<Record<Tier, PromiseRecord>> };
}
