import type http from "node:http";
import type { Socket } from "node:net";
import { peerKey } from "./peerKey.js";
import { tally } from "./tally.js";

/** What the node server knows about one open connection. */
export interface TrackedConnection {
  readonly socket: Socket;
  /** The peer it counts against for fair shares ({@link peerKey}). */
  readonly peer: string;
  /**
   * The newest request node parsed on it: while it is still receiving its body, a parse error
   * lies in that body, whose request has its answer already.
   */
  request: http.IncomingMessage | undefined;
  /** Requests answered (or being answered) whose response has not been handed to the kernel yet. */
  inFlight: number;
  /**
   * `socket.bytesRead` when the latest request head was complete: more bytes read since means
   * a request is on its way (a partial head, a body, a pipelined request).
   */
  mark: number;
  /** When the connection last became idle (accepted, or its last answer went out), in ms. */
  idleSince: number;
  /**
   * When a request last arrived on it, an answer of it last went out, or its client was last
   * seen reading part of an answer ({@link ConnectionTable.noteWrites}), in ms.
   */
  lastProgress: number;
  /** Bytes of its answers still waiting for the kernel when last looked at (see `noteWrites`). */
  unsent: number;
  /** Whether at least one answer went out on it (it is a kept-alive connection). */
  served: boolean;
  /**
   * Set once the server has decided to close it after what is already answered (an error
   * reply, a refusal): later requests on it are not answered.
   */
  closing: boolean;
  /** A raw error reply waiting for the answers ahead of it to go out first. */
  deferred: Buffer | undefined;
  /** Whether its requests are parsed at the pace of its answers (see `paceRequests`). */
  paced: boolean;
  /** Bytes read but not handed to node's parser yet (see `paceRequests`). */
  held: number;
  /** Hand held bytes to the parser if the connection may take more requests (see `paceRequests`). */
  pump: () => void;
}

/** The open connections of a node server. */
export interface ConnectionTable {
  readonly size: number;
  /**
   * Start tracking a newly accepted socket (it stops being tracked when it closes); `peer` is
   * its {@link peerKey}, computed when not given.
   */
  add(socket: Socket, peer?: string): TrackedConnection;
  get(socket: Socket): TrackedConnection | undefined;
  /** Stop tracking `socket` (also done when it closes). */
  delete(socket: Socket): void;
  /** Nothing to send, no request awaiting its answer or its turn, no request arriving. */
  isIdle(connection: TrackedConnection): boolean;
  /**
   * Owing nothing (nothing to send, no request awaiting its answer or its turn): once not idle,
   * only a request still arriving (a head or a body sent a few bytes at a time) holds it.
   */
  owesNothing(connection: TrackedConnection): boolean;
  /**
   * Look at how much of its answers still waits for the kernel on `connection`: if less than
   * at the last look, its client is reading, and that is progress at `time`. Done at every
   * eviction, by the server's sweep and when an answer goes out, so a client downloading a
   * large answer slowly is not taken for one that reads nothing.
   */
  noteWrites(connection: TrackedConnection, time: number): void;
  /** Record that `connection`'s answers have all gone out at `time`: it is idle from then on. */
  settled(connection: TrackedConnection, time: number): void;
  /**
   * The connection to close to make room for a new one: the one idle the longest, if it has
   * been idle for `minAge` ms; else one whose client has read nothing of an answer waiting for
   * it, with no progress for `minAge` ms; else the one whose request has been arriving the
   * longest, owing no answer and with no progress for `minAge` ms (a head sent a few bytes at a
   * time: a slow-loris client holding its place); else the one holding the most pipelined
   * requests not parsed yet (a backlog no client behind a load balancer builds). `undefined`
   * when there is none.
   */
  evictable(minAge: number): TrackedConnection | undefined;
  /**
   * Fair shares at the cap, when {@link evictable} found nothing: if one peer holds at least
   * two connections more than the peer `newcomer` holds (so that the two end at most equal),
   * the connection of that peer to close: one owing no answer (a request arriving, or idle)
   * with the oldest progress, else its connection with the oldest progress. `undefined` when no
   * peer holds that many.
   */
  crowding(newcomer: string): TrackedConnection | undefined;
  [Symbol.iterator](): IterableIterator<TrackedConnection>;
}

/**
 * Bytes of `socket`'s pending writes that the kernel has not taken yet: node's `writableLength`
 * counts a write until all of it is taken, so within one large answer only the handle's queue
 * (libuv's, not a public API: 0 where there is none) shows a client reading.
 */
function queuedInHandle(socket: Socket): number {
  const queued = (socket as unknown as { _handle?: { writeQueueSize?: unknown } | null })._handle
    ?.writeQueueSize;
  return typeof queued === "number" ? queued : 0;
}

/**
 * Book-keeping of a node server's open connections: how many answers each still owes, whether
 * it is idle and since when (the eviction order at the connection cap, and the drain).
 *
 * @example
 * const table = createConnectionTable(() => performance.now());
 * server.on("connection", (socket) => table.add(socket));
 * table.evictable(1000)?.socket.destroy();
 */
export function createConnectionTable(now: () => number): ConnectionTable {
  const connections = new Map<Socket, TrackedConnection>();
  /** Connections tracked per peer. */
  const perPeer = new Map<string, number>();
  function forget(socket: Socket) {
    const c = connections.get(socket);
    if (c === undefined) return;
    connections.delete(socket);
    tally(perPeer, c.peer, -1);
  }

  const owesNothing = (c: TrackedConnection) =>
    c.inFlight === 0 && c.held === 0 && c.socket.writableLength === 0;
  const isIdle = (c: TrackedConnection) => owesNothing(c) && c.socket.bytesRead === c.mark;
  function noteWrites(c: TrackedConnection, time: number) {
    const unsent = c.socket.writableLength + queuedInHandle(c.socket);
    if (unsent < c.unsent && time > c.lastProgress) c.lastProgress = time;
    c.unsent = unsent;
  }

  return {
    get size() {
      return connections.size;
    },
    add(socket, peer = peerKey(socket.remoteAddress)) {
      const connection: TrackedConnection = {
        socket,
        peer,
        request: undefined,
        inFlight: 0,
        mark: 0,
        idleSince: now(),
        lastProgress: now(),
        unsent: 0,
        served: false,
        closing: false,
        deferred: undefined,
        paced: false,
        held: 0,
        pump: () => {},
      };
      forget(socket);
      connections.set(socket, connection);
      tally(perPeer, peer, 1);
      socket.once("close", () => {
        if (connections.get(socket) === connection) forget(socket);
      });
      // A socket already destroyed (one handed to the server after its client went) may have
      // emitted 'close' already: tracked, it stayed for good and held a shutdown's drain.
      if (socket.closed) forget(socket);
      return connection;
    },
    get: (socket) => connections.get(socket),
    delete: forget,
    isIdle,
    owesNothing,
    noteWrites,
    settled(connection, time) {
      connection.served = true;
      connection.idleSince = time;
    },
    evictable(minAge) {
      const time = now();
      const before = time - minAge;
      let idle: TrackedConnection | undefined;
      let stalled: TrackedConnection | undefined;
      let arriving: TrackedConnection | undefined;
      let greedy: TrackedConnection | undefined;
      for (const c of connections.values()) {
        if (c.socket.writableLength > 0) noteWrites(c, time);
        if (isIdle(c)) {
          if (c.idleSince <= before && c.idleSince < (idle?.idleSince ?? before + 1)) idle = c;
        } else if (c.socket.writableLength > 0 && c.lastProgress <= before) stalled ??= c;
        else if (owesNothing(c)) {
          // Only the bytes of a request still arriving keep it from being idle.
          if (c.lastProgress <= before && c.lastProgress < (arriving?.lastProgress ?? before + 1))
            arriving = c;
        } else if (c.held > (greedy?.held ?? 0)) greedy = c;
      }
      return idle ?? stalled ?? arriving ?? greedy;
    },
    crowding(newcomer) {
      let peer: string | undefined;
      let most = 0;
      for (const [p, n] of perPeer)
        if (n > most) {
          peer = p;
          most = n;
        }
      if (peer === undefined || most < (perPeer.get(newcomer) ?? 0) + 2) return undefined;
      let quiet: TrackedConnection | undefined;
      let any: TrackedConnection | undefined;
      for (const c of connections.values()) {
        if (c.peer !== peer) continue;
        if (c.lastProgress < (any?.lastProgress ?? Number.POSITIVE_INFINITY)) any = c;
        const owesNothing = c.inFlight === 0 && c.socket.writableLength === 0;
        if (owesNothing && c.lastProgress < (quiet?.lastProgress ?? Number.POSITIVE_INFINITY))
          quiet = c;
      }
      return quiet ?? any;
    },
    [Symbol.iterator]: () => connections.values(),
  };
}
