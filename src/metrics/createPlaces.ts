import type { Socket } from "node:net";

/** The connections the metrics port holds at once, and which one gives way to a newcomer. */
export interface Places {
  /**
   * Give `socket` a place. When every place is taken, the connection with no request in
   * progress (kept alive between scrapes, or its request head still arriving) that has been so
   * the longest is destroyed to make room; `false` when every connection has a request in
   * progress (its answer is being collected or sent): refuse the newcomer then.
   */
  admit(socket: Socket): boolean;
  /** A request began on `socket`: call what this returns once its answer has ended. */
  begin(socket: Socket): () => void;
  /**
   * Run `next` once every answer begun on `socket` has ended (now, when none is open): an error
   * reply written straight to the socket must follow the answers of the requests ahead of it.
   */
  afterAnswers(socket: Socket, next: () => void): void;
}

interface Place {
  /** Requests begun and not yet answered (pipelined ones count each). */
  open: number;
  /** Since when it has had none (`now()`): connected, or its last answer ended. */
  idleSince: number;
  /** What runs once `open` is back to 0 (see `afterAnswers`). */
  afterAnswers: (() => void) | undefined;
}

/**
 * The metrics port's places, at most `max`. A newcomer takes the place of the connection idle
 * the longest, so that clients that trickle request heads (a byte every half second, reconnecting
 * when the 408 closes them) cannot hold every place: Prometheus's request arrives with its
 * connection, and a connection older than any of theirs gives way first. Refusing the newcomer
 * instead (node's `maxConnections`), 16 such clients left 10 of 148 scrapes answered.
 *
 * @example
 * const places = createPlaces(16);
 * server.on("connection", (socket) => places.admit(socket) || socket.destroy());
 */
export function createPlaces(max: number, now: () => number = () => performance.now()): Places {
  const places = new Map<Socket, Place>();
  return {
    admit(socket) {
      if (places.size >= max) {
        let oldest: Socket | undefined;
        let since = Number.POSITIVE_INFINITY;
        for (const [s, p] of places)
          if (p.open === 0 && p.idleSince < since) {
            oldest = s;
            since = p.idleSince;
          }
        if (oldest === undefined) return false;
        places.delete(oldest);
        oldest.destroy();
      }
      places.set(socket, { open: 0, idleSince: now(), afterAnswers: undefined });
      socket.once("close", () => places.delete(socket));
      return true;
    },
    begin(socket) {
      const place = places.get(socket);
      if (place === undefined) return () => {};
      place.open++;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        place.open--;
        if (place.open > 0) return;
        place.idleSince = now();
        const next = place.afterAnswers;
        place.afterAnswers = undefined;
        next?.();
      };
    },
    afterAnswers(socket, next) {
      const place = places.get(socket);
      if (place === undefined || place.open === 0) next();
      else place.afterAnswers = next;
    },
  };
}
