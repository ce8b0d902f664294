import { Subscription } from "rxjs";
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
 * `unsubscribe()`, a teardown function, or nothing).
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
 * counts as connected; once a connection is over, whatever its source still sends is ignored, so
 * one that cannot be stopped cannot feed a closed engine.
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
    // values (a subscriber of the engine closing it) stops this source too, once it is subscribed.
    const sub = new Subscription(() => {
      stopped = true;
      // A source its owner stops, running or failed, no longer counts (a failed one counted as
      // never completing: an engine whose failed replay was replaced stayed short of completed).
      if (!done || (failed && !endedEarly)) {
        done = true;
        detached = true;
        running.delete(sub);
        connected--;
      }
      if (subscribed) stopForeign(foreign);
    });
    running.add(sub);
    const finish = () => {
      done = true;
      running.delete(sub);
    };
    try {
      foreign = source$.subscribe({
        next(value) {
          if (!stopped && !done) handlers.next(value);
        },
        error(error) {
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
      });
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
