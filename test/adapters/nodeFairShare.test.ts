// Fair shares of the connection cap between peers: one peer reconnecting in a loop must not
// lock other peers out. Another loopback address (127.0.0.2) is another peer.
import net from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { peerKey } from "../../src/adapters/node/peerKey.js";
import { startNodeServer } from "../helpers/nodeServer.js";
import { exchange } from "../helpers/rawHttp.js";

const GET = "GET /v1/estimate_gas_price HTTP/1.1\r\nHost: x\r\n\r\n";
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
});

const start = async (maxConnections: number) => (await startNodeServer({ maxConnections })).port;

/** A connection from 127.0.0.1 that sends part of a request head and nothing more. */
function loris(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: "127.0.0.1", localAddress: "127.0.0.1" }, () => {
      socket.write("GET /v1/estimate_gas_price HTTP/1.1\r\nHost: x\r\nX-");
      resolve(socket);
    });
    socket.on("error", reject);
    socket.resume();
    sockets.push(socket);
  });
}

describe("fair shares of maxConnections", () => {
  it("a newcomer from another peer closes one of a crowding peer's fresh connections and is served", async () => {
    const port = await start(10);
    const held = await Promise.all(Array.from({ length: 10 }, () => loris(port)));
    // The crowding peer itself is refused while its connections are fresh (under a second).
    const same = await exchange(port, [GET], { from: "127.0.0.1" });
    expect(same.responses.map((r) => r.status)).toEqual([503]);
    // Another peer is served at once, and exactly one of the crowding connections is closed.
    const other = await exchange(port, [GET], { from: "127.0.0.2", halfClose: true });
    expect(other.responses.map((r) => r.status)).toEqual([200]);
    await vi.waitFor(() =>
      expect(held.filter((s) => s.destroyed || s.readableEnded)).toHaveLength(1),
    );
  });

  it("shares end equal: a peer is closed for another only while it holds two more", async () => {
    const port = await start(4);
    const from = (localAddress: string) =>
      new Promise<net.Socket>((resolve) => {
        const s = net.connect({ port, host: "127.0.0.1", localAddress }, () => resolve(s));
        s.write("GET /v1/estimate_gas_price HTTP/1.1\r\nHost: x\r\nX-");
        s.resume();
        sockets.push(s);
      });
    const a = [await from("127.0.0.1"), await from("127.0.0.1"), await from("127.0.0.1")];
    const b = await from("127.0.0.2");
    // 127.0.0.1 holds 3, 127.0.0.2 holds 1: the newcomer of 127.0.0.2 takes one of the three.
    const c = await from("127.0.0.2");
    await vi.waitFor(() => expect(a.filter((s) => s.destroyed || s.readableEnded)).toHaveLength(1));
    // 2 and 2: a newcomer of either peer is refused, and nobody else is closed.
    for (const peer of ["127.0.0.1", "127.0.0.2"]) {
      const refused = await exchange(port, [GET], { from: peer });
      expect(refused.responses.map((r) => r.status)).toEqual([503]);
    }
    expect([...a, b, c].filter((s) => s.destroyed || s.readableEnded)).toHaveLength(1);
  });

  it("a peer reconnecting in a loop gets at most 8 lingering 503s; the rest are closed at once", async () => {
    const port = await start(2);
    await Promise.all([loris(port), loris(port)]);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => exchange(port, [GET], { from: "127.0.0.1" })),
    );
    const with503 = answers.filter((a) => a.responses[0]?.status === 503).length;
    expect(with503).toBe(8);
    expect(answers.filter((a) => a.responses.length === 0)).toHaveLength(12);
    // Another peer still gets a place.
    const other = await exchange(port, [GET], { from: "127.0.0.2", halfClose: true });
    expect(other.responses.map((r) => r.status)).toEqual([200]);
  });

  it("refusals lingering from many peers never fill node's backstop: another peer is still served", async () => {
    const port = await start(11);
    /** A connection that sends part of a request head and nothing more, and never closes. */
    const trickle = (localAddress: string) =>
      new Promise<void>((resolve) => {
        const s = net.connect({ port, host: "127.0.0.1", localAddress }, () => {
          s.write("GET /v1/estimate_gas_price HTTP/1.1\r\nHost: x\r\nX-");
          resolve();
        });
        s.on("error", () => resolve());
        sockets.push(s);
      });
    const peers = Array.from({ length: 9 }, (_, i) => `127.0.0.${3 + i}`);
    // The cap: two connections of 127.0.0.1 and one of each of 9 other peers. A newcomer of
    // those peers is refused (none holds two more than it), one of 127.0.0.2 is not.
    await Promise.all(["127.0.0.1", "127.0.0.1", ...peers].map(trickle));
    // 8 refusals of each of the 9 peers (each peer within its limit of 8 lingering): 72, more
    // than the 64 places node keeps beyond maxConnections.
    await Promise.all(peers.flatMap((peer) => Array.from({ length: 8 }, () => trickle(peer))));
    // Within the second the refusals linger, the newcomer must still reach the server (node
    // would close it unanswered at its backstop), which closes one of 127.0.0.1's for it.
    const other = await exchange(port, [GET], { from: "127.0.0.2", halfClose: true });
    expect(other.error).toBeUndefined();
    expect(other.responses.map((r) => r.status)).toEqual([200]);
  });
});

describe("peerKey", () => {
  it("counts IPv4 by address, IPv6 by /64, mapped IPv4 as IPv4", () => {
    expect(peerKey("10.1.2.3")).toBe("10.1.2.3");
    expect(peerKey("::ffff:10.1.2.3")).toBe("10.1.2.3");
    expect(peerKey("2001:db8:0:1:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:0:1::/64");
    expect(peerKey("2001:0DB8:0000:0001::1")).toBe("2001:db8:0:1::/64");
    expect(peerKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(peerKey("::1")).toBe("0:0:0:0::/64");
    expect(peerKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(peerKey("64:ff9b:1:2::1.2.3.4")).toBe("64:ff9b:1:2::/64");
    expect(peerKey(undefined)).toBe("?");
  });
});
