// A client pipelining past maxPipelinedRequests in one read, on a server that has seen no
// flood yet (node parses the whole read at once): every answer before the limit goes out
// whole, then the 503, then the connection closes (docs/http.md, "Pipelining"). A client that
// never reads them holds the connection no longer than writeIdleTimeout.
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startNodeServer } from "../helpers/nodeServer.js";
import { exchange } from "../helpers/rawHttp.js";

const BUNDLE = "/v1/spec/assets/swagger-ui-bundle.js";
const GET = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;
const OVERFLOW = JSON.stringify({
  message: "too many pipelined requests: over 16 waiting for an answer on this connection",
  error_code: "web_framework_error",
  vm_error_code: null,
});

const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
});

const start = startNodeServer;

describe("pipelining past the limit in one read", () => {
  it("answers the 16 big answers whole, then the 503, then closes", async () => {
    const { port } = await start();
    const r = await exchange(port, [GET(BUNDLE).repeat(17)], { timeoutMs: 15_000 });
    expect(r.error).toBeUndefined();
    expect(r.responses.map((x) => x.status)).toEqual([...Array(16).fill(200), 503]);
    const length = Number(r.responses[0]!.headers["content-length"]);
    expect(length).toBeGreaterThan(1_000_000);
    expect(r.responses.slice(0, 16).every((x) => x.body.length === length)).toBe(true);
    expect(r.responses[16]!.body).toBe(OVERFLOW);
    expect(r.responses[16]!.headers.connection).toBe("close");
    expect(r.rest.length).toBe(0);
    expect(r.closedByServer).toBe(true);
  });

  it("requests pipelined after the one answered 503 are not answered", async () => {
    const { port } = await start();
    const r = await exchange(port, [GET(BUNDLE).repeat(16) + GET("/v1").repeat(30)], {
      timeoutMs: 15_000,
    });
    expect(r.responses.map((x) => x.status)).toEqual([...Array(16).fill(200), 503]);
    expect(r.closedByServer).toBe(true);
  });

  it("nothing the client sends after the overflow is parsed while the answers go out", async () => {
    const { server, port } = await start();
    let parsed = 0;
    server.on("request", () => parsed++);
    const socket = net.connect(port, "127.0.0.1");
    sockets.push(socket);
    socket.on("error", () => {});
    await new Promise((r) => socket.once("connect", r));
    socket.pause();
    socket.write(GET(BUNDLE).repeat(17));
    await new Promise((r) => socket.once("readable", r));
    expect(parsed).toBe(17);
    // Read the answers slowly, sending a flood of requests the while.
    const more = GET("/v1").repeat(1000);
    const timer = setInterval(() => {
      if (!socket.destroyed) socket.write(more);
      socket.read();
    }, 5);
    await new Promise((r) => socket.once("close", r));
    clearInterval(timer);
    expect(parsed).toBe(17);
  });

  it("a client that never reads them is closed after writeIdleTimeout", async () => {
    const { server, port } = await start({ writeIdleTimeout: 300 });
    const serverSide = new Promise<net.Socket>((resolve) => server.once("connection", resolve));
    const socket = net.connect(port, "127.0.0.1");
    sockets.push(socket);
    socket.on("error", () => {});
    await new Promise((r) => socket.once("connect", r));
    socket.pause();
    const t0 = Date.now();
    socket.write(GET(BUNDLE).repeat(17));
    // (The client reads nothing, so it would not see the close: watch the server's end.)
    const accepted = await serverSide;
    await new Promise((r) => (accepted.destroyed ? r(undefined) : accepted.once("close", r)));
    const ms = Date.now() - t0;
    // Kept while answers wait (a reading client would get them all), closed once the client
    // has read nothing for writeIdleTimeout.
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(3000);
  });
});
