import { once } from "node:events";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { connectRedis } from "../../src/sources/redis/connectRedis.js";
import {
  commandFailure,
  RedisFeedError,
  tooLargeToRead,
  tooLargeToReadBack,
} from "../../src/sources/redis/errors.js";
import { parseRedisUrl } from "../../src/sources/redis/parseRedisUrl.js";

/** What connecting to a server on `port` of 127.0.0.1 failed with (undefined if it connected). */
const connectFailure = (port: number, timeoutMs: number) =>
  connectRedis(parseRedisUrl(`redis://127.0.0.1:${port}`), { timeoutMs, name: "t" }).then(
    () => undefined,
    (err: unknown) => err,
  );

/**
 * A TCP server on a free port of 127.0.0.1 answering each connection with `answer`; `close()`
 * also destroys the connections still open.
 */
async function fakeServer(answer: (socket: net.Socket) => void) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    answer(socket);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    port: (server.address() as net.AddressInfo).port,
    close() {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

describe("tooLargeToRead", () => {
  const url = "redis://127.0.0.1:6379";
  it("names the entry that is too long for the client to decode, and its repair", () => {
    // What the client's parser throws on a reply holding a string over V8's limit, as the
    // connection reports it (a command failure, blamed on Redis).
    const failure = commandFailure(
      url,
      new RangeError("Cannot create a string longer than 0x1fffffe8 characters"),
    );
    const e = tooLargeToRead(url, "gasdigest:blocks", "1383-0", failure) as RedisFeedError;
    expect(e).toBeInstanceOf(RedisFeedError);
    expect(e.kind).toBe("reply");
    expect(e.shortMessage).toBe(
      "an entry of stream gasdigest:blocks after 1383-0 is too large for this process to read (longer than the longest string it can hold, about 512 MB)",
    );
    expect(e.message).toContain(
      "XRANGE gasdigest:blocks (1383-0 + COUNT 1) and delete it (XDEL gasdigest:blocks <its id>)",
    );
    expect(e.cause).toBe(failure);
  });

  it("leaves every other failure as it is", () => {
    const other = commandFailure(url, new Error("NOPERM this user has no permissions"));
    expect(tooLargeToRead(url, "s", "1-0", other)).toBe(other);
    expect(tooLargeToReadBack(url, "s", "+", other)).toBe(other);
  });

  it("names the entry of a warm start (read newest first) too, not as Redis refusing a command", () => {
    const failure = commandFailure(
      url,
      new RangeError("Cannot create a string longer than 0x1fffffe8 characters"),
    );
    const top = tooLargeToReadBack(url, "gasdigest:blocks", "+", failure) as RedisFeedError;
    expect(top.kind).toBe("reply");
    expect(top.shortMessage).toBe(
      "one of the newest entries of stream gasdigest:blocks is too large for this process to read (longer than the longest string it can hold, about 512 MB)",
    );
    expect(top.message).toContain("XREVRANGE gasdigest:blocks + - COUNT 1) and delete it");
    const below = tooLargeToReadBack(url, "gasdigest:blocks", "1382-18446744073709551615", failure);
    expect((below as RedisFeedError).shortMessage).toMatch(
      /^an entry of stream gasdigest:blocks at or below 1382-18446744073709551615 is too large/,
    );
    expect((below as RedisFeedError).message).toContain(
      "XREVRANGE gasdigest:blocks 1382-18446744073709551615 - COUNT 1)",
    );
  });
});

describe("connectRedis", () => {
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;

  it("leaves no timer behind when the connection is refused or the peer answers nothing", async () => {
    // ioredis destroys a disconnected socket after `disconnectTimeout` (2 s) unless it closes
    // first; one already gone never does, and the timer kept the process alive after close().
    const gone = net.createServer();
    gone.listen(0, "127.0.0.1");
    await once(gone, "listening");
    const refused = (gone.address() as net.AddressInfo).port;
    gone.close();
    const silent = await fakeServer(() => {}); // accepts, never answers nor closes
    const mute = silent.port;
    try {
      for (const port of [refused, mute]) {
        const before = timers();
        await expect(
          connectRedis(parseRedisUrl(`redis://127.0.0.1:${port}`), { timeoutMs: 300, name: "t" }),
        ).rejects.toThrow();
        await new Promise((r) => setTimeout(r, 50));
        expect(timers()).toBeLessThanOrEqual(before);
      }
    } finally {
      silent.close();
    }
  });

  it("says why when the server closes the connection as soon as it is open (Redis at its maxclients)", async () => {
    // What redis-server does past maxclients: its refusal, then the close, before the client
    // reads anything; all the client saw was "write EPIPE" or "write ECONNRESET".
    const full = await fakeServer((socket) => {
      socket.end("-ERR max number of clients reached\r\n");
      socket.destroy();
    });
    const { port } = full;
    try {
      for (let i = 0; i < 5; i++) {
        const e = await connectFailure(port, 2000);
        expect(e).toBeInstanceOf(RedisFeedError);
        expect((e as RedisFeedError).kind).toBe("connect");
        // (Redis's own refusal, had the client read it first, would say the same.)
        expect((e as RedisFeedError).message).toMatch(
          /Details: (write (EPIPE|ECONNRESET): the server closed the connection as soon as it was open, as Redis does once it holds maxclients connections|.*max number of clients reached)/,
        );
      }
    } finally {
      full.close();
    }
  });

  it("says the server did not become ready when Redis is still loading its data, not only that nothing answered", async () => {
    // What redis-server answers the client's ready check while it loads its data after a
    // restart (a large RDB or AOF); the client waits, and the timeout said only "no answer".
    const loading = await fakeServer((socket) => {
      socket.on("error", () => undefined);
      socket.on("data", () => {
        const info = "loading:1\r\nloading_eta_seconds:30\r\n";
        socket.write(`$${info.length}\r\n${info}\r\n`);
      });
    });
    const { port } = loading;
    try {
      const e = await connectFailure(port, 500);
      expect(e).toBeInstanceOf(RedisFeedError);
      expect((e as RedisFeedError).kind).toBe("timeout");
      expect((e as RedisFeedError).message).toMatch(
        /no answer from redis:\/\/127\.0\.0\.1:\d+\/0 within the timeout[\s\S]*did not pass the client's ready check \(INFO\) in time: Redis loading its data after a restart answers loading:1/,
      );
    } finally {
      loading.close();
    }
  });

  it("shows the control characters of the server's error replies escaped, never sends them", async () => {
    // Whatever answers on the port writes the error text, and `record` prints the events'
    // lines to a terminal: an escape sequence there set its title and cleared the screen.
    const hostile = await fakeServer((socket) => {
      socket.on("error", () => undefined);
      socket.on("data", () => socket.write("-ERR evil\u001b]0;PWNED\u0007\u001b[2J\r\n"));
    });
    const { port } = hostile;
    try {
      const e = await connectFailure(port, 2000);
      expect(e).toBeInstanceOf(RedisFeedError);
      expect((e as RedisFeedError).details).toBe("ERR evil\\u001b]0;PWNED\\u0007\\u001b[2J");
      expect((e as RedisFeedError).message).not.toMatch(/\p{Cc}(?<!\n)/u);
    } finally {
      hostile.close();
    }
    const refused = commandFailure("redis://127.0.0.1:6379", new Error("ERR \u001b[31mred\u0007"));
    expect(refused.details).toBe("ERR \\u001b[31mred\\u0007");
  });
});
