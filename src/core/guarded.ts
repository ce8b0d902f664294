/**
 * An application's callback (`onEvent`, `onInvalidLine`, ...) made safe to call from a source:
 * what it throws is dropped, so a failing logger never stops the feed. `undefined` gives a
 * callback that does nothing.
 *
 * @example
 * const onEvent = guarded(options.onEvent);
 * onEvent({ type: "connected" }); // never throws
 */
export function guarded<E>(callback: ((event: E) => void) | undefined): (event: E) => void {
  return (event) => {
    try {
      callback?.(event);
    } catch {
      // The callback's own failure: the source goes on.
    }
  };
}
