import * as z from "zod";
import { describeValue } from "./describeValue.js";
import type { ValidationIssue } from "./errors.js";
import { MAX_ISSUES } from "./errors.js";
import {
  hasIntegersWrittenOddly,
  integersWrittenOddly,
  integerWrittenAs,
  MAX_LOCATED,
} from "./parseJsonLossless.js";
import { parseU64, U64_MAX, type U64Input, u64Value } from "./u64.js";
import { moreParams } from "./zodIssues.js";

/**
 * zod schema of a u64 given as a JSON integer, a decimal string or a BigInt; outputs a BigInt,
 * with {@link parseU64}'s messages. Used by every schema that takes u64 input.
 *
 * @example
 * z.object({ minGasUnitPrice: u64Schema }).parse({ minGasUnitPrice: "150" }); // { minGasUnitPrice: 150n }
 */
export const u64Schema = z.custom<U64Input>().transform((v: unknown, ctx) => {
  const r = parseU64(v);
  if (r.ok) return r.value;
  ctx.addIssue({ code: "custom", message: r.message });
  return z.NEVER;
});

/**
 * The message for an integer that JSON text wrote with a fraction, exponent or minus sign
 * (`1e2`, `100.0`, `-0`), where only digits are accepted.
 *
 * @example
 * writtenOddlyMessage("1e2"); // "must be written with digits only, without a fraction, exponent or sign (got 1e2)"
 */
export function writtenOddlyMessage(text: string): string {
  return `must be written with digits only, without a fraction, exponent or sign (got ${text})`;
}

/**
 * The issue of a whole JSON text (`root`, as `parseJsonLossless` returned it) holding more than
 * 1000 integers written with a fraction, exponent or sign: only one field of a block takes a
 * fraction, so most of them are where an integer belongs.
 */
export function tooManyWrittenOddly(root: object): ValidationIssue[] {
  const count = integersWrittenOddly(root);
  if (count === undefined) return [];
  return [
    {
      path: "",
      message: `holds ${count} integers written with a fraction, exponent or sign (such as 1e2, 100.0 or -0), more than ${MAX_LOCATED}; integers are written with digits only`,
      code: "custom",
    },
  ];
}

/**
 * zod schema of an array of u64 (outputs `bigint[]`): one loop instead of one schema per
 * element, issues at `[i]`. At most {@link MAX_ISSUES} entries get a message; the rest are only
 * counted (one summary issue, see `moreParams`), so an array of millions of bad entries costs
 * a pass over it and no more. Integers that `parseJsonLossless` read as `1e2`, `100.0` or `-0`
 * are rejected.
 *
 * @example
 * z.object({ prices: u64ArraySchema }).parse({ prices: ["100", 150] }); // { prices: [100n, 150n] }
 */
export const u64ArraySchema = z.custom<readonly U64Input[]>().transform((v: unknown, ctx) => {
  if (!Array.isArray(v)) {
    const message =
      v === undefined ? "required" : `must be an array of u64 (got ${describeValue(v)})`;
    ctx.addIssue({ code: "custom", message });
    return z.NEVER;
  }
  const oddly = hasIntegersWrittenOddly(v);
  // Filled while every entry is good; dropped at the first bad one (only counting goes on).
  let out: bigint[] | undefined = [];
  let bad = 0;
  for (let i = 0; i < v.length; i++) {
    const item = v[i];
    // A hole ends the walk: JSON cannot write one, but a structured clone (`postMessage`,
    // advanced-serialization IPC) carries a length of 2^32 − 1 in a few bytes, and walking
    // that would block for minutes. Stopping here keeps the cost to the entries there.
    if (item === undefined && !(i in v)) {
      ctx.addIssue({
        code: "custom",
        message: `must not have holes: a sparse array of length ${v.length}, no entry here`,
        path: [i],
      });
      return z.NEVER;
    }
    // Fast path for the common shapes before the general check.
    let value = typeof item === "bigint" && item >= 0n && item <= U64_MAX ? item : u64Value(item);
    let written: string | undefined;
    if (oddly && typeof item === "number") {
      written = integerWrittenAs(v, i);
      if (written !== undefined) value = undefined;
    }
    if (value !== undefined) {
      out?.push(value);
      continue;
    }
    out = undefined;
    if (++bad > MAX_ISSUES) continue;
    let message: string;
    if (written !== undefined) message = writtenOddlyMessage(written);
    else {
      const r = parseU64(item);
      message = r.ok ? "" : r.message;
    }
    ctx.addIssue({ code: "custom", message, path: [i] });
  }
  if (bad > MAX_ISSUES)
    ctx.addIssue({
      code: "custom",
      message: `and ${bad - MAX_ISSUES} more entries that are not u64`,
      params: moreParams(bad - MAX_ISSUES),
    });
  return out ?? z.NEVER;
});
