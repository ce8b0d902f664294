import { describeValue } from "./describeValue.js";
import type { ValidationIssue } from "./errors.js";

/**
 * The longest delay a timer takes, 2^31 - 1 ms (about 24.8 days): node, browsers and Bun fire a
 * longer `setTimeout` after 1 ms. Options that become timers are capped at it; longer waits are
 * made in steps.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * The issue of a server's numeric limit `key` (the node server's and the metrics port's), or
 * `undefined` when `value` is one: a whole number from `min`, and for a time (a key ending in
 * `Timeout`) at most {@link MAX_TIMER_MS}, since a longer one would fire after 1 ms.
 *
 * @example
 * limitIssue("closeTimeout", 2 ** 31, 0); // { path: "closeTimeout", message: "must be a whole number of ms from 0 to 2147483647 (got 2147483648)" }
 */
export function limitIssue(key: string, value: unknown, min: number): ValidationIssue | undefined {
  const time = key.endsWith("Timeout");
  const max = time ? MAX_TIMER_MS : Number.MAX_SAFE_INTEGER;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= min && value <= max)
    return undefined;
  return {
    path: key,
    message: time
      ? `must be a whole number of ms from ${min} to ${MAX_TIMER_MS} (got ${describeValue(value)})`
      : `must be a whole number >= ${min} (got ${describeValue(value)})`,
  };
}
