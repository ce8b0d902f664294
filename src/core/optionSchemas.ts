import * as z from "zod";
import type { U64Input } from "./blockSample.js";
import { describeValue } from "./describeValue.js";
import { u64Schema } from "./u64Schema.js";

// The zod pieces the option shapes are built from, so that a callback or a u64 is checked, and
// worded, the same in every option set (numeric ranges: rangeOptions.ts).

/**
 * The message of a whole-number option's issue: its bound when it is out of range (a `min` or
 * `max` check given without a message of its own, or a number beyond 2^53 - 1), else what it
 * must be. Without it, zod words every issue of the schema, a range included, with the type's
 * message ("must be a whole number of requests" for 65 where 64 is the most).
 * The value is echoed by `echo`: {@link describeNumber} where the option may come from a config
 * file (its integer past 2^53 - 1 arrives as a string of digits), `describeValue` where it comes
 * only from code or flags (a string there is a string the caller passed, not a number too large).
 *
 * @example
 * z.int({ error: wholeNumberError("blocks") }).max(64).safeParse(65); // "must be at most 64"
 */
export function wholeNumberError(
  what: string,
  echo: (input: unknown) => string = describeNumber,
): (issue: z.core.$ZodRawIssue) => string {
  return (issue) => {
    if (issue.code === "too_big") return `must be at most ${String(issue.maximum)}`;
    if (issue.code === "too_small") return `must be at least ${String(issue.minimum)}`;
    return `must be a whole number of ${what}, got ${echo(issue.input)}`;
  };
}

/** Digits of an integer shown in full in {@link describeNumber}; longer ones are cut. */
const MAX_DIGITS_SHOWN = 40;

/**
 * A value echoed in a numeric option's message. A config file's bare integer past 2^53 - 1
 * arrives as a string of its digits (`parseJsonLossless` keeps it exact, for the u64 fields):
 * said as the number it was written as, and too large (too small when negative), not as a
 * string the user never wrote. Only digits past 2^53 - 1 are read so (fewer are a string the
 * user wrote: `parseJsonLossless` leaves such an integer a number), and the echo is as short as
 * `describeValue`'s: a file's integer of a million digits is cut, with its count of digits.
 *
 * @example
 * describeNumber("99999999999999999999"); // "99999999999999999999, too large"
 */
export function describeNumber(input: unknown): string {
  if (typeof input !== "string" || !/^-?[1-9][0-9]{15,}$/.test(input)) return describeValue(input);
  const negative = input.startsWith("-");
  const digits = negative ? input.slice(1) : input;
  if (digits.length === 16 && digits <= String(Number.MAX_SAFE_INTEGER))
    return describeValue(input);
  const shown =
    digits.length <= MAX_DIGITS_SHOWN
      ? input
      : `${negative ? "-" : ""}${digits.slice(0, 20)}… (${digits.length} digits)`;
  return `${shown}, too ${negative ? "small" : "large"}`;
}

/**
 * A function option (`what` ends the message `must be a function ...`); `fallback` is what a
 * left-out one resolves to.
 *
 * @example
 * const shape = { now: fnOption<() => number>("returning ms", Date.now) };
 */
export const fnOption = <T>(what: string, fallback: T) =>
  z
    .custom<T>((v) => typeof v === "function", `must be a function ${what}`)
    .default(() => fallback as never); // (zod's default type does not narrow a generic T)

/**
 * A u64 option: takes what `parseU64` takes (number, decimal string or BigInt), gives a BigInt.
 *
 * @example
 * const shape = { startHeight: u64Option.optional() };
 */
export const u64Option = u64Schema as unknown as z.ZodType<bigint, U64Input>;
