import * as z from "zod";
import { notChecked } from "../../core/createIssueList.js";
import { describeValue } from "../../core/describeValue.js";
import { MAX_ISSUES, type ValidationIssue } from "../../core/errors.js";
import { formatPath } from "../../core/readOptions.js";
import { issuesFromZod } from "../../core/zodIssues.js";
import { contractOf } from "./entryFunction.js";
import { type Parsed, parseWith, u64String } from "./schemas.js";

/** What the source keeps of one transaction (everything else is dropped at once). */
export type NodeTxn =
  | {
      readonly type: "block_metadata_transaction";
      readonly version: bigint;
      readonly epoch: bigint;
    }
  | { readonly type: "genesis_transaction"; readonly version: bigint }
  | {
      readonly type: "user_transaction";
      readonly version: bigint;
      readonly gasUnitPrice: bigint;
      readonly gasUsed: bigint;
      /** Address of the contract called through an entry function (normalised), if any. */
      readonly contract: string | undefined;
    }
  | {
      readonly type: "block_epilogue_transaction";
      readonly version: bigint;
      /** Either limit flag of `block_end_info` was true; `undefined` without end info. */
      readonly limitReached: boolean | undefined;
    }
  | { readonly type: "other"; readonly version: bigint };

/** A block as `GET /v1/blocks/by_height/{h}?with_transactions=true` returns it. */
export interface NodeBlock {
  readonly height: bigint;
  readonly timestampUsec: bigint;
  readonly firstVersion: bigint;
  /** Inclusive. */
  readonly lastVersion: bigint;
  /** The inline transactions: a prefix of the block's, possibly cut short by the node. */
  readonly transactions: NodeTxn[];
}

const base = z.object({ type: z.string(), version: u64String });
const metadata = z.object({ epoch: u64String });
const user = z.object({
  gas_unit_price: u64String,
  gas_used: u64String,
  payload: z.object({
    type: z.string(),
    function: z.unknown().optional(),
    decrypted_payload: z.unknown().optional(),
  }),
});
/**
 * The epilogue's two counters, which the source does not read: a JSON integer as nodes write
 * them today, or a u64 string as the API writes every other u64 (a node that wrote them so
 * would otherwise have every block refused for fields nothing uses). A JSON integer may be any
 * u64, past 2^53 too (`z.int()` takes safe integers only, and refused such a block for good):
 * `JSON.parse` rounds it, which matters to nothing here.
 */
const notCounter = (iss: { input: unknown }) =>
  `must be a whole number >= 0, as a JSON number or a u64 string (got ${describeValue(iss.input)})`;
const counter = z
  .union(
    [
      z
        .number({ error: notCounter })
        .min(0, { error: notCounter })
        .max(2 ** 64, { error: notCounter })
        .refine(Number.isInteger, { error: notCounter }),
      u64String,
    ],
    { error: notCounter },
  )
  .optional();
const epilogue = z.object({
  block_end_info: z
    .object({
      block_gas_limit_reached: z.boolean(),
      block_output_limit_reached: z.boolean(),
      block_effective_block_gas_units: counter,
      block_approx_output_size: counter,
    })
    .nullish(),
});

/**
 * Parse one transaction, the `index`th of the list at `parent`; issues carry `parent[index]` as
 * their prefix (built only when there is an issue). Unknown types become `other`.
 */
export function parseTransaction(
  value: unknown,
  parent: readonly PropertyKey[],
  index: number,
): Parsed<NodeTxn> {
  const b = parseAt(base, value, parent, index);
  if (!b.ok) return b;
  const type = b.value.type;
  const version = BigInt(b.value.version);
  switch (type) {
    case "block_metadata_transaction": {
      const m = parseAt(metadata, value, parent, index);
      return m.ok ? { ok: true, value: { type, version, epoch: BigInt(m.value.epoch) } } : m;
    }
    case "genesis_transaction":
      return { ok: true, value: { type, version } };
    case "user_transaction": {
      const u = parseAt(user, value, parent, index);
      if (!u.ok) return u;
      let contract: string | undefined;
      if (u.value.payload.type === "entry_function_payload") {
        const called = contractOf(u.value.payload.function);
        if (!called.ok) return issue([...parent, index, "payload", "function"], called.message);
        contract = called.address;
      } else if (u.value.payload.type === "encrypted_transaction_payload")
        contract = decryptedContract(u.value.payload.decrypted_payload);
      return {
        ok: true,
        value: {
          type,
          version,
          gasUnitPrice: BigInt(u.value.gas_unit_price),
          gasUsed: BigInt(u.value.gas_used),
          contract,
        },
      };
    }
    case "block_epilogue_transaction": {
      const e = parseAt(epilogue, value, parent, index);
      if (!e.ok) return e;
      const info = e.value.block_end_info;
      const limitReached = info
        ? info.block_gas_limit_reached || info.block_output_limit_reached
        : undefined;
      return { ok: true, value: { type, version, limitReached } };
    }
    default:
      return { ok: true, value: { type: "other", version } };
  }
}

/**
 * The contract an encrypted transaction called, once the block decrypted it: the node counts its
 * use case by the decrypted entry function's module address, as for a plain entry function. A
 * payload still encrypted, or decrypted to anything else, calls no contract (the node's
 * `Others`); nothing in it refuses the block, since nothing else of it is read.
 */
function decryptedContract(payload: unknown): string | undefined {
  if (typeof payload !== "object" || payload === null) return undefined;
  const p = payload as { type?: unknown; function?: unknown };
  if (p.type !== "entry_function_payload") return undefined;
  const called = contractOf(p.function);
  return called.ok ? called.address : undefined;
}

/** Run a zod schema on `parent[index]`; the path array is built only for an error. */
function parseAt<S extends z.ZodType>(
  schema: S,
  value: unknown,
  parent: readonly PropertyKey[],
  index: number,
): Parsed<z.output<S>> {
  const r = schema.safeParse(value);
  return r.success
    ? { ok: true, value: r.data }
    : { ok: false, issues: issuesFromZod(r.error, [...parent, index]) };
}

function issue(path: readonly PropertyKey[], message: string): Parsed<never> {
  return { ok: false, issues: [{ path: formatPath(path), message }] };
}

/**
 * Parse a run of transactions that must start at version `start`, with consecutive versions,
 * none above `last` (inclusive); when `start` is the block's first version, the first one must
 * be the block metadata (or genesis) transaction, which carries the epoch. A version gap is
 * reported once, at the first transaction off the run: every later one is off too. Checking
 * stops after 20 issues (a last `too_many_issues` issue says how many were not checked).
 */
export function parseTransactionRun(
  list: readonly unknown[],
  start: bigint,
  last: bigint,
  isBlockStart: boolean,
  path: readonly PropertyKey[],
): Parsed<NodeTxn[]> {
  const out: NodeTxn[] = [];
  const issues: ValidationIssue[] = [];
  for (let i = 0; i < list.length; i++) {
    const r = parseTransaction(list[i], path, i);
    if (!r.ok) {
      for (const found of r.issues) if (issues.length < MAX_ISSUES) issues.push(found);
      // Stop at the limit: checking the rest would cost as much as listing them.
      if (issues.length >= MAX_ISSUES) {
        if (i + 1 < list.length) issues.push(notChecked(list.length - i - 1, "transactions"));
        break;
      }
      continue;
    }
    const expected = start + BigInt(i);
    if (r.value.version !== expected) {
      issues.push({
        path: formatPath([...path, i, "version"]),
        message: `must be ${expected} (versions run on without gaps), got ${r.value.version}`,
      });
      break;
    }
    if (expected > last) break; // past the block's last version: not this block's
    // A block is one metadata (or genesis) transaction, first, and at most one epilogue, last:
    // another inside the range means the block's last_version runs into the next block, whose
    // transactions would be counted twice (here and in their own block).
    const type = r.value.type;
    const starts = type === "block_metadata_transaction" || type === "genesis_transaction";
    if (
      (starts && !(isBlockStart && i === 0)) ||
      (type === "block_epilogue_transaction" && expected !== last)
    ) {
      issues.push({
        path: formatPath([...path, i, "type"]),
        message: starts
          ? `must not be ${type} at version ${expected}: it starts another block, so the block's last_version (${last}) runs into the next block`
          : `must not be block_epilogue_transaction at version ${expected}: it ends the block, whose last_version is ${last}`,
      });
      break;
    }
    out.push(r.value);
  }
  if (issues.length === 0 && isBlockStart && out.length > 0) {
    const first = out[0]!;
    if (first.type !== "block_metadata_transaction" && first.type !== "genesis_transaction")
      issues.push({
        path: formatPath([...path, 0, "type"]),
        message:
          "must be block_metadata_transaction (a block's first transaction carries its epoch)",
      });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: out };
}

const blockSchema = z.object({
  block_height: u64String,
  block_hash: z.string(),
  block_timestamp: u64String,
  first_version: u64String,
  last_version: u64String,
  transactions: z.array(z.unknown()),
});

/** Default of the source's `maxBlockTransactions`: 10 times the largest Aptos block. */
export const DEFAULT_MAX_BLOCK_TRANSACTIONS = 100_000;

/**
 * Parse a block fetched by height; its height must be the one asked for, and it may span at
 * most `maxTransactions` versions (a block claiming more would make the source page through
 * them all).
 */
export function parseBlock(
  value: unknown,
  height: bigint,
  maxTransactions = DEFAULT_MAX_BLOCK_TRANSACTIONS,
): Parsed<NodeBlock> {
  const r = parseWith(blockSchema, value);
  if (!r.ok) return r;
  const v = r.value;
  const firstVersion = BigInt(v.first_version);
  const lastVersion = BigInt(v.last_version);
  if (BigInt(v.block_height) !== height)
    return issue(
      ["block_height"],
      `must be the height asked for (${height}), got ${v.block_height}`,
    );
  if (firstVersion > lastVersion)
    return issue(
      ["last_version"],
      `must not be below first_version (${firstVersion}), got ${lastVersion}`,
    );
  const span = lastVersion - firstVersion + 1n;
  if (span > BigInt(maxTransactions))
    return issue(
      ["last_version"],
      `must be within ${maxTransactions} versions of first_version (${firstVersion}: maxBlockTransactions), got ${lastVersion}, a block of ${span} transactions`,
    );
  const txns = parseTransactionRun(v.transactions, firstVersion, lastVersion, true, [
    "transactions",
  ]);
  if (!txns.ok) return txns;
  return {
    ok: true,
    value: {
      height,
      timestampUsec: BigInt(v.block_timestamp),
      firstVersion,
      lastVersion,
      transactions: txns.value,
    },
  };
}

/**
 * Parse a `GET /v1/transactions?start=&limit=` page that continues a block at `start`: it must
 * hold at least one transaction, starting exactly at `start`.
 */
export function parseTransactionsPage(
  value: unknown,
  start: bigint,
  block: NodeBlock,
): Parsed<NodeTxn[]> {
  if (!Array.isArray(value)) return issue([], "must be an array of transactions");
  if (value.length === 0)
    return issue([], `must hold the transaction at version ${start}, got an empty list`);
  return parseTransactionRun(value, start, block.lastVersion, start === block.firstVersion, []);
}
