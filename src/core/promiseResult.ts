/**
 * Whether a strategy method returned a promise (or any thenable) instead of a value. Strategy
 * methods are synchronous: the engine computes the estimate once per block, before it answers.
 * A promise returned is not awaited; its rejection is handled here (left alone it would be
 * an unhandled rejection, which ends a Node process), so the caller can report the mistake
 * as a `StrategyError` and keep running.
 *
 * @example
 * if (isPromiseResult(strategy.ingest(block))) return failed("ingest: it returned a promise");
 */
export function isPromiseResult(value: unknown): boolean {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  let then: unknown;
  try {
    then = (value as { then?: unknown }).then;
  } catch {
    return false;
  }
  if (typeof then !== "function") return false;
  try {
    Reflect.apply(then, value, [undefined, () => undefined]);
  } catch {
    // A thenable whose `then` throws cannot reject later: nothing to handle.
  }
  return true;
}

/** Why a strategy method that returned a promise failed (see {@link isPromiseResult}). */
export const PROMISE_RESULT_DETAILS =
  "it returned a promise; strategy methods must be synchronous (not async), and the promise was ignored";
