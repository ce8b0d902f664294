import http from "node:http";
import type { Socket } from "node:net";
import {
  BaseError,
  createNodeHandler,
  type Handler,
  type HandlerEngine,
  type HandlerResponse,
} from "../../http/index.js";
import { createAnswerer } from "./createAnswerer.js";
import { createConnectionTable } from "./createConnectionTable.js";
import { createTurnBudget } from "./createTurnBudget.js";
import { drainConnections } from "./drainConnections.js";
import { headerLinesKept } from "./fieldLines.js";
import { guardConnections } from "./guardConnections.js";
import { type NodeServerOptions, parseServerOptions } from "./parseServerOptions.js";

/**
 * Requests parsed per turn of the event loop on paced connections, all together: about a
 * millisecond of work, so that new connections keep being accepted under a flood (libuv
 * accepts one per turn). Connections node parses itself (no flood seen) are never held back.
 */
const REQUESTS_PER_TURN = 64;

/** A reset or broken pipe of a socket node no longer watches: nothing to answer, it closes. */
function ignoreSocketError() {}

/** A node:http server serving the gasdigest interface. */
export interface GasdigestServer extends http.Server {
  /** The framework-agnostic handler behind the server. */
  readonly handler: Handler;
  /**
   * Graceful shutdown: stop accepting, close the engine (unless `closeEngine: false`), answer
   * every request that still arrives on an open connection with `Connection: close`, close
   * connections that stay idle past `keepAliveTimeout`, destroy what is still open after
   * `closeTimeout`. Resolves when every connection is closed. Idempotent.
   * `server.close(callback)` does the same.
   */
  shutdown(): Promise<void>;
}

/**
 * A node:http server answering the gasdigest interface (see docs/http.md), with the bridge done
 * carefully: every answer it sends, node's own included (malformed requests, a missing `Host`,
 * an unsupported `Expect`, timeouts), is an error object with our headers; pipelined requests
 * are all answered in order, also ahead of a malformed one; aborted clients and write errors
 * never crash it; and no peer can make it hold unbounded memory or work (a connection cap,
 * a write-idle timeout, a pipelining limit, head and body size caps). `shutdown()` drains.
 *
 * @throws {InvalidConfigError} listing every invalid option (handler and server ones).
 * @example
 * import { createEngine, aip34, simulator } from "gasdigest";
 * import { createServer, listen } from "gasdigest/node";
 * const engine = createEngine({ strategy: aip34() });
 * engine.connect(simulator());
 * const server = createServer(engine, { maxConnections: 1000 });
 * const { port } = await listen(server, { port: 8080 });
 * process.on("SIGTERM", () => server.shutdown());
 */
export function createServer(engine: HandlerEngine, options?: NodeServerOptions): GasdigestServer {
  const { server: o, handler: handlerOptions } = parseServerOptions(options);
  const handler = createNodeHandler(engine, handlerOptions);
  const logger = handler.options.logger;
  // Idle and progress times by a monotonic clock: a wall clock stepped an hour ahead took every
  // answer in flight for an hour unread (and destroyed its connection).
  const connections = createConnectionTable(() => performance.now());
  const budget = createTurnBudget(REQUESTS_PER_TURN);
  let draining = false;
  let closing: Promise<void> | undefined;
  /** listen() was called and the server has not been listening since (it may be binding). */
  let listenCalled = false;

  const checkEveryMs = Math.min(1000, Math.max(50, Math.floor(o.requestTimeout / 4)));
  const server = http.createServer(
    {
      maxHeaderSize: o.maxHeaderSize,
      requestTimeout: o.requestTimeout,
      headersTimeout: o.requestTimeout,
      // Answered by onRequest with the error object instead of node's empty 400.
      requireHostHeader: false,
      // How often node looks for requests over requestTimeout (its default is every 30 s).
      connectionsCheckingInterval: checkEveryMs,
    },
    (req, res) => answerer.onRequest(req, res),
  ) as GasdigestServer;
  server.keepAliveTimeout = o.keepAliveTimeout;
  server.maxHeadersCount = headerLinesKept(o.maxHeaderSize);
  // When a client half-closes after pipelining requests, answer them all before closing (by
  // default node ends the connection at once, dropping the answers still queued).
  (server as { httpAllowHalfOpen?: boolean }).httpAllowHalfOpen = true;

  const guard = guardConnections(server, connections, {
    maxConnections: o.maxConnections,
    maxPipelinedRequests: o.maxPipelinedRequests,
    budget,
    refusal: () =>
      answerer.error(503, `too many open connections (limit ${o.maxConnections}); try again later`),
    logger,
    requestTimeout: o.requestTimeout,
    keepAliveTimeout: o.keepAliveTimeout,
    writeIdleTimeout: o.writeIdleTimeout,
    // Often enough to see a stalled client within a quarter of writeIdleTimeout too.
    sweepEveryMs: Math.min(checkEveryMs, Math.max(50, Math.floor(o.writeIdleTimeout / 4))),
  });
  const answerer = createAnswerer({
    handler,
    options: o,
    connections,
    guard,
    budget,
    draining: () => draining,
  });
  const { onRequest, replyRaw, error } = answerer;

  // Once listening, an error of the listening socket (accept failing for lack of file
  // descriptors, ...) is logged, not thrown: the connections already open keep being served.
  // Before that (EADDRINUSE, ...) it is the caller's, as with any server.
  server.on("error", (err) => {
    if (server.listening) logger.error({ err }, "accepting connections failed");
    else if (server.listenerCount("error") === 1) throw err;
  });

  // An `Expect` other than 100-continue: our 417 instead of node's empty one.
  server.on("checkExpectation", (req, res) =>
    onRequest(req, res, () =>
      error(417, "unsupported Expect header: only 100-continue is supported"),
    ),
  );
  // Expect: 100-continue: no route reads a body, so answer at once without inviting it.
  server.on("checkContinue", (req, res) => onRequest(req, res));

  // CONNECT (node would destroy the socket silently): answered by the handler, then closed.
  server.on("connect", (req: http.IncomingMessage, socket: Socket) => {
    // node has detached its own error and timeout handling from this socket: without a
    // listener, a client resetting the connection before its answer is written (a write
    // ECONNRESET or EPIPE) would be an unhandled 'error' that ends the process.
    socket.on("error", ignoreSocketError);
    if (guard.isRefused(socket) || connections.get(socket)?.closing) return socket.destroy();
    socket.setTimeout(o.writeIdleTimeout, () => socket.destroy());
    let response: HandlerResponse;
    try {
      response = handler({ method: "CONNECT", url: req.url ?? "", headers: req.headers });
    } catch {
      response = handler.errorResponse(500, "internal_error", "internal error");
    }
    replyRaw(socket, response);
  });

  server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
    const code = err.code ?? "";
    // A peer that went away, a refused one, or a socket that cannot take more: nothing to answer.
    if (guard.isRefused(socket) || code === "ECONNRESET" || code === "EPIPE" || !socket.writable)
      return socket.destroy();
    // Already closing: node reports the same parse error again for every later chunk.
    if (connections.get(socket)?.closing) return;
    // A request timing out while the server reads nothing more of its connection (answers
    // waiting to go out: the pipelining limit, node's back-pressure, the pacer holding bytes):
    // the rest of it may have been sent long ago, and its time is the server's, not the
    // client's. node times a request once: left be, it completes once the answers have gone
    // out; a head that never ends is closed by the sweep (`requestTimeout + keepAliveTimeout`
    // after the last answer).
    if (code === "ERR_HTTP_REQUEST_TIMEOUT" && answerer.heldBack(socket)) return;
    logger.debug({ err: { code, message: err.message } }, "rejected a malformed request");
    // Bad framing of a body whose request was answered: close after that answer, no second one.
    if (answerer.inBody(socket)) return replyRaw(socket, undefined);
    replyRaw(
      socket,
      code === "HPE_HEADER_OVERFLOW"
        ? error(400, `request head is too large (over ${o.maxHeaderSize} bytes)`)
        : code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? error(408, "request timeout")
          : error(400, "malformed request"),
    );
  });

  server.shutdown = function shutdown(): Promise<void> {
    if (closing) return closing;
    draining = true;
    if (o.closeEngine) {
      try {
        engine.close?.();
      } catch (err) {
        logger.error({ err }, "closing the engine failed");
      }
    }
    closing = drainConnections(connections, {
      keepAliveTimeout: o.keepAliveTimeout,
      closeTimeout: o.closeTimeout,
      logger,
      now: () => performance.now(),
      // Also while a listen may be binding: node's close() cancels it (it was left to bind, and
      // the server listened for ever, answering 503 from the closed engine). A server that was
      // never told to listen (sockets handed to it) is left out: node's close() would call back
      // at once, before its connections are drained.
      stopAccepting: server.listening || listenCalled ? stopAccepting : undefined,
    });
    return closing;
  };

  /**
   * node's close() stops accepting, stops its timeout checker and calls back once every
   * connection has ended; but first it destroys the connections it deems idle, including ones
   * whose response is still buffered here (truncating big responses to slow readers) and ones
   * a client is about to reuse. Skip that step: the drain closes connections itself.
   */
  function stopAccepting(done: () => void) {
    server.closeIdleConnections = () => {};
    try {
      http.Server.prototype.close.call(server, () => done());
    } finally {
      delete (server as Partial<GasdigestServer>).closeIdleConnections;
    }
  }

  // A server shut down has a closed engine and drains every connection: listening again would
  // answer everything with `Connection: close` from an engine that ingests nothing.
  const listenOnce = server.listen;
  server.listen = function listen(this: http.Server, ...args: unknown[]) {
    if (closing)
      throw new BaseError(
        "this server was shut down: make a new one with createServer() to listen again",
      );
    // No listener of ours on 'error': node's own handler throws an error nobody listens for
    // (EADDRINUSE) only when it is the sole listener.
    listenCalled = true;
    return (listenOnce as (...a: unknown[]) => http.Server).apply(this, args);
  } as typeof server.listen;

  server.close = function close(callback?: (err?: Error) => void) {
    server.shutdown().then(
      () => callback?.(),
      (err: Error) => callback?.(err),
    );
    return server;
  };

  Object.defineProperty(server, "handler", { value: handler, enumerable: true });
  return server;
}
