import { z } from "zod";
import { DEFAULT_BUCKETS } from "./buckets.js";
import { InvalidConfigError, type ValidationIssue } from "./errors.js";
import { u64Schema as u64 } from "./u64Schema.js";
import { issuesFromZod } from "./zodIssues.js";

const history = z.int({ error: "must be a whole number of blocks" }).min(1, "must be at least 1");

/** The estimator's settings (AIP-34 names). Every field has a default. */
export const gasConfigShape = {
  /** A block with at least this many user transactions is full. @default 250 */
  fullBlockTxns: history.default(250),
  /** Blocks behind the deprioritized estimate. @default 10 */
  lowBlockHistory: history.default(10),
  /** Blocks behind the regular estimate. @default 30 */
  marketBlockHistory: history.default(30),
  /** Blocks behind the prioritized estimate (and the most any window holds). @default 120 */
  aggressiveBlockHistory: history.default(120),
  /** Price buckets, strictly ascending. @default [0,150,300,500,1000,3000,5000,10000,100000,1000000] */
  buckets: z
    .array(u64)
    .min(1, "must hold at least one bucket")
    .default(() => [...DEFAULT_BUCKETS]),
  /** Minimum gas unit price when a block does not carry `min_gas_unit_price`. @default 100 */
  minGasUnitPrice: u64.default(100n),
  /** Leave the newest block out (it may be partial on a live node). @default true */
  skipLatestBlock: z.boolean().default(true),
  /** Majority-use-case rule: a block dominated by one contract is not full. @default true */
  incorporateReorderingEffects: z.boolean().default(true),
  /** Fixed estimate to serve instead of the computed one. @default undefined */
  staticOverride: z.strictObject({ low: u64, market: u64, aggressive: u64 }).optional(),
  /** `false` serves the default estimate (min, min, nextBucket(min)) always. @default true */
  enabled: z.boolean().default(true),
};

const gasConfigSchema = z.strictObject(gasConfigShape);

/** Validated estimator configuration. */
export type GasConfig = Readonly<z.output<typeof gasConfigSchema>>;
/** What a user may write: any subset of the fields; u64 as integers or decimal strings. */
export type GasConfigInput = z.input<typeof gasConfigSchema>;

/** Cross-field rules, checked on whichever fields are individually valid. */
export function crossCheckGasConfig(
  c: Partial<Record<keyof GasConfig, unknown>>,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
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
    for (let i = 1; i < buckets.length; i++)
      if (buckets[i]! <= buckets[i - 1]!)
        issues.push({
          path: `buckets[${i}]`,
          message: `buckets must be strictly ascending: ${buckets[i]} follows ${buckets[i - 1]}`,
        });
  }
  const o = c.staticOverride as { low: bigint; market: bigint; aggressive: bigint } | undefined;
  if (o && !(o.low <= o.market && o.market <= o.aggressive))
    issues.push({
      path: "staticOverride",
      message: `must satisfy low <= market <= aggressive, got ${o.low}/${o.market}/${o.aggressive}`,
    });
  return issues;
}

/** Validate each field on its own, then the cross-field rules; returns every issue found. */
export function validateShape<S extends z.ZodRawShape>(
  shape: S,
  input: unknown,
  crossCheck: (fields: Partial<Record<keyof S, unknown>>) => ValidationIssue[],
  prefix: readonly PropertyKey[] = [],
): { ok: true; value: z.output<z.ZodObject<S>> } | { ok: false; issues: ValidationIssue[] } {
  const schema = z.strictObject(shape);
  const r = schema.safeParse(input ?? {});
  const issues = r.success ? [] : issuesFromZod(r.error, prefix);
  const fields: Partial<Record<keyof S, unknown>> = {};
  if (r.success) Object.assign(fields, r.data);
  else if (typeof input === "object" && input !== null) {
    for (const key of Object.keys(shape) as (keyof S)[]) {
      const f = (shape[key] as z.ZodType).safeParse(
        (input as Record<string, unknown>)[key as string],
      );
      if (f.success) fields[key] = f.data;
    }
  }
  for (const issue of crossCheck(fields))
    issues.push({ ...issue, path: [...prefix.map(String), issue.path].filter(Boolean).join(".") });
  if (issues.length > 0 || !r.success) return { ok: false, issues };
  return { ok: true, value: r.data as z.output<z.ZodObject<S>> };
}

/**
 * Validate a configuration, filling in defaults.
 *
 * @throws {InvalidConfigError} listing every problem (path + message), not just the first.
 * @example
 * const config = parseGasConfig({ lowBlockHistory: 5, minGasUnitPrice: "150" });
 */
export function parseGasConfig(input: unknown = {}): GasConfig {
  const r = validateShape(gasConfigShape, input, crossCheckGasConfig);
  if (!r.ok) throw new InvalidConfigError(r.issues);
  return Object.freeze(r.value) as GasConfig;
}

/** The default configuration. */
export const DEFAULT_GAS_CONFIG: GasConfig = parseGasConfig({});
