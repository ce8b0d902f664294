import type { Socket } from "node:net";
import type { TrackedConnection } from "./createConnectionTable.js";

/**
 * The `pump` of a connection that node parses itself (in C++, the fast path): stop reading from
 * the socket while `maxInFlight` answers wait to go out (or the connection is closing), read
 * again once they have. node still parses every request of a read it has made; see
 * `paceRequests` for the bound within a read.
 *
 * @example
 * connection.pump = pauseWhenBusy(socket, connection, 16);
 */
export function pauseWhenBusy(
  socket: Socket,
  connection: TrackedConnection,
  maxInFlight: number,
): () => void {
  return () => {
    if (connection.closing || connection.inFlight >= maxInFlight) {
      if (!socket.isPaused()) socket.pause();
    } else if (socket.isPaused() && (socket as { _paused?: boolean })._paused !== true)
      socket.resume();
  };
}
