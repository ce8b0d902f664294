import * as z from "zod";
import { describeValue } from "./describeValue.js";

// The numeric options of the sources and sinks: every message, whatever the check that failed (not a
// number, a fraction, below the minimum, above the maximum), says the whole range and echoes the
// value (in at most 80 characters), so `concurrency: 65` is not told it is not a whole number.
// These options come from code and flags, never from a config file's `parseJsonLossless`: a
// string of digits here is a string, echoed as one (not `describeNumber`'s "too large").

type Message = (issue: { input?: unknown }) => string;

const rangeMessage =
  (what: string, min: number, max: number | undefined, why: string): Message =>
  (issue) =>
    `must be ${what} from ${min} to ${max ?? "2^53-1"}${why}, got ${describeValue(issue.input)}`;

/**
 * A whole number of `what` (`requests`, `blocks`, ...) from `min` to `max`; without `max`, up to
 * 2^53-1 (the largest integer a number holds exactly). `why` follows the range in the message.
 *
 * @example
 * const shape = { concurrency: wholeRange("requests", 1, 64).default(4) };
 * // concurrency: 65 -> "must be a whole number of requests from 1 to 64, got 65"
 */
export function wholeRange(what: string, min: number, max?: number, why = "") {
  const error = rangeMessage(`a whole number of ${what}`, min, max, why);
  const schema = z.int({ error }).min(min, { error });
  return max === undefined ? schema : schema.max(max, { error });
}

/**
 * A number of milliseconds from `min` to `max` (fractions allowed).
 *
 * @example
 * const shape = { timeoutMs: msRange(1, 600_000).default(10_000) };
 * // timeoutMs: 0 -> "must be a number of milliseconds from 1 to 600000, got 0"
 */
export function msRange(min: number, max: number) {
  const error = rangeMessage("a number of milliseconds", min, max, "");
  return z.number({ error }).min(min, { error }).max(max, { error });
}
