import * as z from "zod";
import { describeValue } from "../../core/describeValue.js";
import { InvalidConfigError, type ValidationIssue } from "../../core/errors.js";
import { describeNumber } from "../../core/optionSchemas.js";
import type { Tier } from "../../core/tiers.js";
import { validateShape } from "../../core/validate.js";

// A bad value is echoed in at most 80 characters, whatever its size.

/** The longest promise a tier may make, in blocks (each tier keeps that many outcomes pending). */
export const MAX_WITHIN_BLOCKS = 1000;

const withinBlocks = z
  .int({ error: (iss) => `must be a whole number of blocks, got ${describeNumber(iss.input)}` })
  .min(1, { error: (iss) => `must be at least 1 block, got ${describeValue(iss.input)}` })
  .max(MAX_WITHIN_BLOCKS, {
    error: (iss) => `must be at most ${MAX_WITHIN_BLOCKS} blocks, got ${describeValue(iss.input)}`,
  });

// 1 is refused: no price keeps "always" on a chain whose next clearing price has no bound.
const probabilityMessage = (iss: { input?: unknown }) =>
  `must be a probability above 0 and below 1, got ${describeNumber(iss.input)}`;
const probability = z
  .number({ error: probabilityMessage })
  .gt(0, { error: probabilityMessage })
  .lt(1, { error: probabilityMessage });

const rate = z
  .number({
    error: (iss) => `must be a number above 0 and at most 0.5, got ${describeNumber(iss.input)}`,
  })
  .gt(0, {
    error: (iss) => `must be a number above 0 and at most 0.5, got ${describeNumber(iss.input)}`,
  })
  .max(0.5, {
    error: (iss) => `must be a number above 0 and at most 0.5, got ${describeNumber(iss.input)}`,
  });

/** A message for a value that is not an object where one is expected (other issues keep zod's). */
const objectOf = (what: string) => (iss: { code?: string; input?: unknown }) =>
  iss.code === "invalid_type"
    ? `must be an object of ${what}, got ${describeValue(iss.input)}`
    : undefined;

function promise(within: number, p: number) {
  return z
    .strictObject(
      {
        /** Blocks a bid at this tier may wait. */
        withinBlocks: withinBlocks.default(within),
        /** Share of bids that must get in within `withinBlocks` blocks. */
        probability: probability.default(p),
      },
      { error: objectOf("withinBlocks and probability") },
    )
    .prefault({});
}

/** Fewest and most blocks between two starts of the learning with `anchorBlocks`. */
export const MIN_ANCHOR_BLOCKS = 100;
export const MAX_ANCHOR_BLOCKS = 10_000_000;
const anchorMessage = (input: unknown) =>
  `must be a whole number of blocks from ${MIN_ANCHOR_BLOCKS} to ${MAX_ANCHOR_BLOCKS.toLocaleString("en-US")}, got ${describeNumber(input)}`;

/** zod shape of the `calibrated` strategy's options (the config file's `calibrated` block). */
export const calibratedOptionsShape = {
  /**
   * Each tier's promise.
   * @default deprioritized { withinBlocks: 10, probability: 0.9 }, regular { 3, 0.95 }, prioritized { 1, 0.99 }
   */
  tiers: z
    .strictObject(
      {
        deprioritized: promise(10, 0.9),
        regular: promise(3, 0.95),
        prioritized: promise(1, 0.99),
      },
      { error: objectOf("tiers (deprioritized, regular, prioritized)") },
    )
    .prefault({}),
  /**
   * Step of each sample's own quantile level per resolved bid (adaptive conformal inference).
   * Smaller than `correctionRate` on purpose: an expert's level only has to follow the slow drift
   * of its own calibration, and a level that wanders crosses price steps. @default 0.002
   */
  learningRate: rate.default(0.002),
  /** Step of the tier's final level correction per resolved bid: what the guarantee rests on. @default 0.005 */
  correctionRate: rate.default(0.005),
  /**
   * What an epoch change forgets. `"windows"`: the price windows and the bids waiting for their
   * outcome, so no price of an earlier epoch can be served, while the learned calibration (each
   * sample's level, the correction, the losses) carries over: it describes the estimator's own
   * errors, and re-learning a 99 % promise takes thousands of blocks. `"all"`: everything, as if
   * the strategy were new. @default "windows"
   */
  epochReset: z
    .enum(["windows", "all"], {
      error: (iss) => `must be "windows" or "all", got ${describeValue(iss.input)}`,
    })
    .default("windows"),
  /**
   * Replicas of one stream serve the same estimates: learning starts again at every height that
   * is a multiple of this many blocks, beside the learner started at the multiple before, which
   * is the one served (it has learned from `anchorBlocks` to twice as many blocks). A replica
   * agrees with every other once it has read `2 · anchorBlocks + 1` blocks (a Redis replica's
   * warm start reads 10,001: 5,000 fits). Off by default: one learner, which learns from the
   * whole history, and two replicas started apart serve estimates that differ for good.
   * @default undefined
   */
  anchorBlocks: z
    .int({ error: (iss) => anchorMessage(iss.input) })
    .min(MIN_ANCHOR_BLOCKS, { error: (iss) => anchorMessage(iss.input) })
    .max(MAX_ANCHOR_BLOCKS, { error: (iss) => anchorMessage(iss.input) })
    .optional(),
  /** Round every tier up to the smallest price bucket at or above it. @default false */
  roundToBuckets: z
    .boolean({ error: (iss) => `must be true or false, got ${describeValue(iss.input)}` })
    .default(false),
};

/** Options of the `calibrated` strategy as written by a user (every field optional). */
export type CalibratedOptions = z.input<z.ZodObject<typeof calibratedOptionsShape>>;
/** Options of the `calibrated` strategy with the defaults filled in. */
export type CalibratedConfig = z.output<z.ZodObject<typeof calibratedOptionsShape>>;
/** One tier's promise after parsing. */
export type CalibratedPromise = CalibratedConfig["tiers"][Tier];

const ORDER = ["deprioritized", "regular", "prioritized"] as const;
// 15 digits: two probabilities a user wrote apart read apart (6 read 0.9000001 as 90 %, the
// message then refused a promise as less than one it printed the same), float noise dropped.
const percent = (p: number) => +(p * 100).toPrecision(15);
/**
 * Two promises as the tier-order message shows them: in percent, or where that reads them alike
 * or as 100 % (0.9999999999999996 and 0.9999999999999997 both read "100 %", a promise no tier
 * may make), each probability as given.
 */
function describePromises(b: CalibratedPromise, a: CalibratedPromise): [string, string] {
  const [pb, pa] = [percent(b.probability), percent(a.probability)];
  const exact = pb >= 100 || pa >= 100 || (pb === pa && b.probability !== a.probability);
  const describe = (t: CalibratedPromise, shown: number) =>
    `${exact ? `probability ${t.probability}` : `${shown} %`} in ${t.withinBlocks} block${t.withinBlocks === 1 ? "" : "s"}`;
  return [describe(b, pb), describe(a, pa)];
}

/**
 * A tier may not promise less than a tier below it (a later inclusion, with no higher
 * probability): tiers are served monotone, so the lower tier's price would lift it every block,
 * and its record would count that tier's price, not its own promise. Equal promises are allowed.
 */
function tierOrderIssues(fields: { tiers?: unknown }): ValidationIssue[] {
  const tiers = fields.tiers as CalibratedConfig["tiers"] | undefined;
  if (tiers === undefined) return [];
  const issues: ValidationIssue[] = [];
  for (let hi = 1; hi < ORDER.length; hi++)
    for (let lo = 0; lo < hi; lo++) {
      const a = tiers[ORDER[lo]!];
      const b = tiers[ORDER[hi]!];
      const weaker = b.withinBlocks >= a.withinBlocks && b.probability <= a.probability;
      const same = b.withinBlocks === a.withinBlocks && b.probability === a.probability;
      if (!weaker || same) continue;
      const [shownB, shownA] = describePromises(b, a);
      issues.push({
        path: `tiers.${ORDER[hi]}`,
        message: `promises less than the ${ORDER[lo]} tier (${shownB} against ${shownA}): a tier must not promise less than a tier below it`,
      });
      break;
    }
  return issues;
}

/**
 * With `anchorBlocks`, a learner is served from `anchorBlocks` to twice as many blocks after its
 * start, then dropped, and a bid settles `withinBlocks` blocks after it is made (one more with
 * `skipLatestBlock`). A promise as long as `anchorBlocks` leaves the served learner few of its
 * bids settled; one of twice `anchorBlocks` or more, none: the tier would serve its prior for
 * ever, with an empty record. So `anchorBlocks` must exceed every tier's `withinBlocks`.
 */
function anchorIssues(fields: { tiers?: unknown; anchorBlocks?: unknown }): ValidationIssue[] {
  const tiers = fields.tiers as CalibratedConfig["tiers"] | undefined;
  const every = fields.anchorBlocks as number | undefined;
  if (tiers === undefined || every === undefined) return [];
  let longest: Tier = ORDER[0];
  for (const t of ORDER) if (tiers[t].withinBlocks > tiers[longest].withinBlocks) longest = t;
  const within = tiers[longest].withinBlocks;
  if (every > within) return [];
  return [
    {
      path: "anchorBlocks",
      message: `must be more than every tier's withinBlocks (tiers.${longest}: ${within}), got ${every}: each learner is served for anchorBlocks to twice as many blocks, and a bid settles withinBlocks blocks after it is made, so that tier would learn from few of its bids or none`,
    },
  ];
}

/**
 * Validate the `calibrated` strategy's options and fill in the defaults.
 *
 * @param prefix path prepended to every issue, e.g. `["calibrated"]` for a config file block.
 * @throws {InvalidConfigError} listing every problem with its path, e.g. `tiers.regular.probability`.
 * @example
 * parseCalibratedOptions({ tiers: { prioritized: { probability: 0.999 } } }).tiers.prioritized;
 * // { withinBlocks: 1, probability: 0.999 }
 */
export function parseCalibratedOptions(
  input: unknown = {},
  prefix: readonly PropertyKey[] = [],
): CalibratedConfig {
  const r = validateShape(
    calibratedOptionsShape,
    input ?? {},
    (fields) => [...tierOrderIssues(fields), ...anchorIssues(fields)],
    prefix,
  );
  if (!r.ok) throw new InvalidConfigError(r.issues);
  return r.value as CalibratedConfig;
}
