import * as z from "zod";
import { describeValue } from "../../core/describeValue.js";
import { MAX_ISSUES, type ValidationIssue } from "../../core/errors.js";
import { parseU64, U64_MAX } from "../../core/u64.js";
import { issuesFromZod, moreParams } from "../../core/zodIssues.js";

/** Outcome of parsing one response body. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

function u64Message(input: unknown): string {
  if (input === undefined) return "required";
  // A JSON number past 2^53 was rounded by JSON.parse: its digits are not the node's. (A
  // negative one is no u64 whatever its digits, nor is `1e400`, read as Infinity: described as
  // they are, below.)
  if (typeof input === "number" && Number.isFinite(input) && input > Number.MAX_SAFE_INTEGER)
    return `must be a u64 as a decimal string (got a JSON number, about ${input.toPrecision(6)}, beyond 2^53 and so not exact)`;
  if (typeof input !== "string")
    return `must be a u64 as a decimal string (got ${describeValue(input)})`;
  const r = parseU64(input);
  return r.ok ? `must be at most 2^64-1 (got ${input})` : r.message;
}

/**
 * A u64 as the node writes it: a JSON string of 1 to 20 decimal digits (never a JSON number),
 * at most 2^64-1; a longer string is rejected without being parsed, and echoed shortened. The output stays a string (`BigInt()` it where used): zod parses objects made only of
 * checks several times faster than objects holding transforms, and a block has thousands.
 */
export const u64String = z
  .string({ error: (issue) => u64Message(issue.input) })
  .regex(/^[0-9]{1,20}$/, { error: (issue) => u64Message(issue.input) })
  // zod runs this check even when the pattern failed: only a 20-digit string is parsed.
  .refine((v) => !/^[0-9]{20}$/.test(v) || BigInt(v) <= U64_MAX, {
    error: (issue) => u64Message(issue.input),
  });

/** Run a zod schema, turning its error into the project's issue list. */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  prefix: readonly PropertyKey[] = [],
): Parsed<z.output<S>> {
  const r = schema.safeParse(value);
  return r.success
    ? { ok: true, value: r.data }
    : { ok: false, issues: issuesFromZod(r.error, prefix) };
}

const ledgerInfoSchema = z.object({
  chain_id: z
    .int({
      error: (iss) =>
        `must be a chain id 0..255 as a JSON number (got ${describeValue(iss.input)})`,
    })
    .min(0, "must be a chain id 0..255")
    .max(255, "must be a chain id 0..255"),
  epoch: u64String,
  ledger_version: u64String,
  oldest_ledger_version: u64String,
  ledger_timestamp: u64String,
  block_height: u64String,
  oldest_block_height: u64String,
  node_role: z.string().optional(),
  git_hash: z.string().nullish(),
});

/** What the source uses of `GET /v1` (the other fields are checked, not kept). */
export interface LedgerInfo {
  readonly chainId: number;
  /** The tip. */
  readonly blockHeight: bigint;
  readonly oldestBlockHeight: bigint;
  /** The tip's timestamp (µs since the Unix epoch, chain time). */
  readonly timestampUsec: bigint;
}

/**
 * Heights a skip past a pruned height (410) may always go beyond the highest height known to
 * exist (the tip at start, or a block read): the engine's default `maxHeightJump`, more than a
 * day of a chain making 10 blocks a second.
 */
export const MAX_SKIP_BEYOND_TIP = 1_000_000n;

/**
 * Heights a chain is taken to make per second at most (Aptos makes about 5 to 10): past
 * {@link MAX_SKIP_BEYOND_TIP}, a skip may go this much further per second since the highest
 * height known was learnt, so a node that really pruned heights made during a long outage is
 * followed, while an oldest height further ahead is a node that is wrong: skipping there would
 * wait forever for heights nobody made.
 */
export const MAX_HEIGHTS_PER_SECOND = 1_000n;

/**
 * The highest oldest height a skip past a 410 may go to: `known` (the highest height known to
 * exist) plus {@link MAX_SKIP_BEYOND_TIP}, or plus {@link MAX_HEIGHTS_PER_SECOND} for each
 * second since `known` was learnt when that is more.
 *
 * @example
 * skipLimit(500n, 0); // 1000500n
 */
export function skipLimit(known: bigint, elapsedMs: number): bigint {
  const seconds = BigInt(Math.ceil(Math.max(0, elapsedMs) / 1000));
  const grown = seconds * MAX_HEIGHTS_PER_SECOND;
  return known + (grown > MAX_SKIP_BEYOND_TIP ? grown : MAX_SKIP_BEYOND_TIP);
}

/**
 * Most a ledger info's time may run ahead of the local clock: a day, far beyond any clock skew.
 * Blocks are dated back from the tip's time (staleness counts from when a block was made), so a
 * node claiming a time 10 years ahead made every fresh block read as 10 years old: the server
 * answered 503 while blocks kept coming.
 */
const MAX_LEDGER_AHEAD_MS = 86_400_000;

/** `ms` in the largest whole unit that reads well (`10 years`, `3 days`, `26 hours`). */
function describeDuration(ms: number): string {
  const hours = ms / 3_600_000;
  if (hours < 48) return `${Math.floor(hours)} hours`;
  const days = hours / 24;
  if (days < 730) return `${Math.floor(days)} days`;
  return `${Math.floor(days / 365.25)} years`;
}

/**
 * Parse the ledger info. With `expectedChainId`, a different chain id is an issue: the URL now
 * leads to another network (e.g. a load balancer switched), and its blocks must not be mixed in.
 * With `skipTo` (the highest oldest height a skip may go to, {@link skipLimit}), an
 * `oldest_block_height` above it is an issue: the source would skip to it. With `nowMs` (the
 * local wall clock), a `ledger_timestamp` more than a day ahead of it is an issue. With
 * `headerChainId` (the answer's `X-Aptos-Chain-Id`), a body naming another chain is an issue.
 */
export function parseLedgerInfo(
  value: unknown,
  expectedChainId?: number,
  skipTo?: bigint,
  nowMs?: number,
  headerChainId?: number,
): Parsed<LedgerInfo> {
  const r = parseWith(ledgerInfoSchema, value);
  if (!r.ok) return r;
  const v = r.value;
  const issues: ValidationIssue[] = [];
  if (headerChainId !== undefined && v.chain_id !== headerChainId)
    issues.push({
      path: "chain_id",
      message: `is ${v.chain_id}, but the answer's X-Aptos-Chain-Id header is ${headerChainId}: the answer names two chains`,
    });
  if (expectedChainId !== undefined && v.chain_id !== expectedChainId)
    issues.push({
      path: "chain_id",
      message: `is ${v.chain_id}, but the source started on chain ${expectedChainId}`,
    });
  const tip = BigInt(v.block_height);
  const oldest = BigInt(v.oldest_block_height);
  if (oldest > tip)
    issues.push({
      path: "oldest_block_height",
      message: `must not be above block_height (${v.block_height}), got ${v.oldest_block_height}`,
    });
  if (skipTo !== undefined && oldest > skipTo)
    issues.push({
      path: "oldest_block_height",
      message: `must be at most ${skipTo} to skip pruned heights to (the highest height known to exist, plus ${MAX_SKIP_BEYOND_TIP} or ${MAX_HEIGHTS_PER_SECOND} a second since it was learnt), got ${v.oldest_block_height}: a node cannot have pruned heights not made yet`,
    });
  const ahead = nowMs === undefined ? 0 : Number(BigInt(v.ledger_timestamp) / 1000n) - nowMs;
  if (ahead > MAX_LEDGER_AHEAD_MS)
    issues.push({
      path: "ledger_timestamp",
      message: `is ${describeDuration(ahead)} ahead of this machine's clock (more than a day): a chain's time cannot run ahead of the world's (is this machine's clock wrong?), and blocks dated from it would all read as that old, got ${v.ledger_timestamp}`,
    });
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    value: {
      chainId: v.chain_id,
      blockHeight: tip,
      oldestBlockHeight: oldest,
      timestampUsec: BigInt(v.ledger_timestamp),
    },
  };
}

/** The gas schedule entry holding the minimum gas unit price. */
export const MIN_PRICE_KEY = "txn.min_price_per_gas_unit";
/** The gas schedule entry holding the maximum gas unit price a transaction may bid. */
export const MAX_PRICE_KEY = "txn.max_price_per_gas_unit";

/**
 * The gas schedule's entries, `{ key, val }` strings each: checked by one plain loop (a schedule
 * holds hundreds of entries, a bad answer millions), messages for the first 20 bad ones only.
 */
const entriesSchema = z.unknown().transform((v, ctx) => {
  if (!Array.isArray(v)) {
    ctx.addIssue({
      code: "custom",
      message: `must be an array of entries (got ${describeValue(v)})`,
    });
    return z.NEVER;
  }
  let bad = 0;
  for (let i = 0; i < v.length; i++) {
    const e = v[i] as { key?: unknown; val?: unknown } | null;
    if (
      typeof e === "object" &&
      e !== null &&
      typeof e.key === "string" &&
      typeof e.val === "string"
    )
      continue;
    if (++bad > MAX_ISSUES) continue;
    ctx.addIssue({
      code: "custom",
      path: [i],
      message: `must be an object { key, val } of two strings (got ${describeValue(e)})`,
    });
  }
  if (bad > MAX_ISSUES)
    ctx.addIssue({
      code: "custom",
      message: `and ${bad - MAX_ISSUES} more bad entries`,
      params: moreParams(bad - MAX_ISSUES),
    });
  return bad > 0 ? z.NEVER : (v as { key: string; val: string }[]);
});

const gasScheduleSchema = z.object({
  type: z.string().optional(),
  data: z.object({ feature_version: u64String, entries: entriesSchema }),
});

/**
 * Parse `0x1::gas_schedule::GasScheduleV2` and return its minimum gas unit price. The schedule
 * must have both `txn.min_price_per_gas_unit` and `txn.max_price_per_gas_unit` (every Aptos
 * schedule has), and the minimum must not be above the maximum: such a minimum would be every
 * tier's price for the whole epoch, and a schedule that leaves its maximum out cannot be checked
 * (an audit's fake node served 2^64 − 1 that way).
 */
export function parseMinGasUnitPrice(value: unknown): Parsed<bigint> {
  const r = parseWith(gasScheduleSchema, value);
  if (!r.ok) return r;
  const entries = r.value.data.entries;
  const entry = (key: string) => {
    const at = entries.findIndex((e) => e.key === key);
    if (at === -1)
      return {
        at,
        parsed: {
          ok: false as const,
          issues: [{ path: "data.entries", message: `has no "${key}" entry` }],
        },
      };
    return { at, parsed: parseWith(u64String, entries[at]!.val, ["data", "entries", at, "val"]) };
  };
  const low = entry(MIN_PRICE_KEY);
  if (!low.parsed.ok) return low.parsed;
  const high = entry(MAX_PRICE_KEY);
  if (!high.parsed.ok) return high.parsed;
  const min = BigInt(low.parsed.value);
  if (min > BigInt(high.parsed.value))
    return {
      ok: false,
      issues: [
        {
          path: `data.entries[${low.at}].val`,
          message: `must not exceed ${MAX_PRICE_KEY} (${high.parsed.value}) of the same schedule, got ${min}`,
        },
      ],
    };
  return { ok: true, value: min };
}
