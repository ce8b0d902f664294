import { describeValue } from "../core/describeValue.js";
import { InvalidArgumentError } from "../core/errors.js";

/**
 * The error an adapter throws when it is called with something that is not its framework's
 * request (a fetch handler called with `null`, say): the same `InvalidArgumentError` as the
 * handler's own, so adapters need nothing from the core.
 *
 * @example
 * throw notARequest("a fetch Request (url, method and Headers)", request);
 */
export function notARequest(expected: string, got: unknown): InvalidArgumentError {
  return new InvalidArgumentError([
    { path: "request", message: `must be ${expected} (got ${describeValue(got)})` },
  ]);
}
