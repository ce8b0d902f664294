import type http from "node:http";
import type { Socket } from "node:net";
import type { HandlerLogger, HandlerResponse } from "../../http/index.js";
import type { ConnectionTable, TrackedConnection } from "./createConnectionTable.js";
import type { TurnBudget } from "./createTurnBudget.js";
import { paceRequests } from "./paceRequests.js";
import { pauseWhenBusy } from "./pauseWhenBusy.js";
import { peerKey } from "./peerKey.js";
import { rawResponse } from "./rawResponse.js";
import { tally } from "./tally.js";

/** Options of {@link guardConnections}. */
export interface ConnectionGuardOptions {
  maxConnections: number;
  /** Requests a connection may have waiting for their answer before node parses more (see `paceRequests`). */
  maxPipelinedRequests: number;
  /** Requests parsed per turn of the event loop, all connections together (see `paceRequests`). */
  budget: TurnBudget;
  /** The answer to a connection refused at the cap (an error object response). */
  refusal: () => HandlerResponse;
  /** node's limit on receiving one request (`requestTimeout`), in ms. */
  requestTimeout: number;
  /** How long a kept-alive connection may stay idle (`keepAliveTimeout`), in ms. */
  keepAliveTimeout: number;
  /** How long a client may read nothing of an answer waiting for it (`writeIdleTimeout`), in ms. */
  writeIdleTimeout: number;
  /** How often the sweep looks at every connection, in ms. */
  sweepEveryMs: number;
  logger: HandlerLogger;
}

/** The record of a connection that takes no request at all (a refused one). */
function closedConnection(socket: Socket, peer: string): TrackedConnection {
  return {
    socket,
    peer,
    request: undefined,
    inFlight: 0,
    mark: 0,
    idleSince: 0,
    lastProgress: 0,
    unsent: 0,
    served: false,
    closing: true,
    deferred: undefined,
    paced: true,
    held: 0,
    pump: () => {},
  };
}

/** What the request side needs to know about the guard. */
export interface ConnectionGuard {
  /** Whether `socket` was refused at the cap (its requests are not answered). */
  isRefused(socket: Socket): boolean;
  /**
   * A client pipelined more requests in one read than `maxPipelinedRequests`: pace every
   * connection (open and new) until no such flood has been seen for a minute.
   */
  flooded(): void;
}

/**
 * Refused connections stay open this long after their 503 (reading nothing more), so that
 * closing does not reset the connection before the client has read it.
 */
const REFUSAL_LINGER_MS = 1000;
/**
 * The places node keeps beyond `maxConnections` (its own cap, the backstop): refused
 * connections lingering count against it, and once they fill it node closes every new
 * connection unanswered, before the server can make room for it. So fewer than this many
 * linger at once: beyond that, a refused connection is closed at once, and the next newcomer
 * still reaches the server (which may close a crowding or stalled connection for it).
 */
const MAX_LINGERING_REFUSALS = 64;
/**
 * At most this many of them from one peer: beyond it, that peer's refused connections are
 * closed at once, so that one peer reconnecting in a loop cannot take every lingering place
 * (a 503 its clients could read) from the others.
 */
const MAX_LINGERING_PER_PEER = 8;
/**
 * A connection must have been idle, or stalled on a client that reads nothing, for this long
 * before a new one may close it (a burst of new connections does not close each other).
 */
const EVICT_AFTER_MS = 1000;
/** After a pipelining flood, connections are paced for this long (see `flooded`). */
const SHIELD_MS = 60_000;
/** Refused and dropped connections are logged at most once per this many ms, with counts. */
const LOG_EVERY_MS = 10_000;

/**
 * Bound what connections can hold on a node server: at most `maxConnections` tracked at once
 * (at the cap a new one closes the connection idle the longest, else one whose client reads
 * nothing, else one of a peer holding at least two more connections than the newcomer's peer,
 * or is refused with the 503 error object when there is none), requests parsed only as fast
 * as they are answered (`paceRequests`), and a write-idle timeout (node's socket timeout, which
 * counts write progress as activity): a connection whose client stops reading an answer is
 * destroyed, as are keep-alive connections idle past their timeout.
 *
 * @example
 * const guard = guardConnections(server, table, { maxConnections: 256, maxPipelinedRequests: 16, budget, refusal, logger });
 * if (guard.isRefused(req.socket)) return;
 */
export function guardConnections(
  server: http.Server,
  connections: ConnectionTable,
  options: ConnectionGuardOptions,
): ConnectionGuard {
  const { maxConnections, logger } = options;
  const refused = new WeakSet<Socket>();
  let lingering = 0;
  const lingeringPerPeer = new Map<string, number>();
  // A flood of connections must not become a flood of log lines: one line per LOG_EVERY_MS.
  const unlogged = { refused: 0, dropped: 0 };
  let logTimer: NodeJS.Timeout | undefined;
  function logRefusals(kind: "refused" | "dropped") {
    unlogged[kind]++;
    if (logTimer !== undefined) return;
    const flush = () => {
      logTimer = undefined;
      if (unlogged.refused + unlogged.dropped === 0) return;
      logger.warn(
        { ...unlogged, lingering, open: connections.size, limit: maxConnections },
        "refused connections: too many open connections",
      );
      unlogged.refused = 0;
      unlogged.dropped = 0;
      logTimer = setTimeout(flush, LOG_EVERY_MS);
      logTimer.unref();
    };
    flush();
  }

  // node's own cap, as a backstop on open files: it closes accepted sockets beyond it at once.
  server.maxConnections = maxConnections + MAX_LINGERING_REFUSALS;

  function refuse(socket: Socket, peer: string) {
    refused.add(socket);
    socket.on("error", () => {});
    // (`lingering` counts a socket until its 'close', node only until its destroy: never fewer.)
    if (
      lingering + 1 >= MAX_LINGERING_REFUSALS ||
      (lingeringPerPeer.get(peer) ?? 0) >= MAX_LINGERING_PER_PEER
    ) {
      socket.destroy();
      return logRefusals("dropped");
    }
    lingering++;
    tally(lingeringPerPeer, peer, 1);
    const timer = setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS);
    timer.unref();
    socket.once("close", () => {
      lingering--;
      tally(lingeringPerPeer, peer, -1);
      clearTimeout(timer);
    });
    // Parse nothing it sends (node would hold every request of a read until the socket closes).
    paceRequests(socket, closedConnection(socket, peer), 0, options.budget)?.();
    socket.end(rawResponse(options.refusal(), { "Retry-After": "1" }));
    logRefusals("refused");
  }

  let shieldedUntil = 0;
  /** Parse `c`'s requests at the pace of its answers from now on (see `paceRequests`). */
  function pace(c: TrackedConnection) {
    if (c.paced || c.closing) return;
    const pump = paceRequests(c.socket, c, options.maxPipelinedRequests, options.budget);
    if (pump === undefined) return;
    c.paced = true;
    c.pump = pump;
  }

  server.on("connection", (socket: Socket) => {
    // A socket handed over after its client went (`server.emit("connection", s)`): nothing to
    // track, and no live connection to close to make room for it.
    if (socket.closed) return;
    const peer = peerKey(socket.remoteAddress);
    if (connections.size >= maxConnections) {
      const victim = connections.evictable(EVICT_AFTER_MS) ?? connections.crowding(peer);
      if (victim === undefined) return refuse(socket, peer);
      logger.debug(
        { open: connections.size, idle: connections.isIdle(victim), peer: victim.peer },
        "closed an idle, stalled or crowding connection to make room for a new one",
      );
      connections.delete(victim.socket);
      victim.socket.destroy();
    }
    const c = connections.add(socket, peer);
    c.pump = pauseWhenBusy(socket, c, options.maxPipelinedRequests);
    if (performance.now() < shieldedUntil) pace(c);
  });

  // node's own cap (maxConnections + refusals lingering): closed without an answer.
  server.on("drop", () => logRefusals("dropped"));

  // The sweep. node times a request from its first byte past any empty lines, and counts each
  // byte read as activity of the socket: a kept-alive connection sent a CRLF every so often
  // is never idle and never has a request arriving, and neither timeout closes it. Bytes read
  // that no request followed within `requestTimeout` after `keepAliveTimeout` (by then node's
  // own timer would have answered 408 a request begun in them) close the connection. The sweep
  // also notes which clients are reading their answers (see `noteWrites`), and destroys a
  // connection whose client has read nothing of one for `writeIdleTimeout`: node's own socket
  // timer (armed by the request side) takes the kernel's first helping of an answer, which
  // the client never read, for progress and starts over, so alone it fired only after twice
  // that (20 s with the defaults, for a client that read nothing at all).
  const limit = options.requestTimeout + options.keepAliveTimeout;
  let sweep: NodeJS.Timeout | undefined;
  server.on("listening", () => {
    sweep ??= setInterval(() => {
      const now = performance.now();
      for (const c of connections) {
        if (c.socket.writableLength > 0) {
          connections.noteWrites(c, now);
          if (now - c.lastProgress >= options.writeIdleTimeout) {
            logger.debug(
              { pending: c.socket.writableLength },
              "destroyed a connection whose client stopped reading",
            );
            connections.delete(c.socket);
            c.socket.destroy();
          }
        } else if (
          connections.owesNothing(c) &&
          !connections.isIdle(c) &&
          now - c.lastProgress >= limit
        ) {
          logger.debug({ peer: c.peer }, "closed a connection that sent bytes but no request");
          connections.delete(c.socket);
          c.socket.destroy();
        }
      }
    }, options.sweepEveryMs);
    sweep.unref();
  });
  server.on("close", () => {
    clearInterval(sweep);
    sweep = undefined;
  });

  // A socket times out after `writeIdleTimeout` with an answer stuck in it (the request side
  // arms the timer; node's timer counts write progress as activity), or after node's keep-alive
  // timeout. With a listener here node no longer destroys timed-out sockets itself: decide as
  // it would, except for a request still arriving, which `requestTimeout` answers with 408.
  server.on("timeout", (socket: Socket) => {
    const c = connections.get(socket);
    if (c === undefined || socket.writableLength > 0) {
      if (c !== undefined)
        logger.debug(
          { pending: socket.writableLength },
          "destroyed a connection whose client stopped reading",
        );
      socket.destroy();
    } else if (c.served && connections.isIdle(c)) socket.destroy();
  });

  return {
    isRefused: (socket) => refused.has(socket),
    flooded() {
      if (performance.now() >= shieldedUntil)
        logger.warn(
          { open: connections.size, seconds: SHIELD_MS / 1000 },
          "pipelining flood: pacing every connection",
        );
      shieldedUntil = performance.now() + SHIELD_MS;
      for (const c of connections) pace(c);
    },
  };
}
