import * as z from "zod";
import { DEFAULT_BUCKETS } from "./buckets.js";
import { moreIssues } from "./createIssueList.js";
import { describeValue } from "./describeValue.js";
import { InvalidConfigError, MAX_ISSUES, type ValidationIssue } from "./errors.js";
import { wholeNumberError } from "./optionSchemas.js";
import { hasIntegersWrittenOddly, integerWrittenAs } from "./parseJsonLossless.js";
import type { GasEstimate } from "./types.js";
import type { U64Input } from "./u64.js";
import {
  tooManyWrittenOddly,
  u64Schema as u64,
  u64ArraySchema,
  writtenOddlyMessage,
} from "./u64Schema.js";
import { validateShape } from "./validate.js";

/**
 * Longest history, in blocks: AIP-34 sorts its whole window once per block, which takes about
 * 60 ms at 100 000 blocks on one core (a block comes every ~200 ms on Aptos mainnet) and grows
 * as n log n; the engine holds a few numbers per block of it. Longer windows belong to a sketch
 * (the `tdigest` strategy's `windowBlocks`).
 */
export const MAX_BLOCK_HISTORY = 100_000;

const history = z
  .int({ error: wholeNumberError("blocks") })
  .min(1, "must be at least 1")
  .max(MAX_BLOCK_HISTORY, `must be at most ${MAX_BLOCK_HISTORY}`);
/** `staticOverride` in the node's names, and in the tiers' (what the validated config holds). */
const NODE_NAMES = ["low", "market", "aggressive"] as const;
const TIER_NAMES = ["deprioritized", "regular", "prioritized"] as const;

/** A switch: `true` or `false`, nothing else (zod's own message names types, not values). */
const onOff = () =>
  z.boolean({ error: (iss) => `must be true or false, got ${describeValue(iss.input)}` });

const count = (what: string, max: number) =>
  z
    .int({ error: wholeNumberError(what) })
    .min(1, "must be at least 1")
    .max(max, `must be at most ${max}`);

/** The estimator's settings (AIP-34 names, plus the engine's ordering rules). Every field has a default. */
export const gasConfigShape = {
  /** A block with at least this many user transactions is full. @default 250 */
  fullBlockTxns: count("transactions", 1_000_000).default(250),
  /** Blocks behind the deprioritized estimate (at most 100 000). @default 10 */
  lowBlockHistory: history.default(10),
  /** Blocks behind the regular estimate (at most 100 000). @default 30 */
  marketBlockHistory: history.default(30),
  /** Blocks behind the prioritized estimate (and the most any window holds; at most 100 000). @default 120 */
  aggressiveBlockHistory: history.default(120),
  /** Price buckets, strictly ascending. @default [0,150,300,500,1000,3000,5000,10000,100000,1000000] */
  buckets: (u64ArraySchema as unknown as z.ZodType<bigint[], readonly U64Input[]>)
    .refine((b) => b.length > 0, "must hold at least one bucket")
    .default(() => [...DEFAULT_BUCKETS]),
  /** Minimum gas unit price when a block does not carry `min_gas_unit_price`. @default 100 */
  minGasUnitPrice: u64.default(100n),
  /** Leave the newest block out (it may be partial on a live node). @default true */
  skipLatestBlock: onOff().default(true),
  /** Majority-use-case rule: a block dominated by one contract is not full. @default true */
  incorporateReorderingEffects: onOff().default(true),
  /**
   * Fixed estimate to serve instead of the computed one, in the node's names (`low`, `market`,
   * `aggressive`) or in the tiers' (`deprioritized`, `regular`, `prioritized`, as the validated
   * config holds it, so a copy of a validated config is valid input). Never served below the
   * minimum price in force. @default undefined
   */
  staticOverride: z
    .strictObject(
      {
        low: u64.optional(),
        market: u64.optional(),
        aggressive: u64.optional(),
        deprioritized: u64.optional(),
        regular: u64.optional(),
        prioritized: u64.optional(),
      },
      {
        error: (iss) =>
          iss.code === "invalid_type"
            ? `must be an object of three prices (low, market, aggressive; or deprioritized, regular, prioritized), got ${describeValue(iss.input)}`
            : undefined,
      },
    )
    .superRefine((o, ctx) => {
      const tierNames = TIER_NAMES.some((k) => o[k] !== undefined);
      const nodeNames = NODE_NAMES.some((k) => o[k] !== undefined);
      const [used, other] =
        tierNames && !nodeNames ? [TIER_NAMES, NODE_NAMES] : [NODE_NAMES, TIER_NAMES];
      for (const key of used)
        if (o[key] === undefined)
          ctx.addIssue({ code: "custom", path: [key], message: "required" });
      for (const key of other)
        if (o[key] !== undefined)
          ctx.addIssue({
            code: "custom",
            path: [key],
            message: `not with ${used.join("/")}: name the tiers one way (low/market/aggressive or deprioritized/regular/prioritized)`,
          });
    })
    .transform(
      // Frozen: it is served as the snapshots' estimate, which never changes.
      (o): GasEstimate =>
        Object.freeze({
          deprioritized: (o.low ?? o.deprioritized)!,
          regular: (o.market ?? o.regular)!,
          prioritized: (o.aggressive ?? o.prioritized)!,
        }),
    )
    .optional(),
  /** `false` serves the default estimate (min, min, nextBucket(min)) always. @default true */
  enabled: onOff().default(true),
  /**
   * A block more than this many heights above the newest accepted one is rejected (a
   * `BlockOrderError`), so one bad line cannot move the chain far ahead. About two days of Aptos
   * blocks at 5 a second.
   * @default 1000000
   */
  maxHeightJump: count("heights", Number.MAX_SAFE_INTEGER).default(1_000_000),
  /**
   * After this many blocks in a row rejected by the ordering rules (lower height, lower epoch,
   * too far ahead, versions going back) that are in order among themselves, the
   * engine follows them: the newest accepted block was wrong or the chain was reset. The windows
   * start afresh, as at an epoch change, and a `resynced` event says so.
   * @default 10
   */
  resyncAfterBlocks: count("blocks", 1000).default(10),
};
// Derived from the shape, not from the schema: the shape's declaration carries each field's
// doc comment, so editors show it on these types.
/** Validated estimator configuration. */
export type GasConfig = Readonly<z.output<z.ZodObject<typeof gasConfigShape, z.core.$strict>>>;
/** What a user may write: any subset of the fields; u64 as integers or decimal strings. */
export type GasConfigInput = z.input<z.ZodObject<typeof gasConfigShape, z.core.$strict>>;

/** Cross-field rules, checked on whichever fields are individually valid. */
export function crossCheckGasConfig(
  c: Partial<Record<keyof GasConfig, unknown>>,
  input?: unknown,
): ValidationIssue[] {
  const issues: ValidationIssue[] = gasConfigInputIssues(input);
  const agg = c.aggressiveBlockHistory as number | undefined;
  if (agg !== undefined) {
    for (const key of ["lowBlockHistory", "marketBlockHistory"] as const) {
      const v = c[key] as number | undefined;
      if (v !== undefined && v > agg)
        issues.push({
          path: key,
          message: `must not exceed aggressiveBlockHistory (${agg}), got ${v}`,
        });
    }
  }
  const buckets = c.buckets as bigint[] | undefined;
  if (buckets) {
    let unordered = 0;
    for (let i = 1; i < buckets.length; i++)
      if (buckets[i]! <= buckets[i - 1]! && ++unordered <= MAX_ISSUES)
        issues.push({
          path: `buckets[${i}]`,
          message: `buckets must be strictly ascending: ${buckets[i]} follows ${buckets[i - 1]}`,
        });
    if (unordered > MAX_ISSUES) issues.push(moreIssues(unordered - MAX_ISSUES));
  }
  const o = c.staticOverride as GasEstimate | undefined;
  if (o && !(o.deprioritized <= o.regular && o.regular <= o.prioritized))
    issues.push({
      path: "staticOverride",
      message: `must satisfy low <= market <= aggressive, got ${o.deprioritized}/${o.regular}/${o.prioritized}`,
    });
  return issues;
}

/**
 * Integer settings that JSON text wrote as `1e2`, `100.0` or `-0` (see `parseJsonLossless`):
 * integers are written with digits only, as in block samples.
 */
export function gasConfigInputIssues(input: unknown): ValidationIssue[] {
  if (typeof input !== "object" || input === null) return [];
  const issues: ValidationIssue[] = tooManyWrittenOddly(input);
  const check = (container: object, keys: readonly string[], prefix: string) => {
    if (!hasIntegersWrittenOddly(container)) return;
    for (const key of keys) {
      const written = integerWrittenAs(container, key);
      if (written !== undefined)
        issues.push({ path: prefix + key, message: writtenOddlyMessage(written) });
    }
  };
  check(input, INTEGER_SETTINGS, "");
  const o = (input as { staticOverride?: unknown }).staticOverride;
  if (typeof o === "object" && o !== null)
    check(o, [...NODE_NAMES, ...TIER_NAMES], "staticOverride.");
  return issues;
}

const INTEGER_SETTINGS = [
  "fullBlockTxns",
  "lowBlockHistory",
  "marketBlockHistory",
  "aggressiveBlockHistory",
  "minGasUnitPrice",
  "maxHeightJump",
  "resyncAfterBlocks",
];

/**
 * Validate a configuration, filling in defaults.
 *
 * @throws {InvalidConfigError} listing the problems (path + message; at most 20, then a count).
 * @example
 * const config = parseGasConfig({ lowBlockHistory: 5, minGasUnitPrice: "150" });
 */
export function parseGasConfig(input: unknown = {}): GasConfig {
  // A config this function returned is valid as it is; parsing it again would read its
  // `staticOverride` (held in tier names) as the node names a user writes, and fail.
  if (typeof input === "object" && input !== null && PARSED.has(input)) return input as GasConfig;
  const r = validateShape(gasConfigShape, input, crossCheckGasConfig, [], "config");
  if (!r.ok) throw new InvalidConfigError(r.issues);
  return markParsed(r.value as GasConfig);
}

/** Configs returned by {@link parseGasConfig} or {@link markParsed}: frozen, already valid. */
const PARSED = new WeakSet<object>();

/** Freeze a validated config and remember it as one, so parsing it again returns it. */
export function markParsed(config: GasConfig): GasConfig {
  // The buckets too: strategies read them on every block, and a caller's splice must not
  // change what a running engine serves, past the order the parse checked.
  Object.freeze(config.buckets);
  Object.freeze(config);
  PARSED.add(config);
  return config;
}

/** The default configuration. */
export const DEFAULT_GAS_CONFIG: GasConfig = parseGasConfig({});
