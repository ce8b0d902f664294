/** A per-request abort signal: aborts with its parent or after a timeout. */
export interface RequestSignal {
  readonly signal: AbortSignal;
  /** Whether the timeout (not the parent) aborted it. */
  timedOut(): boolean;
  /** Clear the timer and detach from the parent. Call it when the request is done. */
  dispose(): void;
}

/**
 * A signal that aborts when `parent` does or after `timeoutMs`. Unlike
 * `AbortSignal.any([parent, AbortSignal.timeout(ms)])` it leaves nothing behind once disposed:
 * no timer running on, no entry kept by a long-lived parent (a source makes millions of
 * requests over its life).
 *
 * @example
 * const r = requestSignal(signal, 10_000);
 * try { await fetch(url, { signal: r.signal }) } finally { r.dispose() }
 */
export function requestSignal(parent: AbortSignal, timeoutMs: number): RequestSignal {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(parent.reason);
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, "TimeoutError"));
  }, timeoutMs);
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose() {
      clearTimeout(timer);
      parent.removeEventListener("abort", onAbort);
    },
  };
}
