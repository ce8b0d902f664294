import { Observable, type Subscriber } from "rxjs";

/**
 * A cold Observable whose values come from an async loop: `run` is started at each subscription
 * with the subscriber and a signal aborted when it unsubscribes. When `run` resolves, the stream
 * completes; when it rejects, the error is passed on, unless the reader unsubscribed first (the
 * abort is what made it fail, and nobody is left to tell). The shape of every source that follows
 * a node, a stream or a file.
 *
 * @example
 * const ticks = loopObservable<number>(async (subscriber, signal) => {
 *   for (let i = 0; i < 3 && !signal.aborted; i++) subscriber.next(i);
 * });
 */
export function loopObservable<T>(
  run: (subscriber: Subscriber<T>, signal: AbortSignal) => Promise<void>,
): Observable<T> {
  return new Observable<T>((subscriber) => {
    const abort = new AbortController();
    run(subscriber, abort.signal).then(
      () => subscriber.complete(),
      (error) => {
        if (!abort.signal.aborted) subscriber.error(error);
      },
    );
    return () => abort.abort();
  });
}
