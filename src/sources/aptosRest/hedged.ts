/** One try of a hedged operation: gets its own signal and reports when it has a first answer. */
export type HedgeRun<R> = (signal: AbortSignal, onHeaders: () => void) => Promise<R>;

/** What {@link hedged} settled with. */
export interface HedgedResult<R> {
  readonly result: R;
  /** Whether a second try was started. */
  readonly hedged: boolean;
}

/**
 * Run `run` and, if it has neither settled nor called `onHeaders` within `delayMs`, run it a
 * second time alongside (a "hedged request": a stalled connection costs `delayMs`, not the
 * whole timeout). The same when it called `onHeaders` but has not settled `bodyDelayMs` after
 * that (a body that trickles in: a node that sends its headers, then a byte every 100 ms, held
 * the height until the timeout, and every height behind it). The first result that `succeeded` accepts wins and the other try is aborted.
 * A failure of the second try settles at once unless the first has since called `onHeaders`
 * (otherwise the first is the straggler the second was sent for, and is aborted); a failure of
 * the first try while the second runs waits for the second, and when both fail the later
 * failure is returned. At most two tries run. Rejects when `parent` aborts (or a try rejects
 * for another reason).
 *
 * @example
 * const { result } = await hedged((s) => fetch(url, { signal: s }), (r) => r.ok, 500, signal);
 */
export function hedged<R>(
  run: HedgeRun<R>,
  succeeded: (result: R) => boolean,
  delayMs: number,
  parent: AbortSignal,
  bodyDelayMs = Number.POSITIVE_INFINITY,
): Promise<HedgedResult<R>> {
  return new Promise<HedgedResult<R>>((resolve, reject) => {
    /** Tries still running, each with its order and whether it has called `onHeaders`. */
    const pending = new Map<AbortController, { order: number; answering: boolean }>();
    let tries = 0;
    let settled = false;
    let answered = false;
    let timer: NodeJS.Timeout | undefined;
    // Apart from `timer`: a try that reports its headers at once must not lose either handle.
    let bodyTimer: NodeJS.Timeout | undefined;

    const onParentAbort = () => {
      for (const c of pending.keys()) c.abort(parent.reason);
    };
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(bodyTimer);
      parent.removeEventListener("abort", onParentAbort);
      for (const c of pending.keys())
        c.abort(new DOMException("another try answered", "AbortError"));
      outcome();
    };
    const start = () => {
      const controller = new AbortController();
      const order = tries++;
      const state = { order, answering: false };
      pending.set(controller, state);
      const onHeaders = () => {
        if (state.answering) return;
        state.answering = true;
        answered = true;
        clearTimeout(timer);
        // The first try's body gets `bodyDelayMs` to arrive before the second try is sent.
        if (tries === 1 && Number.isFinite(bodyDelayMs))
          bodyTimer = setTimeout(() => {
            if (!settled && tries === 1) start();
          }, bodyDelayMs);
      };
      run(controller.signal, onHeaders).then(
        (result) => {
          pending.delete(controller);
          if (settled) return;
          // A failure waits for a try still running that was started after it (a hedge on its
          // way) or that is answering, never for a straggler still without headers, nor for a
          // try that has already finished (it will never report again).
          const worthWaiting = [...pending.values()].some((p) => p.order > order || p.answering);
          if (succeeded(result) || !worthWaiting)
            finish(() => resolve({ result, hedged: tries > 1 }));
        },
        (error) => {
          pending.delete(controller);
          if (settled) return;
          finish(() => reject(parent.aborted ? parent.reason : error));
        },
      );
    };

    if (parent.aborted) {
      reject(parent.reason);
      return;
    }
    parent.addEventListener("abort", onParentAbort, { once: true });
    start();
    if (Number.isFinite(delayMs))
      timer = setTimeout(() => {
        if (!settled && !answered) start();
      }, delayMs);
  });
}
