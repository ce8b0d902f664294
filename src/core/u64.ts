import { describeValue } from "./describeValue.js";

/** Largest u64: 2^64 - 1. */
export const U64_MAX = (1n << 64n) - 1n;

/** Most digits of a u64 (2^64 - 1 has 20): longer strings are rejected before any parsing. */
export const U64_MAX_DIGITS = 20;

const DECIMAL = /^[0-9]+$/;

/** A u64 as code may give it: a JSON-safe integer, a decimal string or a BigInt. */
export type U64Input = number | string | bigint;

/** Result of {@link parseU64}: the value, or why it is not a u64. */
export type U64Result = { ok: true; value: bigint } | { ok: false; message: string };

/**
 * The u64 value of `input`, or `undefined` when it is not one: {@link parseU64}'s rules without
 * building a message, for the hot loops that only count bad entries.
 */
export function u64Value(input: unknown): bigint | undefined {
  if (typeof input === "string") {
    if (input.length === 0 || input.length > U64_MAX_DIGITS || !DECIMAL.test(input))
      return undefined;
    const v = BigInt(input);
    return v <= U64_MAX ? v : undefined;
  }
  if (typeof input === "number")
    return Number.isSafeInteger(input) && input >= 0 ? BigInt(input) : undefined;
  if (typeof input === "bigint") return input >= 0n && input <= U64_MAX ? input : undefined;
  return undefined;
}

/**
 * Parse an unsigned 64-bit integer given as a JSON integer, a decimal string or a BigInt.
 * Rejects negatives, fractions, hex, exponents in strings, empty strings, strings of more than
 * 20 characters (before any parsing: a long digit string costs no BigInt) and values above
 * 2^64-1. A bad value is echoed in at most 80 characters. (`1e2`, `100.0` and `-0` in JSON text
 * are numbers like 100 and 0 here: `parseJsonLossless` marks them, and the schemas reject them.)
 *
 * @example
 * parseU64("18446744073709551615") // { ok: true, value: 18446744073709551615n }
 * parseU64(-1) // { ok: false, message: "must not be negative (got -1)" }
 */
export function parseU64(input: unknown): U64Result {
  const value = u64Value(input);
  if (value !== undefined) return { ok: true, value };
  return { ok: false, message: u64Problem(input) };
}

/** Why `input` is not a u64 (only called for values {@link u64Value} rejects). */
function u64Problem(input: unknown): string {
  if (input === undefined) return "required";
  if (typeof input === "string") {
    if (input.length === 0) return "must be a decimal u64, got an empty string";
    // Only a short prefix is looked at: the cost of a message never grows with the input.
    const head = input.slice(0, U64_MAX_DIGITS + 2);
    const shown = describeValue(input);
    if (/^-[0-9]/.test(head) && (input.length > head.length || DECIMAL.test(head.slice(1))))
      return `must not be negative (got ${shown})`;
    if (input.length > U64_MAX_DIGITS && DECIMAL.test(head))
      return `must be a decimal u64 of at most ${U64_MAX_DIGITS} digits (got ${shown})`;
    if (input.length <= U64_MAX_DIGITS && DECIMAL.test(input))
      return `must be at most 2^64-1 (got ${input})`;
    return `must be a decimal u64 string of digits only (got ${shown})`;
  }
  if (typeof input === "number") {
    if (!Number.isFinite(input)) return `must be a finite integer (got ${input})`;
    if (!Number.isInteger(input)) return `must be an integer (got ${input})`;
    if (input < 0) return `must not be negative (got ${input})`;
    return `${input} is above 2^53 and lost precision as a JSON number; write it as a decimal string`;
  }
  if (typeof input === "bigint") {
    if (input < 0n) return `must not be negative (got ${describeValue(input)})`;
    return `must be at most 2^64-1 (got ${describeValue(input)})`;
  }
  return `must be a u64 as a JSON integer or decimal string (got ${describeValue(input)})`;
}
