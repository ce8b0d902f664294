/** Largest u64: 2^64 - 1. */
export const U64_MAX = (1n << 64n) - 1n;

const DECIMAL = /^[0-9]+$/;

/** Result of {@link parseU64}: the value, or why it is not a u64. */
export type U64Result = { ok: true; value: bigint } | { ok: false; message: string };

/**
 * Parse an unsigned 64-bit integer given as a JSON integer, a decimal string or a BigInt.
 * Rejects negatives, fractions, hex, exponents in strings, empty strings and values above 2^64-1.
 *
 * @example
 * parseU64("18446744073709551615") // { ok: true, value: 18446744073709551615n }
 * parseU64(-1) // { ok: false, message: "must not be negative (got -1)" }
 */
export function parseU64(input: unknown): U64Result {
  let value: bigint;
  if (input === undefined) return { ok: false, message: "required" };
  if (typeof input === "string") {
    if (input.length === 0)
      return { ok: false, message: "must be a decimal u64, got an empty string" };
    if (!DECIMAL.test(input)) {
      const shown = input.length > 40 ? `${input.slice(0, 40)}…` : input;
      if (input.startsWith("-") && DECIMAL.test(input.slice(1)))
        return { ok: false, message: `must not be negative (got "${shown}")` };
      return { ok: false, message: `must be a decimal u64 string of digits only (got "${shown}")` };
    }
    value = BigInt(input);
  } else if (typeof input === "number") {
    if (!Number.isFinite(input))
      return { ok: false, message: `must be a finite integer (got ${input})` };
    if (!Number.isInteger(input))
      return { ok: false, message: `must be an integer (got ${input})` };
    if (input < 0) return { ok: false, message: `must not be negative (got ${input})` };
    if (!Number.isSafeInteger(input))
      return {
        ok: false,
        message: `${input} is above 2^53 and lost precision as a JSON number; write it as a decimal string`,
      };
    return { ok: true, value: BigInt(input) };
  } else if (typeof input === "bigint") {
    value = input;
    if (value < 0n) return { ok: false, message: `must not be negative (got ${value})` };
  } else {
    return {
      ok: false,
      message: `must be a u64 as a JSON integer or decimal string (got ${describe(input)})`,
    };
  }
  if (value > U64_MAX) return { ok: false, message: `must be at most 2^64-1 (got ${value})` };
  return { ok: true, value };
}

/** Short description of a value's JSON type for error messages. */
export function describe(input: unknown): string {
  if (input === null) return "null";
  if (input === undefined) return "nothing";
  if (Array.isArray(input)) return "an array";
  return typeof input === "object" ? "an object" : typeof input;
}
