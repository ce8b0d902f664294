import { describeValue, shorten, thrownText } from "./describeValue.js";
import { InvalidArgumentError } from "./errors.js";

/**
 * `now()` of a user-given clock, checked: a number of ms within `[min, max]` (any finite number
 * by default). `whose` names the clock in the error ("the engine's clock").
 *
 * @throws {InvalidArgumentError} (path `now`) when it throws or returns anything else.
 * @example
 * readClock(Date.now, "the engine's clock"); // 1700000000123
 */
export function readClock(
  now: () => number,
  whose: string,
  min = -Number.MAX_VALUE,
  max = Number.MAX_VALUE,
): number {
  let t: unknown;
  try {
    t = now();
  } catch (cause) {
    throw new InvalidArgumentError([
      { path: "now", message: `${whose} threw: ${shorten(thrownText(cause), 120)}` },
    ]);
  }
  if (typeof t !== "number" || !(t >= min && t <= max)) {
    const range =
      min === -Number.MAX_VALUE && max === Number.MAX_VALUE
        ? "a finite number of ms"
        : `a number of ms from ${min} to ${max}`;
    throw new InvalidArgumentError([
      { path: "now", message: `${whose} must return ${range}, got ${describeValue(t)}` },
    ]);
  }
  return t;
}
