import type { Socket } from "node:net";
import type { TrackedConnection } from "./createConnectionTable.js";
import type { TurnBudget } from "./createTurnBudget.js";

/**
 * Bytes handed to node's parser at a time. node parses every request in what it is given before
 * anyone can stop it, so this bounds the requests parsed beyond `maxInFlight` (about 55 of the
 * smallest possible ones).
 */
const SLICE = 1024;
/** Unparsed bytes a connection may hold; only reachable if node keeps resuming the socket. */
const MAX_HELD = 1 << 20;

type Feed = (this: Socket, chunk: Buffer) => void;
type OnEnd = (this: Socket) => void;

/** node's own per-socket state flags and parser that the pacer reads (undocumented, stable since node 12). */
interface NodeHttpSocket extends Socket {
  _paused?: boolean;
  parser?: unknown;
}

/**
 * Make node parse a connection's requests only as fast as their answers go out, the way nginx
 * does: node parses a whole read (up to 64 KiB, so thousands of pipelined requests) at once,
 * and a client that pipelines without reading would make it hold an answer for each. Here the
 * bytes reach node's parser in slices, and no more while `maxInFlight` answers are waiting to be
 * handed to the kernel (or node itself has paused the connection, or the server's budget of
 * requests for this turn of the event loop is spent); reading from the socket stops meanwhile. node's end-of-stream handling is delayed until the held bytes are parsed,
 * so requests pipelined before a half-close are all answered.
 *
 * This replaces node's own `data` and `end` listeners of the socket (found by name), which also
 * moves reading from C++ to JavaScript (about a fifth more CPU per request at full load, so
 * the server does it only under a flood: see `guardConnections`). When they are not there
 * (another node version), it returns `undefined` and changes nothing.
 *
 * Returns `pump`: call it whenever an answer of the connection went out or it starts closing.
 * When answers going out let it parse more, it does so on the next turn of the event loop, so
 * that a connection with thousands of requests held takes its turn with the others (and with
 * new connections) instead of being served to the end in one go.
 *
 * @example
 * connection.pump = paceRequests(socket, connection, 16, createTurnBudget(64));
 */
export function paceRequests(
  socket: Socket,
  connection: TrackedConnection,
  maxInFlight: number,
  budget: TurnBudget,
): (() => void) | undefined {
  const s = socket as NodeHttpSocket;
  const feed = s.listeners("data").find((f) => f.name === "bound socketOnData") as Feed | undefined;
  const nodeOnEnd = s.listeners("end").find((f) => f.name === "bound socketOnEnd") as
    | OnEnd
    | undefined;
  if (feed === undefined || nodeOnEnd === undefined) return undefined;
  const nodePaused = () => s._paused === true;

  let held: Buffer | undefined;
  let ended = false;
  let endDelivered = false;
  let pumping = false;
  let scheduled: NodeJS.Immediate | undefined;

  function pump() {
    // Called again from inside `feed` (a request parsed, an answer sent): the loop below
    // re-checks everything after each slice.
    if (pumping) return;
    if (scheduled !== undefined) {
      clearImmediate(scheduled);
      scheduled = undefined;
    }
    pumping = true;
    try {
      drain();
    } finally {
      pumping = false;
    }
  }

  /** An answer went out: parse more on the next turn of the loop, if anything is held. */
  function pumpSoon() {
    if (held === undefined || pumping) pump();
    else scheduled ??= setImmediate(pump);
  }

  function drain() {
    while (held !== undefined) {
      if (connection.closing || socket.destroyed || !s.parser) held = undefined;
      else if (nodePaused() || connection.inFlight >= maxInFlight) break;
      else if (budget.exhausted) {
        budget.wait(pump);
        break;
      } else {
        const slice = held.length <= SLICE ? held : held.subarray(0, SLICE);
        held = slice === held ? undefined : held.subarray(SLICE);
        feed!.call(socket, slice);
      }
    }
    connection.held = held?.length ?? 0;
    if (held !== undefined || connection.closing) {
      if (!socket.isPaused()) socket.pause();
    } else if (ended) {
      if (!endDelivered) {
        endDelivered = true;
        nodeOnEnd!.call(socket);
      }
    } else if (socket.isPaused() && !nodePaused()) socket.resume();
  }

  socket.removeListener("data", feed);
  socket.removeListener("end", nodeOnEnd);
  // Adding a `data` listener also makes node stop reading the socket in C++ ("unconsume").
  socket.on("data", (chunk: Buffer) => {
    held = held === undefined ? chunk : Buffer.concat([held, chunk]);
    if (held.length > MAX_HELD) socket.destroy();
    else pump();
  });
  socket.on("end", () => {
    ended = true;
    pump();
  });
  // node resumes a connection it paused (its answers drained): parse what is held.
  socket.on("resume", pump);
  socket.once("close", () => {
    if (scheduled !== undefined) clearImmediate(scheduled);
    held = undefined;
  });
  return pumpSoon;
}
