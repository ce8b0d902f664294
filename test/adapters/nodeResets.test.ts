// Clients that reset the connection (TCP RST) right after sending a request, against
// `gasdigest serve` in a child process: a socket error nobody listens for would kill the whole
// process, so the test watches the process, not a server inside the test runner.
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { exchange } from "../helpers/rawHttp.js";
import { type ServeChild, startServeChild } from "../helpers/serveChild.js";

const children: ServeChild[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((c) => c.kill()));
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Connect, write `bytes`, and reset the connection at once. */
function sendAndReset(port: number, bytes: string): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.on("error", () => resolve());
    socket.on("close", () => resolve());
    socket.on("connect", () => {
      socket.write(bytes);
      socket.resetAndDestroy();
    });
  });
}

describe("clients resetting the connection", () => {
  it.each([
    [
      "CONNECT (answered outside node's request handling)",
      "CONNECT /v1 HTTP/1.1\r\nHost: x\r\n\r\n",
    ],
    [
      "CONNECT behind a big answer still queued",
      "GET /v1/spec/assets/swagger-ui-bundle.js HTTP/1.1\r\nHost: x\r\n\r\nCONNECT x:443 HTTP/1.1\r\nHost: x\r\n\r\n",
    ],
    ["a malformed request (clientError)", "GET /v1 HTTP/1.1\r\nHo st: x\r\n\r\n"],
    [
      "a request asking for an upgrade",
      "GET /v1 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
    ],
  ])(
    "%s, then a reset: the server stays up",
    async (_, bytes) => {
      const s = await startServeChild();
      children.push(s);
      for (let round = 0; round < 10; round++) {
        await Promise.all(Array.from({ length: 20 }, () => sendAndReset(s.port, bytes)));
        await sleep(10);
      }
      await sleep(200);
      expect(s.alive(), s.logs.join("").slice(-2000)).toBe(true);
      const r = await exchange(s.port, ["GET /v1/-/healthy HTTP/1.1\r\nHost: x\r\n\r\n"], {
        halfClose: true,
      });
      expect(r.responses.map((x) => x.status)).toEqual([200]);
    },
    30_000,
  );
});
