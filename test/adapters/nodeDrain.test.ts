// The node server's graceful drain, on sockets made up for it: what it destroys, and when it
// resolves, as the listener closes and closeTimeout passes.
import { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { createConnectionTable } from "../../src/adapters/node/createConnectionTable.js";
import { drainConnections } from "../../src/adapters/node/drainConnections.js";
import { silentLogger } from "../../src/http/handlerOptions.js";

/** A socket as the table and the drain read it; `destroy()` closes it, as node's does. */
function madeUpSocket() {
  const socket = Object.assign(new EventEmitter(), {
    remoteAddress: "127.0.0.1",
    bytesRead: 0,
    bytesWritten: 0,
    writableLength: 0,
    _handle: { writeQueueSize: 0 },
    destroyed: false,
    destroy() {
      if (socket.destroyed) return;
      socket.destroyed = true;
      socket.emit("close");
    },
  });
  return socket;
}

describe("drainConnections", () => {
  it("past closeTimeout, a socket handed over before the listener closed is destroyed too", async () => {
    const table = createConnectionTable(() => performance.now());
    // A connection with an answer owed: neither idle nor stalled, so only closeTimeout ends it.
    const open = madeUpSocket();
    table.add(open as unknown as Socket).inFlight = 1;
    let listenerClosed: () => void = () => undefined;
    let forced: () => void = () => undefined;
    const forcing = new Promise<void>((resolve) => {
      forced = resolve;
    });
    const drained = drainConnections(table, {
      keepAliveTimeout: 600_000,
      closeTimeout: 50,
      logger: { ...silentLogger, warn: () => forced() },
      now: () => performance.now(),
      stopAccepting: (done) => {
        listenerClosed = done;
      },
    });
    await forcing;
    expect(open.destroyed).toBe(true);
    // Handed to the server (`server.emit("connection", socket)`) after the forced destroy, while
    // the listener is still closing: shutdown resolves with it destroyed, not left open.
    const late = madeUpSocket();
    table.add(late as unknown as Socket).inFlight = 1;
    listenerClosed();
    await drained;
    expect(late.destroyed).toBe(true);
    expect(table.size).toBe(0);
  });
});
