import { once } from "node:events";
import { readFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import net from "node:net";
import { dirname, join } from "node:path";
import { setTimeout as setTimeoutP } from "node:timers/promises";
import { Subject } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import {
  createServer,
  type GasdigestServer,
  listen,
  type NodeServerOptions,
} from "../../src/adapters/node/index.js";
import { createEngine, type Engine } from "../../src/core/createEngine.js";
import { InvalidConfigError } from "../../src/core/errors.js";
import { stripPrefix } from "../../src/http/mount.js";
import { aip34 } from "../../src/strategies/aip34.js";
import { block } from "../helpers/blocks.js";
import { readResponses } from "../helpers/rawHttp.js";
import { adapterContract, listenLocal } from "./contract.js";

const dist = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
const ESTIMATE =
  '{"deprioritized_gas_estimate":100,"gas_estimate":150,"prioritized_gas_estimate":300}';
const GET_ESTIMATE = "GET /v1/estimate_gas_price HTTP/1.1\r\nHost: x\r\n\r\n";
const errorBody = (code: string, message: string) =>
  JSON.stringify({ message, error_code: code, vm_error_code: null });

const started: GasdigestServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.shutdown()));
});

async function start(options: NodeServerOptions = {}, blocks = 3) {
  const engine = createEngine({
    strategy: aip34(),
    config: { staticOverride: { low: "100", market: "150", aggressive: "300" } },
  });
  for (let h = 1; h <= blocks; h++) engine.ingest(block(h));
  const server = createServer(engine, { maxStalenessMs: false, ...options });
  started.push(server);
  const address = await listen(server, { port: 0 });
  return { engine, server, address, base: `http://127.0.0.1:${address.port}` };
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  reused: boolean;
}

function request(
  base: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; agent?: http.Agent } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${path}`,
      { method: init.method ?? "GET", headers: init.headers, agent: init.agent ?? false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body: Buffer.concat(chunks),
            reused: req.reusedSocket,
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** Send raw bytes on a fresh socket and collect everything until the server closes it. */
function raw(port: number, data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(data));
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("end", () => resolve(Buffer.concat(chunks).toString("latin1")));
    socket.on("error", reject);
  });
}

adapterContract({
  name: "node server",
  async serve(engine, options, mount) {
    const server = createServer(engine, options);
    if (mount === "") {
      const { port } = await listen(server, { port: 0 });
      return { base: `http://127.0.0.1:${port}`, close: () => server.shutdown() };
    }
    // Mounted in a host node:http server that hands `/chain/...` to it with the prefix stripped
    // (dot segments resolved first, as the adapters do).
    const host = http.createServer((req, res) => {
      const rest = stripPrefix(req.url ?? "/", mount);
      if (rest === undefined) {
        res.writeHead(404).end("host app");
        return;
      }
      req.url = rest;
      server.emit("request", req, res);
    });
    const { origin, close } = await listenLocal(host);
    return {
      base: origin + mount,
      close: async () => {
        await close();
        await server.shutdown();
      },
    };
  },
});

describe("createServer over a real socket", () => {
  it("serves every route", async () => {
    const { base, server } = await start();
    const est = await request(base, "/v1/estimate_gas_price");
    expect(est.status).toBe(200);
    expect(est.body.toString()).toBe(ESTIMATE);
    expect(est.headers).toMatchObject({
      "content-type": "application/json",
      "content-length": String(ESTIMATE.length),
      "cache-control": "no-store",
      "access-control-allow-origin": "*",
      "x-aptos-chain-id": "4",
      "x-aptos-ledger-version": "3999",
      "x-aptos-ledger-oldest-version": "1000",
      "x-aptos-ledger-timestampusec": "1700000000750000",
      "x-aptos-epoch": "1",
      "x-aptos-block-height": "3",
      "x-aptos-oldest-block-height": "1",
    });
    const bcs = await request(base, "/v1/estimate_gas_price", {
      headers: { accept: "application/x-bcs" },
    });
    expect(bcs.headers["content-type"]).toBe("application/x-bcs");
    expect(bcs.body.toString("hex")).toBe("0164000000000000009600000000000000012c01000000000000");
    const ledger = await request(base, "/v1");
    expect(JSON.parse(ledger.body.toString())).toMatchObject({
      chain_id: 4,
      block_height: "3",
      node_role: "full_node",
    });
    expect((await request(base, "/v1/-/healthy")).body.toString()).toBe(
      '{"message":"gasdigest:ok"}',
    );
    const docs = await Promise.all(["/v1/spec.json", "/spec.json"].map((p) => request(base, p)));
    expect(JSON.parse(docs[0]!.body.toString())).toEqual({
      ...server.handler.document,
      servers: [{ url: "../v1" }],
    });
    expect(JSON.parse(docs[1]!.body.toString())).toEqual({
      ...server.handler.document,
      servers: [{ url: "./v1" }],
    });
    for (const p of ["/v1/spec.yaml", "/spec.yaml"]) {
      const y = await request(base, p);
      expect(y.status).toBe(200);
      expect(y.headers["content-type"]).toBe("application/x-yaml");
    }
    const page = await request(base, "/v1/spec");
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
    const bundle = await request(base, "/v1/spec/assets/swagger-ui-bundle.js");
    expect(bundle.body.equals(readFileSync(join(dist, "swagger-ui-bundle.js")))).toBe(true);
    expect((await request(base, "/v1/spec/assets/explorer.js")).status).toBe(200);
    const missing = await request(base, "/v1/nope");
    expect(missing.status).toBe(404);
    expect(missing.body.toString()).toBe(errorBody("web_framework_error", "not found"));
    const post = await request(base, "/v1/estimate_gas_price", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe("GET, HEAD, OPTIONS");
    expect(post.body.toString()).toBe(errorBody("web_framework_error", "method not allowed"));
    const preflight = await request(base, "/v1/estimate_gas_price", {
      method: "OPTIONS",
      headers: { origin: "https://a.example", "access-control-request-method": "GET" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-methods"]).toBe("GET, HEAD, OPTIONS");
  });

  it("answers HEAD with the GET headers, Content-Length included, and no body", async () => {
    const { base } = await start();
    for (const path of ["/v1/estimate_gas_price", "/v1/spec/assets/swagger-ui.css", "/v1/nope"]) {
      const get = await request(base, path);
      const head = await request(base, path, { method: "HEAD" });
      expect(head.status).toBe(get.status);
      expect(head.body.length).toBe(0);
      expect(head.headers["content-length"]).toBe(String(get.body.length));
      expect(head.headers["content-type"]).toBe(get.headers["content-type"]);
    }
  });

  it("answers 503 before the first block and 200 once a source delivers one", async () => {
    const { base, engine } = await start({}, 0);
    const source = new Subject<unknown>();
    engine.connect(source);
    expect((await request(base, "/v1/estimate_gas_price")).body.toString()).toBe(
      errorBody("internal_error", "no block has been ingested yet"),
    );
    source.next(block(1));
    expect((await request(base, "/v1/estimate_gas_price")).status).toBe(200);
  });

  it("keeps connections alive between requests", async () => {
    const { base } = await start();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await request(base, "/v1/estimate_gas_price", { agent });
      const second = await request(base, "/v1/estimate_gas_price", { agent });
      expect(first.headers.connection).toBe("keep-alive");
      expect(first.headers["keep-alive"]).toBe("timeout=5");
      expect(second.reused).toBe(true);
      expect(second.body.toString()).toBe(ESTIMATE);
    } finally {
      agent.destroy();
    }
  });

  it("answers an over-long URL with 400 and the error object (handler limit and head limit)", async () => {
    const { base, address } = await start({ maxUrlLength: 200, maxHeaderSize: 4096 });
    const long = await request(base, `/v1/estimate_gas_price?p=${"a".repeat(300)}`);
    expect(long.status).toBe(400);
    expect(long.body.toString()).toBe(
      errorBody("web_framework_error", "request URL is too long (over 200 bytes)"),
    );
    const huge = await raw(
      address.port,
      `GET /v1/estimate_gas_price?p=${"a".repeat(5000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    expect(huge).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(huge).toContain("Content-Type: application/json\r\n");
    expect(huge).toContain("Connection: close\r\n");
    expect(huge).toContain("X-Aptos-Block-Height: 3\r\n");
    expect(
      huge.endsWith(
        `\r\n\r\n${errorBody("web_framework_error", "request head is too large (over 4096 bytes)")}`,
      ),
    ).toBe(true);
    const bigHeader = await raw(
      address.port,
      `GET /v1/estimate_gas_price HTTP/1.1\r\nHost: x\r\nX-Pad: ${"b".repeat(5000)}\r\n\r\n`,
    );
    expect(bigHeader).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const garbage = await raw(address.port, "NOT HTTP AT ALL\r\n\r\n");
    expect(garbage).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(garbage).toContain(errorBody("web_framework_error", "malformed request"));
    expect((await request(base, "/v1/estimate_gas_price")).status).toBe(200);
  });

  it("survives clients that abort mid-response and mid-request", async () => {
    const { base, address } = await start();
    for (let i = 0; i < 5; i++) {
      await new Promise<void>((resolve) => {
        const socket = net.connect(address.port, "127.0.0.1", () => {
          socket.write("GET /v1/spec/assets/swagger-ui-bundle.js HTTP/1.1\r\nHost: x\r\n\r\n");
        });
        socket.once("data", () => {
          socket.resetAndDestroy();
          resolve();
        });
      });
      await new Promise<void>((resolve) => {
        const socket = net.connect(address.port, "127.0.0.1", () => {
          socket.write("GET /v1/estimate_gas_price HTTP/1.1\r\nHost:");
          socket.destroy();
          resolve();
        });
      });
    }
    expect((await request(base, "/v1/estimate_gas_price")).body.toString()).toBe(ESTIMATE);
  });

  it("close() finishes an in-flight request, refuses new connections and closes the engine", async () => {
    const { server, address, engine } = await start();
    const source = new Subject<unknown>();
    engine.connect(source);
    let shutDown = false;
    const socket = net.connect(address.port, "127.0.0.1");
    await new Promise((r) => socket.once("connect", r));
    socket.write("GET /v1/estimate_gas_price HTTP/1.1\r\nHost: x\r\n");
    await new Promise((r) => setTimeout(r, 50));
    const closed = server.shutdown().then(() => {
      shutDown = true;
    });
    const reply = new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      socket.on("data", (c) => chunks.push(c));
      socket.on("end", () => resolve(Buffer.concat(chunks).toString()));
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(shutDown).toBe(false);
    expect(source.observed).toBe(false);
    await expect(request(`http://127.0.0.1:${address.port}`, "/v1")).rejects.toThrow(
      /ECONNREFUSED/,
    );
    socket.write("\r\n");
    const text = await reply;
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toContain("Connection: close\r\n");
    expect(text.endsWith(ESTIMATE)).toBe(true);
    await closed;
    expect(shutDown).toBe(true);
  });
});

/**
 * A front server that hands `server` one socket already closed (its client gone), as a proxy
 * handing sockets over late would; resolves once its client is gone (the hand-over follows
 * when the front server sees its side close). Close the front server afterwards.
 */
async function handOverDead(server: http.Server): Promise<net.Server> {
  const front = net.createServer(async (socket) => {
    socket.destroy();
    await once(socket, "close");
    server.emit("connection", socket);
  });
  front.listen(0, "127.0.0.1");
  await once(front, "listening");
  const gone = net.connect((front.address() as net.AddressInfo).port, "127.0.0.1");
  gone.on("error", () => {});
  await once(gone, "close");
  return front;
}

describe("graceful shutdown details", () => {
  it("answers requests arriving on kept-alive connections during the drain, with Connection: close", async () => {
    // The drain closes a connection only once it has been idle for keepAliveTimeout (the idle
    // time promised to the client), so a client reusing its connection meanwhile is answered.
    // keepAliveTimeout well above the 200 ms pause below, so a busy machine cannot turn a reuse
    // into a connection the drain already closed.
    const { server, address, engine } = await start({
      keepAliveTimeout: 2_000,
      closeTimeout: 600_000,
    });
    const source = new Subject<unknown>();
    engine.connect(source);
    const clients = await Promise.all(
      Array.from({ length: 11 }, async () => {
        const socket = net.connect(address.port, "127.0.0.1");
        const reader = readResponses(socket);
        socket.write(GET_ESTIMATE);
        expect((await reader.next()).headers.connection).toBe("keep-alive");
        return { socket, reader };
      }),
    );
    const t0 = Date.now();
    let shutDown = false;
    const closed = server.shutdown().then(() => {
      shutDown = true;
    });
    expect(source.observed).toBe(false);
    await expect(request(`http://127.0.0.1:${address.port}`, "/v1")).rejects.toThrow(
      /ECONNREFUSED/,
    );
    await new Promise((r) => setTimeout(r, 200));
    // Ten clients reuse their connection during the drain; the eleventh stays idle.
    const reusing = clients.slice(0, 10);
    for (const { socket } of reusing) socket.write(GET_ESTIMATE);
    for (const { reader } of reusing) {
      const answer = await reader.next();
      expect(answer.status).toBe(200);
      expect(answer.headers.connection).toBe("close");
      expect(answer.body).toBe(ESTIMATE);
      await reader.closed;
    }
    expect(shutDown).toBe(false);
    await clients[10]!.reader.closed;
    await closed;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    // Bounded by the idle time, not by closeTimeout (ten minutes).
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it("a client that never finishes its request head holds the drain for keepAliveTimeout, not closeTimeout", async () => {
    const { server, address } = await start({ keepAliveTimeout: 300, closeTimeout: 600_000 });
    // A slow-loris client: half a request head, then nothing.
    const loris = net.connect(address.port, "127.0.0.1");
    await new Promise((r) => loris.once("connect", r));
    loris.write("GET /v1/estimate_gas_price HTTP/1.1\r\nHost: x\r\n");
    const gone = new Promise<void>((r) => loris.on("close", () => r()));
    loris.on("error", () => {});
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    await server.shutdown();
    await gone;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it("responses still buffered when close() is called are delivered whole (no truncation)", async () => {
    const { server, address } = await start({ keepAliveTimeout: 300, closeTimeout: 600_000 });
    const size = readFileSync(join(dist, "swagger-ui-bundle.js")).length;
    const socket = net.connect(address.port, "127.0.0.1");
    await new Promise((r) => socket.once("connect", r));
    // Four pipelined requests for the 1.7 MB bundle (more than the kernel buffers hold) on a
    // socket nobody reads yet: most of the responses wait in the server's memory.
    socket.pause();
    socket.write("GET /v1/spec/assets/swagger-ui-bundle.js HTTP/1.1\r\nHost: x\r\n\r\n".repeat(4));
    await new Promise((r) => setTimeout(r, 200));
    const closed = server.shutdown();
    await new Promise((r) => setTimeout(r, 100));
    const chunks: Buffer[] = [];
    const ended = new Promise<void>((r) => socket.on("close", () => r()));
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.resume();
    await Promise.all([ended, closed]);
    const all = Buffer.concat(chunks).toString("latin1");
    const heads = all.match(/HTTP\/1\.1 200 OK\r\n/g) ?? [];
    expect(heads).toHaveLength(4);
    const headLength = all.indexOf("\r\n\r\n") + 4;
    expect(all.length).toBe(4 * (headLength + size));
  });

  it("leaves the engine open with closeEngine: false; close(callback) is graceful too", async () => {
    const { server, engine } = await start({ closeEngine: false });
    await new Promise<void>((resolve, reject) =>
      server.close((err) => (err ? reject(err) : resolve())),
    );
    expect(() => engine.ingest(block(4))).not.toThrow();
    expect(server.shutdown()).toBe(server.shutdown());
  });

  it("serves and shuts down an engine-like object without close()", async () => {
    const engine = createEngine({ strategy: aip34() });
    engine.ingest(block(1));
    // Only what the handler reads: the type accepts it, and shutdown has nothing to close.
    const server = createServer({
      snapshot: () => engine.snapshot(),
      sourcesCompleted: false,
    });
    const { origin } = await listenLocal(server);
    const res = await fetch(`${origin}/v1/estimate_gas_price`);
    expect(res.status).toBe(200);
    await expect(server.shutdown()).resolves.toBeUndefined();
  });

  it("shut down while it is still starting to listen, it never listens, and listen() says so", async () => {
    // A SIGTERM during start-up: the listen was left to bind, and the server listened for ever
    // (answering 503 from its closed engine), while listen() never settled.
    for (const host of ["127.0.0.1", "localhost"]) {
      const server = createServer(createEngine({ strategy: aip34() }));
      const listening = listen(server, { host, port: 0 });
      await server.shutdown();
      await expect(listening).rejects.toThrow(
        `the server was closed before it listened on ${host}:0`,
      );
      await new Promise((r) => setTimeout(r, 50));
      expect(server.listening).toBe(false);
    }
  });

  it("adds no listener when listening, so a port in use still fails as node's own does", async () => {
    // A listener of its own on 'error' made the server's handler take the error as handled:
    // EADDRINUSE on server.listen() was swallowed and the server never listened.
    const taken = net.createServer();
    taken.listen(0, "127.0.0.1");
    await once(taken, "listening");
    const port = (taken.address() as net.AddressInfo).port;
    const server = createServer(createEngine({ strategy: aip34() }));
    const counts = () => ["error", "listening", "close"].map((e) => server.listenerCount(e));
    const before = counts();
    server.listen(port, "127.0.0.1");
    expect(counts()).toEqual(before);
    const [err] = (await once(server, "error")) as [NodeJS.ErrnoException];
    expect(err.code).toBe("EADDRINUSE");
    taken.close();
    await server.shutdown();
  });

  for (const listening of [false, true])
    it(`a server handed sockets drains them before shutdown resolves (${listening ? "listening too" : "never listening"})`, async () => {
      // Another server accepts and hands each socket over: shutdown must wait for the
      // connection (closing it after closeTimeout), not resolve at once with it still open
      // (node's close() calls back without waiting for sockets it did not accept itself).
      const server = createServer(createEngine({ strategy: aip34() }), {
        keepAliveTimeout: 5_000,
        closeTimeout: 300,
      });
      if (listening) await listen(server, { port: 0 });
      const front = net.createServer((socket) => server.emit("connection", socket));
      front.listen(0, "127.0.0.1");
      await once(front, "listening");
      const client = net.connect((front.address() as net.AddressInfo).port, "127.0.0.1");
      await once(client, "connect");
      client.write("GET /v1/estimate_gas_price HTTP/1.1\r\nHost: x\r\n"); // a head never ended
      client.on("error", () => {});
      let clientClosed = false;
      client.on("close", () => {
        clientClosed = true;
      });
      await setTimeoutP(50);
      await server.shutdown();
      // Destroyed on the server's side when shutdown resolved: the client hears of it at once.
      // (Resolved before the drain, it stayed open for good.)
      if (!clientClosed) await Promise.race([once(client, "close"), setTimeoutP(1_000)]);
      expect(clientClosed).toBe(true);
      client.destroy();
      front.close();
    });

  it("shutdown resolves when a socket handed over had already closed, with a client still open", async () => {
    // A closed socket stayed in the table for good: the drain, waiting for it to empty, never
    // ended and kept the process alive.
    const server = createServer(createEngine({ strategy: aip34() }), {
      keepAliveTimeout: 5_000,
      closeTimeout: 300,
    });
    const { port } = await listen(server, { port: 0 });
    const front = await handOverDead(server);
    const idle = net.connect(port, "127.0.0.1"); // a keep-alive client that stays
    idle.on("error", () => {});
    await once(idle, "connect");
    const done = server.shutdown().then(() => "resolved");
    expect(await Promise.race([done, setTimeoutP(3_000).then(() => "hung")])).toBe("resolved");
    idle.destroy();
    front.close();
  });

  it("a socket handed over dead at the cap closes no live connection to make room", async () => {
    const engine = createEngine({ strategy: aip34() });
    engine.ingest(block(1));
    engine.ingest(block(2));
    const server = createServer(engine, { maxConnections: 1 });
    const { port } = await listen(server, { port: 0 });
    // A kept-alive client, answered, then idle past the time after which the cap may close it.
    const live = net.connect(port, "127.0.0.1");
    live.on("error", () => {});
    let liveClosed = false;
    live.on("close", () => {
      liveClosed = true;
    });
    await once(live, "connect");
    live.write("GET /v1/estimate_gas_price HTTP/1.1\r\nHost: x\r\n\r\n");
    await once(live, "data");
    await setTimeoutP(1_200);
    const front = await handOverDead(server);
    await setTimeoutP(100);
    expect(liveClosed).toBe(false);
    live.destroy();
    front.close();
    await server.shutdown();
  });

  it("refuses to listen again once shut down (its engine is closed), by name", async () => {
    const server = createServer(createEngine({ strategy: aip34() }));
    await listenLocal(server);
    await server.shutdown();
    await expect(listen(server, { port: 0 })).rejects.toThrow(
      "this server was shut down: make a new one with createServer() to listen again",
    );
    expect(() => server.listen(0, "127.0.0.1")).toThrow("this server was shut down");
    expect(server.listening).toBe(false);
  });
});

describe("options and listen", () => {
  it("rejects invalid server and handler options together", () => {
    const engine: Engine = createEngine({ strategy: aip34() });
    let error: unknown;
    try {
      createServer(engine, { maxHeaderSize: 10, closeEngine: "yes" as never, basePath: "nope" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidConfigError);
    expect((error as InvalidConfigError).issues.map((i) => i.path)).toEqual([
      "maxHeaderSize",
      "closeEngine",
      "basePath",
    ]);
    expect((error as InvalidConfigError).issues[0]!.message).toBe(
      "must be a whole number >= 1024 (got 10)",
    );
  });

  it("listen resolves with the bound address and rejects when the port is taken", async () => {
    const { address } = await start();
    expect(address.address).toBe("127.0.0.1");
    expect(address.port).toBeGreaterThan(0);
    const other = createServer(createEngine({ strategy: aip34() }));
    await expect(listen(other, { port: address.port })).rejects.toThrow(/EADDRINUSE/);
    await other.shutdown();
  });

  it("listen rejects a bad host or port, and an unknown option, naming each", async () => {
    const server = http.createServer();
    const bad = listen(server, { port: "8080", hots: "::1", host: "" } as never);
    await expect(bad).rejects.toBeInstanceOf(InvalidConfigError);
    await expect(bad).rejects.toMatchObject({
      issues: [
        { path: "hots", message: "unknown field (did you mean host?)" },
        { path: "host", message: 'must be a non-empty string (got "")' },
        { path: "port", message: 'must be a whole number from 0 to 65535 (got "8080")' },
      ],
    });
    // A key close to no option gets the hint instead.
    await expect(listen(server, { xyzzy: 1 } as never)).rejects.toThrow(
      "xyzzy: unknown field (listen takes host and port)",
    );
    await expect(listen(server, { port: 65536 })).rejects.toThrow(
      "port: must be a whole number from 0 to 65535 (got 65536)",
    );
    expect(server.listening).toBe(false);
    // Not a server: a named error, not a TypeError from inside.
    for (const bad of [undefined, {}])
      await expect(listen(bad as never)).rejects.toThrow(
        /^invalid argument: server: must be a node http.Server, such as createServer\(\)'s \(got /,
      );
  });

  it("serves under a custom base path and header prefix", async () => {
    const { base } = await start({ basePath: "/chain/v2", headerPrefix: "X-Chain-" });
    const res = await request(base, "/chain/v2/estimate_gas_price");
    expect(res.status).toBe(200);
    expect(res.headers["x-chain-block-height"]).toBe("3");
    expect((await request(base, "/v1/estimate_gas_price")).status).toBe(404);
  });
});
