// The node server's book of open connections, on sockets made up for it: which connection the
// cap closes for a newcomer, by the clock and byte counts it is shown.
import { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { createConnectionTable } from "../../src/adapters/node/createConnectionTable.js";

/**
 * A table on a clock that the test sets, holding one connection with one answer in flight, on a
 * socket as the table reads it (its byte counts, libuv's write queue, a close), `waiting`
 * bytes of which are written and not yet taken by the kernel.
 */
function oneConnection(waiting: number) {
  const clock = { time: 0 };
  const table = createConnectionTable(() => clock.time);
  const socket = Object.assign(new EventEmitter(), {
    remoteAddress: "127.0.0.1",
    bytesRead: 0,
    bytesWritten: waiting,
    writableLength: waiting,
    _handle: { writeQueueSize: waiting },
  });
  const c = table.add(socket as unknown as Socket);
  c.inFlight = 1;
  return { clock, table, socket, c };
}

describe("the connection table at the cap", () => {
  it("does not take a client reading one large answer slowly for one that reads nothing", () => {
    // One answer of 10 MB, written in one write: node counts all of it in writableLength until
    // the kernel has taken the last byte, so only the handle's queue shrinks as the client reads.
    const { clock, table, socket, c } = oneConnection(10_000_000);
    clock.time = 1500;
    // Nothing taken in 1.5 s: stalled, the one to close for a newcomer.
    expect(table.evictable(1000)).toBe(c);
    // The client reads some, at 2 s and again at 3.5 s: not stalled at 2.9 s nor at 3.5 s.
    socket._handle.writeQueueSize = 9_000_000;
    clock.time = 2000;
    expect(table.evictable(1000)).toBeUndefined();
    clock.time = 2900;
    expect(table.evictable(1000)).toBeUndefined();
    socket._handle.writeQueueSize = 8_000_000;
    clock.time = 3500;
    expect(table.evictable(1000)).toBeUndefined();
    // Then it stops reading: stalled again a second after its last read was seen.
    clock.time = 4400;
    expect(table.evictable(1000)).toBeUndefined();
    clock.time = 4600;
    expect(table.evictable(1000)).toBe(c);
  });

  it("measures reads from the bytes waiting when the answer was written, not from the next look", () => {
    // The answer is written at 0 (the server notes what waits then), the client reads at 500 ms,
    // the sweep looks at 950 ms: that read is progress, so at 1 s the connection is not stalled.
    const { clock, table, socket, c } = oneConnection(0);
    socket.bytesWritten = socket.writableLength = socket._handle.writeQueueSize = 10_000_000;
    table.noteWrites(c, 0);
    socket._handle.writeQueueSize = 8_000_000;
    clock.time = 950;
    table.noteWrites(c, clock.time);
    clock.time = 1000;
    expect(table.evictable(1000)).toBeUndefined();
    clock.time = 1960;
    expect(table.evictable(1000)).toBe(c);
  });

  it("still closes the connection holding the most unparsed requests when its client reads", () => {
    // A pipelining client with 1 MiB of requests held back, reading its answers now and then.
    const { clock, table, socket, c } = oneConnection(4000);
    c.held = 1 << 20;
    clock.time = 500;
    expect(table.evictable(1000)).toBe(c);
    socket._handle.writeQueueSize = 3000;
    clock.time = 900;
    expect(table.evictable(1000)).toBe(c);
  });
});

describe("the connection table's bookkeeping", () => {
  it("does not keep a socket that closed before it was added (one handed over late)", () => {
    const table = createConnectionTable(() => 0);
    const gone = Object.assign(new EventEmitter(), { remoteAddress: "127.0.0.1", closed: true });
    table.add(gone as unknown as Socket);
    expect(table.size).toBe(0);
    const open = Object.assign(new EventEmitter(), { remoteAddress: "127.0.0.1", closed: false });
    table.add(open as unknown as Socket);
    expect(table.size).toBe(1);
    open.emit("close");
    expect(table.size).toBe(0);
  });
});
