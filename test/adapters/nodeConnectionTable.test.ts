// The node server's book of open connections, on sockets made up for it: which connection the
// cap closes for a newcomer, by the clock and byte counts it is shown.
import { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { createConnectionTable } from "../../src/adapters/node/createConnectionTable.js";

/** A socket as the table reads it: its byte counts, libuv's write queue, and a close. */
function fakeSocket() {
  return Object.assign(new EventEmitter(), {
    remoteAddress: "127.0.0.1",
    bytesRead: 0,
    bytesWritten: 0,
    writableLength: 0,
    _handle: { writeQueueSize: 0 },
  });
}

describe("the connection table at the cap", () => {
  it("does not take a client reading one large answer slowly for one that reads nothing", () => {
    let time = 0;
    const table = createConnectionTable(() => time);
    const socket = fakeSocket();
    const c = table.add(socket as unknown as Socket);
    // One answer of 10 MB, written in one write: node counts all of it in writableLength until
    // the kernel has taken the last byte, so only the handle's queue shrinks as the client reads.
    c.inFlight = 1;
    socket.bytesWritten = 10_000_000;
    socket.writableLength = 10_000_000;
    socket._handle.writeQueueSize = 10_000_000;
    time = 1500;
    // Nothing taken in 1.5 s: stalled, the one to close for a newcomer.
    expect(table.evictable(1000)).toBe(c);
    // The client reads some, at 2 s and again at 3.5 s: not stalled at 2.9 s nor at 3.5 s.
    socket._handle.writeQueueSize = 9_000_000;
    time = 2000;
    expect(table.evictable(1000)).toBeUndefined();
    time = 2900;
    expect(table.evictable(1000)).toBeUndefined();
    socket._handle.writeQueueSize = 8_000_000;
    time = 3500;
    expect(table.evictable(1000)).toBeUndefined();
    // Then it stops reading: stalled again a second after its last read was seen.
    time = 4400;
    expect(table.evictable(1000)).toBeUndefined();
    time = 4600;
    expect(table.evictable(1000)).toBe(c);
  });

  it("still closes the connection holding the most unparsed requests when its client reads", () => {
    let time = 0;
    const table = createConnectionTable(() => time);
    const socket = fakeSocket();
    const c = table.add(socket as unknown as Socket);
    // A pipelining client with 1 MiB of requests held back, reading its answers now and then.
    c.inFlight = 1;
    c.held = 1 << 20;
    socket.bytesWritten = 5000;
    socket.writableLength = 4000;
    socket._handle.writeQueueSize = 4000;
    time = 500;
    expect(table.evictable(1000)).toBe(c);
    socket._handle.writeQueueSize = 3000;
    time = 900;
    expect(table.evictable(1000)).toBe(c);
  });
});
