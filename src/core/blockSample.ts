import * as z from "zod";
import { capIssues } from "./createIssueList.js";
import { describeValue } from "./describeValue.js";
import { BaseError, InvalidBlockSampleError, type ValidationIssue } from "./errors.js";
import {
  hasIntegersWrittenOddly,
  integersWrittenOddly as integersWrittenOddlyCount,
  integerWrittenAs,
} from "./parseJsonLossless.js";
import { unreadableIssue, unreadableOptions } from "./readOptions.js";
import { parseU64, type U64Input } from "./u64.js";
import {
  tooManyWrittenOddly,
  u64Schema as u64,
  u64ArraySchema as u64Array,
  writtenOddlyMessage,
} from "./u64Schema.js";
import { issuesFromZod } from "./zodIssues.js";

/**
 * One block's fee samples, validated. u64 values are BigInt. Produced by
 * {@link parseBlockSample} from the NDJSON block format (snake_case, see docs/architecture.md).
 */
export interface BlockSample {
  /** Block height; the engine accepts heights in order (see `maxHeightJump`). */
  readonly height: bigint;
  /** Epoch of the block; a change resets the strategy's windows. */
  readonly epoch: bigint;
  /** Block timestamp in microseconds since the Unix epoch, when known (served as ledger info). */
  readonly timestampUsec: bigint | undefined;
  /** Ledger version of the block's first transaction, when known. */
  readonly firstVersion: bigint | undefined;
  /** Ledger version of the block's last transaction, when known. */
  readonly lastVersion: bigint | undefined;
  /** Chain id (0..255), when known; a block of another chain than the newest one's is rejected. */
  readonly chainId: number | undefined;
  /** The chain's minimum gas unit price in force for this block, when known. */
  readonly minGasUnitPrice: bigint | undefined;
  /** Gas unit price of every user transaction in the block. */
  readonly gasUnitPrices: readonly bigint[];
  /** Gas used by each user transaction, same length as `gasUnitPrices`, when known. */
  readonly gasUsed: readonly bigint[] | undefined;
  /** Whether the block hit its gas or output limit, when the chain says so. */
  readonly blockGasLimitReached: boolean | undefined;
  /** The block gas limit, when known. */
  readonly blockGasLimit: bigint | undefined;
  /** Share (0..1) of user transactions calling the most common contract address. */
  readonly majorityUseCaseFraction: number | undefined;
}

/** The NDJSON wire shape of a block sample (u64 as JSON integer, decimal string or BigInt). */
export interface BlockSampleInput {
  /** Block height (u64). Required. */
  height: U64Input;
  /** Epoch (u64). Required. */
  epoch: U64Input;
  /** Block timestamp in microseconds since the Unix epoch (u64). */
  timestamp_usec?: U64Input | null | undefined;
  /** Ledger version of the block's first transaction (u64). */
  first_version?: U64Input | null | undefined;
  /** Ledger version of the block's last transaction (u64), at least `first_version`. */
  last_version?: U64Input | null | undefined;
  /** Chain id, 0 to 255. */
  chain_id?: number | string | null | undefined;
  /** Minimum gas unit price in force for this block (u64); absent: the config's `minGasUnitPrice`. */
  min_gas_unit_price?: U64Input | null | undefined;
  /** Gas unit price of every user transaction in the block (u64 each). Required; may be empty. */
  gas_unit_prices: readonly U64Input[];
  /** Gas used by each user transaction (u64 each), same length as `gas_unit_prices`. */
  gas_used?: readonly U64Input[] | null | undefined;
  /** Whether the block hit its gas or output limit. */
  block_gas_limit_reached?: boolean | null | undefined;
  /** The block gas limit (u64). */
  block_gas_limit?: U64Input | null | undefined;
  /** Share (0..1) of user transactions calling the most common contract address. */
  majority_use_case_fraction?: number | null | undefined;
}
export type { U64Input } from "./u64.js";

const optional = <T extends z.ZodType>(schema: T) => schema.nullish();

/**
 * Most user transactions one block sample may hold: 100 times the largest Aptos block (about
 * 10,000) and some 700 times Ethereum's. A block is about 70 bytes a transaction once parsed, so
 * this bounds one block at some 70 MB; without it, a peer's valid block of 12 million prices
 * (48 MB of JSON, 800 MB parsed) was taken, and 30 of them in a Redis stream took every replica
 * started after them down with the heap.
 */
export const MAX_BLOCK_TRANSACTIONS = 1_000_000;

/** A block's list of transactions: at most {@link MAX_BLOCK_TRANSACTIONS}, checked before any entry. */
const txnArray = z
  .unknown()
  .transform((v, ctx) => {
    if (Array.isArray(v) && v.length > MAX_BLOCK_TRANSACTIONS) {
      ctx.addIssue({
        code: "custom",
        message: `must hold at most ${MAX_BLOCK_TRANSACTIONS} transactions, got ${v.length}`,
      });
      return z.NEVER;
    }
    return v;
  })
  .pipe(u64Array);

/** A share of the block's transactions, 0 to 1. */
const fraction = z
  .number({
    error: (iss) => `must be a fraction from 0 to 1 (got ${describeValue(iss.input)})`,
  })
  .min(0)
  .max(1);

/** A chain id: a u64 from 0 to 255, as a number. */
const chainId = z.unknown().transform((v, ctx) => {
  const r = parseU64(v);
  if (!r.ok) {
    ctx.addIssue({ code: "custom", message: r.message });
    return z.NEVER;
  }
  if (r.value > 255n) {
    ctx.addIssue({ code: "custom", message: `must be a chain id from 0 to 255 (got ${r.value})` });
    return z.NEVER;
  }
  return Number(r.value);
});

/**
 * zod schema of the NDJSON block format. It parses into the file's snake_case shape (u64 fields
 * as `bigint`); {@link parseBlockSample} turns that into a frozen camelCase {@link BlockSample}.
 */
export const blockSampleSchema = z
  .strictObject({
    height: u64,
    epoch: u64,
    timestamp_usec: optional(u64),
    first_version: optional(u64),
    last_version: optional(u64),
    chain_id: optional(chainId),
    min_gas_unit_price: optional(u64),
    gas_unit_prices: txnArray,
    gas_used: optional(txnArray),
    block_gas_limit_reached: optional(z.boolean()),
    block_gas_limit: optional(u64),
    majority_use_case_fraction: optional(fraction),
  })
  .superRefine((b, ctx) => {
    if (b.gas_used != null && b.gas_used.length !== b.gas_unit_prices.length)
      ctx.addIssue({
        code: "custom",
        path: ["gas_used"],
        message: `must have as many entries as gas_unit_prices (${b.gas_unit_prices.length}), got ${b.gas_used.length}`,
      });
    if (b.first_version != null && b.last_version != null && b.first_version > b.last_version)
      ctx.addIssue({
        code: "custom",
        path: ["last_version"],
        message: `must not be below first_version (${b.first_version}), got ${b.last_version}`,
      });
  });

const validated = new WeakSet<object>();

/** How a field of the block format is written: what the byte scanner of NDJSON lines reads. */
export type BlockFieldKind = "u64" | "u64s" | "flag" | "fraction";

/** One field of the block format, as {@link blockSampleSchema} declares it. */
export interface BlockField {
  readonly name: string;
  readonly kind: BlockFieldKind;
  /** Whether it may be left out or `null`. */
  readonly nullable: boolean;
}

function fieldOf(name: string, schema: z.ZodType): BlockField {
  let inner = schema;
  let nullable = false;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable) {
    nullable = true;
    inner = inner.unwrap() as z.ZodType;
  }
  const kind: BlockFieldKind | undefined =
    inner === u64 || inner === chainId
      ? "u64"
      : inner === txnArray
        ? "u64s"
        : inner instanceof z.ZodBoolean
          ? "flag"
          : inner instanceof z.ZodNumber
            ? "fraction"
            : undefined;
  // A new kind of field must be taught to the scanner (src/sources/scanBlockLine.ts) first.
  if (kind === undefined)
    throw new BaseError(`block field ${name}: no scanner kind for its schema`);
  return Object.freeze({ name, kind, nullable });
}

/**
 * The fields of the block format, read from {@link blockSampleSchema}'s shape: the byte
 * scanner of NDJSON lines builds its field table from them, so it never falls out of step.
 */
export const BLOCK_FIELDS: readonly BlockField[] = Object.freeze(
  Object.entries(blockSampleSchema.shape).map(([name, schema]) => fieldOf(name, schema)),
);

/** The integer fields of the block format (the arrays check their entries themselves). */
const INTEGER_FIELDS = BLOCK_FIELDS.filter((f) => f.kind === "u64").map((f) => f.name);

/** Integer fields that JSON text wrote as `1e2`, `100.0` or `-0` (see `parseJsonLossless`). */
function integersWrittenOddly(input: unknown): ValidationIssue[] {
  if (typeof input !== "object" || input === null) return [];
  const issues = tooManyWrittenOddly(input);
  if (!hasIntegersWrittenOddly(input)) return issues;
  for (const key of INTEGER_FIELDS) {
    const written = integerWrittenAs(input, key);
    if (written !== undefined)
      issues.push({ path: key, message: writtenOddlyMessage(written), code: "custom" });
  }
  return issues;
}

/** Result of {@link safeParseBlockSample}. */
export type BlockSampleResult =
  | { ok: true; block: BlockSample }
  | { ok: false; issues: readonly ValidationIssue[] };

/**
 * Validate one block sample in the NDJSON wire shape without throwing. A value that is already
 * a validated {@link BlockSample} is returned as it is. At most 20 issues are listed (the rest
 * are counted in a last `too_many_issues` issue), and the cost is one pass over the input
 * whatever is wrong with it.
 *
 * @example
 * const r = safeParseBlockSample({ height: "7", epoch: "1", gas_unit_prices: ["-5"] });
 * if (!r.ok) console.log(r.issues[0]); // { path: "gas_unit_prices[0]", message: 'must not be negative (got "-5")', code: "custom" }
 */
export function safeParseBlockSample(input: unknown): BlockSampleResult {
  if (isBlockSample(input)) return { ok: true, block: input };
  // An object whose getters or proxy traps throw is a bad block like any other.
  try {
    return parseUnchecked(input);
  } catch (cause) {
    // Read it again field by field to name the one that throws (one more pass, on this rare
    // path only); a getter that threw once but not again leaves the block as a whole.
    const where = unreadableOptions(input);
    return {
      ok: false,
      issues: [unreadableIssue(where?.path ?? "", cause)],
    };
  }
}

/**
 * A copy of a validated {@link BlockSample} (`{ ...block }`, `structuredClone`) is not one: it
 * has the camelCase fields, not the wire's. Say so before the list of fields that follows.
 */
function copiedSample(input: unknown): ValidationIssue[] {
  if (typeof input !== "object" || input === null || !("gasUnitPrices" in input)) return [];
  return [
    {
      path: "",
      message:
        "looks like a copy of a validated BlockSample (camelCase fields such as gasUnitPrices): pass the BlockSample itself (copies are not recognised), or its wire form, JSON.parse(serializeBlockSample(block))",
      code: "custom",
    },
  ];
}

function parseUnchecked(input: unknown): BlockSampleResult {
  // Not an object at all (null, a number, an array, a line that is just "5"): one issue that
  // says what a block sample is, not zod's bare "expected object".
  if (typeof input !== "object" || input === null || Array.isArray(input))
    return {
      ok: false,
      issues: [
        {
          path: "",
          message: `must be an object of block fields (height, epoch, gas_unit_prices, ...), got ${describeValue(input)}`,
          code: "invalid_type",
        },
      ],
    };
  const odd = integersWrittenOddly(input);
  // Too many to locate: the line is rejected whatever else is wrong, and checking the rest
  // would turn millions of them into BigInts first.
  if (typeof input === "object" && input !== null && integersWrittenOddlyCount(input) !== undefined)
    return { ok: false, issues: capIssues(odd) };
  const r = blockSampleSchema.safeParse(input);
  if (!r.success)
    return {
      ok: false,
      issues: capIssues([...copiedSample(input), ...odd, ...issuesFromZod(r.error)]),
    };
  if (odd.length > 0) return { ok: false, issues: odd };
  const b = r.data;
  const block: BlockSample = Object.freeze({
    height: b.height,
    epoch: b.epoch,
    timestampUsec: b.timestamp_usec ?? undefined,
    firstVersion: b.first_version ?? undefined,
    lastVersion: b.last_version ?? undefined,
    chainId: b.chain_id ?? undefined,
    minGasUnitPrice: b.min_gas_unit_price ?? undefined,
    gasUnitPrices: Object.freeze(b.gas_unit_prices),
    gasUsed: b.gas_used ? Object.freeze(b.gas_used) : undefined,
    blockGasLimitReached: b.block_gas_limit_reached ?? undefined,
    blockGasLimit: b.block_gas_limit ?? undefined,
    majorityUseCaseFraction: b.majority_use_case_fraction ?? undefined,
  });
  validated.add(block);
  return { ok: true, block };
}

/**
 * Validate one block sample in the NDJSON wire shape.
 *
 * @throws {InvalidBlockSampleError} listing the problems with their field paths (at most 20, then a count).
 * @example
 * const block = parseBlockSample({ height: "1042", epoch: "7", gas_unit_prices: ["100", 150] });
 */
export function parseBlockSample(input: unknown): BlockSample {
  const r = safeParseBlockSample(input);
  if (!r.ok) throw new InvalidBlockSampleError(r.issues);
  return r.block;
}

/** Whether a value is a {@link BlockSample} returned by {@link parseBlockSample}. */
export function isBlockSample(value: unknown): value is BlockSample {
  return typeof value === "object" && value !== null && validated.has(value);
}

/** The NDJSON wire object of a block sample: u64 as decimal strings, absent fields omitted. */
export function toBlockSampleJson(block: BlockSample): Record<string, unknown> {
  const out: Record<string, unknown> = {
    height: block.height.toString(),
    epoch: block.epoch.toString(),
  };
  if (block.timestampUsec !== undefined) out.timestamp_usec = block.timestampUsec.toString();
  if (block.firstVersion !== undefined) out.first_version = block.firstVersion.toString();
  if (block.lastVersion !== undefined) out.last_version = block.lastVersion.toString();
  if (block.chainId !== undefined) out.chain_id = block.chainId;
  if (block.minGasUnitPrice !== undefined)
    out.min_gas_unit_price = block.minGasUnitPrice.toString();
  out.gas_unit_prices = block.gasUnitPrices.map(String);
  if (block.gasUsed !== undefined) out.gas_used = block.gasUsed.map(String);
  if (block.blockGasLimitReached !== undefined)
    out.block_gas_limit_reached = block.blockGasLimitReached;
  if (block.blockGasLimit !== undefined) out.block_gas_limit = block.blockGasLimit.toString();
  if (block.majorityUseCaseFraction !== undefined)
    out.majority_use_case_fraction = block.majorityUseCaseFraction;
  return out;
}

/**
 * One NDJSON line (no trailing newline) for a block sample.
 *
 * @example
 * serializeBlockSample(parseBlockSample({ height: "7", epoch: "1", gas_unit_prices: ["100"] }));
 * // '{"height":"7","epoch":"1","gas_unit_prices":["100"]}'
 */
export function serializeBlockSample(block: BlockSample): string {
  return JSON.stringify(toBlockSampleJson(block));
}
