import type { HandlerLogger } from "../../http/index.js";
import type { ConnectionTable, TrackedConnection } from "./createConnectionTable.js";

/** Options of {@link drainConnections}. */
export interface DrainOptions {
  /**
   * An idle connection is closed once it has been idle this long: the idle time promised to
   * clients (`Keep-Alive: timeout=N`), so a client that reuses its connection within it is
   * answered (with `Connection: close`) instead of finding it closed.
   */
  keepAliveTimeout: number;
  /** Connections still open this many ms after the drain began are destroyed. */
  closeTimeout: number;
  logger: HandlerLogger;
  now: () => number;
  /**
   * Stop accepting connections and call `done` once the listener and every connection it
   * accepted have closed. Left out when the server never listened (it only received sockets
   * handed to it). Either way the drain ends only when the table is empty too: node's callback
   * does not wait for sockets handed to the server (`server.emit("connection", socket)`).
   */
  stopAccepting?: (done: () => void) => void;
}

/** How often the drain looks for connections to close, in ms. */
const POLL_MS = 25;

/**
 * The graceful drain of a node server's connections. While it runs, the server answers every
 * request that arrives with `Connection: close` (so each connection closes after its next
 * answer); this closes the connections that stay idle past `keepAliveTimeout`, and those that
 * owe nothing but have not finished sending a request within `keepAliveTimeout` of the drain's
 * start, lets answers being written finish, and destroys whatever is left after `closeTimeout`.
 * Resolves when every connection has closed.
 *
 * @example
 * draining = true; // the request handler adds `Connection: close` from now on
 * await drainConnections(table, { keepAliveTimeout: 5000, closeTimeout: 10000, logger, now: () => performance.now() });
 */
export function drainConnections(
  connections: ConnectionTable,
  options: DrainOptions,
): Promise<void> {
  const { keepAliveTimeout, closeTimeout, logger, now, stopAccepting } = options;
  return new Promise<void>((resolve) => {
    let done = false;
    // Whether the listener has closed (at once without one): the drain ends once it has and
    // the table is empty.
    let stopped = stopAccepting === undefined;
    // Every connection was destroyed at closeTimeout: the drain no longer waits for the table.
    let forced = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearInterval(poll);
      clearTimeout(force);
      resolve();
    };
    const began = now();
    // A connection that owes nothing but is not idle has a request arriving: it gets
    // `keepAliveTimeout` from the drain's start (and from its last request or answer) to
    // finish it, so a partial head that stays partial (a slow-loris client) does not hold the
    // drain until `closeTimeout`, past a container's stop timeout.
    const stalled = (c: TrackedConnection, t: number) =>
      connections.owesNothing(c) && t - Math.max(began, c.lastProgress) >= keepAliveTimeout;
    const closeLongIdle = () => {
      const t = now();
      for (const c of connections)
        if (connections.isIdle(c) ? t - c.idleSince >= keepAliveTimeout : stalled(c, t))
          c.socket.destroy();
      if (stopped && connections.size === 0) finish();
    };
    const poll = setInterval(closeLongIdle, POLL_MS);
    const force = setTimeout(() => {
      logger.warn(
        { open: connections.size },
        "destroying connections still open after closeTimeout",
      );
      for (const c of connections) c.socket.destroy();
      forced = true;
      if (stopped) finish();
    }, closeTimeout);
    force.unref();
    stopAccepting?.(() => {
      stopped = true;
      // Past closeTimeout: what came in since the forced destroy (a socket handed over) goes too.
      if (forced) for (const c of connections) c.socket.destroy();
      if (forced || connections.size === 0) finish();
    });
    closeLongIdle();
  });
}
