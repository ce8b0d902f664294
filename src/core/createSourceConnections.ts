import { Observable, Subject, Subscription, takeUntil } from "rxjs";
import { describeValue, shorten, thrownText } from "./describeValue.js";
import { InvalidArgumentError } from "./errors.js";
import { hasMethods } from "./readOptions.js";

/** What happens to what a connected source sends; see {@link createSourceConnections}. */
export interface SourceHandlers {
  /** A value the source sent (a block, or anything else: the engine validates it). */
  next(value: unknown): void;
  /** The source failed: it has ended. */
  error(error: unknown): void;
  /** The source completed. */
  complete(): void;
}

/**
 * What `engine.connect` takes, by shape: an rxjs Observable (of this package's rxjs or another
 * copy), an Observable of another library, or any object whose `subscribe(observer)` calls the
 * observer's `next`, `error` and `complete` (and returns a Subscription, an object with
 * `unsubscribe()`, a teardown function, or nothing; an async `subscribe()`'s promise, if it
 * rejects, is the source's error).
 */
export interface ObservableLike {
  /** Start sending to `observer`; what it returns is how to stop (see above). */
  subscribe(observer: {
    next(value: unknown): void;
    error(error: unknown): void;
    complete(): void;
  }): unknown;
}

/** The sources connected to an engine. */
export interface SourceConnections {
  /** Subscribe to `source$`, handing what it sends to the handlers, until it ends or is stopped. */
  connect(source$: ObservableLike): Subscription;
  /** True when at least one source was connected and every connected source has completed. */
  readonly allCompleted: boolean;
  /** Stop every source still running. */
  closeAll(): void;
}

/**
 * The engine's sources: any Observable, of rxjs or another library (whatever its `subscribe()`
 * returns: an rxjs Subscription, an object with `unsubscribe()`, a teardown function, or
 * nothing), each returned as an rxjs Subscription. A source unsubscribed by its owner before it
 * ended, or after it failed (during `connect` too: its Subscription is returned open), no longer
 * counts as connected (one `closeAll` stops still counts, as not completed); once a connection is
 * over, whatever its source still sends is ignored, so one that cannot be stopped cannot feed a
 * closed engine.
 *
 * @throws {InvalidArgumentError} from `connect`, naming `source$`, for something that is not an
 * Observable or whose `subscribe()` throws (nothing is counted).
 * @example
 * const sources = createSourceConnections({ next: ingest, error: report, complete: report });
 * sources.connect(simulator());
 */
export function createSourceConnections(handlers: SourceHandlers): SourceConnections {
  const running = new Set<Subscription>();
  let connected = 0;
  let completed = 0;
  // Set by closeAll: the sources it stops were cut, not detached by their owners, so they stay
  // counted as not completed (the engine closed with a live source was "completed" when another
  // had completed, and its handler served a stale estimate as fresh while a server drained).
  let closing = false;

  function connect(source$: ObservableLike): Subscription {
    if (!hasMethods(source$, "subscribe"))
      throw new InvalidArgumentError([
        {
          path: "source$",
          message: `must be an Observable of blocks, such as simulator() or pushSource() (got ${describeValue(source$)})`,
        },
      ]);
    connected++;
    let done = false;
    let completedNow = false;
    let stopped = false;
    // Whether the stop below already took this connection out of `connected`; whether the
    // source failed; whether the connection is being closed because it ended while subscribing.
    let detached = false;
    let failed = false;
    let endedEarly = false;
    let foreign: unknown;
    let subscribed = false;
    // Made, and running, before subscribing: a close() made while the source sends its first
    // values (a subscriber of the engine closing it) stops this source too: an rxjs Observable
    // at once (through `stop`: its handle only comes once it has sent what it sends at once),
    // any other once it is subscribed.
    const stop = new Subject<void>();
    const sub = new Subscription(() => {
      stopped = true;
      // A source its owner stops, running or failed, no longer counts (a failed one counted as
      // never completing: an engine whose failed replay was replaced stayed short of completed).
      if (!done || (failed && !endedEarly)) {
        done = true;
        running.delete(sub);
        if (!closing) {
          detached = true;
          connected--;
        }
      }
      if (subscribed) stopForeign(foreign);
      // Still sending what it sends at once: a synchronous source (`from(iterable)`) stops
      // there, where it went on to the end of its values (an endless one never let connect return).
      else stop.next();
    });
    running.add(sub);
    const finish = () => {
      done = true;
      running.delete(sub);
    };
    const observer = {
      next(value: unknown) {
        if (!stopped && !done) handlers.next(value);
      },
      error(error: unknown) {
        if (stopped || done) return;
        finish();
        failed = true;
        handlers.error(error);
      },
      complete() {
        if (stopped || done) return;
        finish();
        completed++;
        completedNow = true;
        handlers.complete();
      },
    };
    try {
      const stoppable = source$ instanceof Observable ? source$.pipe(takeUntil(stop)) : source$;
      foreign = stoppable.subscribe(observer);
    } catch (error) {
      // Not an Observable after all (rxjs's subscribe never throws): nothing stays counted.
      stopped = true;
      done = true;
      running.delete(sub);
      if (!detached) connected--;
      if (completedNow) completed--;
      throw new InvalidArgumentError([
        { path: "source$", message: `its subscribe() threw: ${shorten(thrownText(error))}` },
      ]);
    }
    subscribed = true;
    // An async subscribe() (a hand-made source looping with `for await`) returns a promise: its
    // rejection is the source failing (a source_error), not an unhandled rejection, which ended
    // the process.
    onRejected(foreign, observer.error);
    // Stopped while subscribing (the engine closed): stop the source now that there is a handle.
    if (stopped) stopForeign(foreign);
    // Completed while subscribing: the connection is returned closed, as rxjs's would be. One
    // that failed then is returned open, as after a later failure: it counts as not completed
    // until its owner unsubscribes it (returned closed, it could never be detached, and the
    // replay that replaced it never completed the engine).
    else if (done && !failed) {
      endedEarly = true;
      sub.unsubscribe();
    }
    return sub;
  }

  return {
    connect,
    get allCompleted() {
      return connected > 0 && completed === connected;
    },
    closeAll() {
      closing = true;
      for (const sub of running) sub.unsubscribe();
      running.clear();
    },
  };
}

/**
 * Stop what a source's `subscribe()` returned: an object with `unsubscribe()` or a teardown
 * function; anything else cannot be stopped (what it still sends is ignored). A failure there
 * is ignored: the connection is over either way.
 */
function stopForeign(handle: unknown): void {
  try {
    if (typeof handle === "function") handle();
    else if (hasMethods(handle, "unsubscribe")) (handle as { unsubscribe(): void }).unsubscribe();
  } catch {
    // ignored, see above
  }
}

/** Call `handle` with the reason if `value` is a promise (any thenable) that rejects. */
function onRejected(value: unknown, handle: (reason: unknown) => void): void {
  try {
    const then: unknown = (value as { then?: unknown } | null | undefined)?.then;
    if (typeof then === "function") Reflect.apply(then, value, [undefined, handle]);
  } catch {
    // A thenable whose `then` cannot be read or called cannot reject later: nothing to handle.
  }
}
