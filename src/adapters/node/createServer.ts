import http from "node:http";
import type { Socket } from "node:net";
import {
  createNodeHandler,
  type Handler,
  type HandlerEngine,
  type HandlerOptions,
  type HandlerResponse,
  InvalidConfigError,
  parseCloseEngine,
  safeParseHandlerOptions,
  type ValidationIssue,
} from "../../http/index.js";

/** Options of {@link createServer}: every handler option, plus the node:http ones below. */
export interface NodeServerOptions extends HandlerOptions {
  /**
   * Largest request head (request line and headers) in bytes; a larger one is answered with
   * 400 `web_framework_error` and the connection is closed.
   * @default 16384
   */
  maxHeaderSize?: number;
  /** Idle keep-alive connections are closed after this many ms. @default 5000 */
  keepAliveTimeout?: number;
  /** A request must arrive completely within this many ms, else 408 and the connection closes. @default 30000 */
  requestTimeout?: number;
  /** `close()` destroys connections still open this many ms after it was called. @default 10000 */
  closeTimeout?: number;
  /** `close()` also closes the engine, unsubscribing its sources. @default true */
  closeEngine?: boolean;
}

/** A node:http server serving the gasdigest interface. */
export interface GasdigestServer extends http.Server {
  /** The framework-agnostic handler behind the server. */
  readonly handler: Handler;
  /**
   * Graceful shutdown: stop accepting, let in-flight requests finish (their responses carry
   * `Connection: close`), close idle keep-alive connections, close the engine (unless
   * `closeEngine: false`), destroy what is still open after `closeTimeout`. Resolves when
   * every connection is closed. Idempotent. `server.close(callback)` does the same.
   */
  shutdown(): Promise<void>;
}

const NODE_DEFAULTS = {
  maxHeaderSize: 16_384,
  keepAliveTimeout: 5_000,
  requestTimeout: 30_000,
  closeTimeout: 10_000,
  closeEngine: true,
};
type NodeOnly = typeof NODE_DEFAULTS;
const DRAIN_POLL_MS = 25;

function parseOptions(input: NodeServerOptions | undefined): {
  node: NodeOnly;
  handler: HandlerOptions;
} {
  const issues: ValidationIssue[] = [];
  if (input !== undefined && (typeof input !== "object" || input === null))
    throw new InvalidConfigError([{ path: "", message: "options must be an object" }]);
  const node: NodeOnly = { ...NODE_DEFAULTS };
  const handler: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input ?? {})) {
    if (!Object.hasOwn(NODE_DEFAULTS, key)) {
      handler[key] = value;
      continue;
    }
    if (value === undefined) continue;
    if (key === "closeEngine") {
      node.closeEngine = parseCloseEngine(value, issues);
      continue;
    }
    const min = key === "maxHeaderSize" ? 1024 : key === "closeTimeout" ? 0 : 1;
    if (typeof value === "number" && Number.isSafeInteger(value) && value >= min)
      (node as Record<string, unknown>)[key] = value;
    else
      issues.push({
        path: key,
        message: `must be a whole number >= ${min} (got ${String(value)})`,
      });
  }
  const h = safeParseHandlerOptions(handler);
  if (!h.ok) issues.push(...h.issues);
  if (issues.length > 0) throw new InvalidConfigError(issues);
  return { node, handler: handler as HandlerOptions };
}

/** The status line, headers and body of a response as raw HTTP/1.1 bytes (for `clientError`). */
function rawResponse(res: HandlerResponse): Buffer {
  let head = `HTTP/1.1 ${res.status} ${http.STATUS_CODES[res.status] ?? ""}\r\n`;
  for (const [name, value] of Object.entries(res.headers)) head += `${name}: ${value}\r\n`;
  head += "Connection: close\r\n\r\n";
  const body = res.body === undefined ? Buffer.alloc(0) : Buffer.from(res.body);
  return Buffer.concat([Buffer.from(head, "latin1"), body]);
}

/**
 * A node:http server answering the gasdigest interface (see docs/http.md), with the bridge done
 * carefully: HEAD without a body, aborted clients and write errors never crash it, request
 * heads above `maxHeaderSize` and URLs above `maxUrlLength` get 400 with the error object,
 * keep-alive, and a graceful `close()` / `shutdown()`.
 *
 * @throws {InvalidConfigError} listing every invalid option (handler and server ones).
 * @example
 * import { createEngine, aip34, simulator } from "gasdigest";
 * import { createServer, listen } from "gasdigest/node";
 * const engine = createEngine({ strategy: aip34() });
 * engine.connect(simulator());
 * const server = createServer(engine);
 * const { port } = await listen(server, { port: 8080 });
 * process.on("SIGTERM", () => server.shutdown());
 */
export function createServer(engine: HandlerEngine, options?: NodeServerOptions): GasdigestServer {
  const { node, handler: handlerOptions } = parseOptions(options);
  const handler = createNodeHandler(engine, handlerOptions);
  const logger = handler.options.logger;
  // Open sockets, each with its `bytesRead` when its latest request head was complete: more
  // bytes read since means a request is on its way (a partial head, a body, a pipelined request).
  const sockets = new Map<Socket, number>();
  let draining = false;
  let closing: Promise<void> | undefined;

  function onRequest(req: http.IncomingMessage, res: http.ServerResponse) {
    if (sockets.has(req.socket)) sockets.set(req.socket, req.socket.bytesRead);
    let response: HandlerResponse;
    try {
      response = handler({
        method: req.method ?? "GET",
        url: req.url ?? "/",
        headers: req.headers,
      });
    } catch (err) {
      // The handler catches its own failures; this is a last guard so a request never crashes us.
      logger.error({ err }, "request failed");
      response = handler.errorResponse(500, "internal_error", "internal error");
    }
    try {
      if (draining) res.setHeader("Connection", "close");
      res.writeHead(response.status, response.headers);
      // node sends no body for HEAD (and 204/304) by itself; Content-Length stays as given.
      if (response.body === undefined || req.method === "HEAD") res.end();
      else res.end(response.body);
    } catch (err) {
      // A client that went away, or a response the socket can no longer take.
      logger.debug({ err, url: req.url }, "could not write the response");
      res.destroy();
    }
  }

  const server = http.createServer(
    {
      maxHeaderSize: node.maxHeaderSize,
      requestTimeout: node.requestTimeout,
      headersTimeout: node.requestTimeout,
    },
    onRequest,
  ) as GasdigestServer;
  server.keepAliveTimeout = node.keepAliveTimeout;

  server.on("connection", (socket: Socket) => {
    sockets.set(socket, 0);
    socket.once("close", () => sockets.delete(socket));
  });

  server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
    const code = err.code ?? "";
    // A peer that went away, or a socket that cannot take more: nothing to answer.
    // (Responses are always complete before the next request is parsed, so an answer written
    // here never lands inside another response.)
    if (code === "ECONNRESET" || code === "EPIPE" || !socket.writable) {
      socket.destroy();
      return;
    }
    let response: HandlerResponse;
    if (code === "HPE_HEADER_OVERFLOW")
      response = handler.errorResponse(
        400,
        "web_framework_error",
        `request head is too large (over ${node.maxHeaderSize} bytes)`,
      );
    else if (code === "ERR_HTTP_REQUEST_TIMEOUT")
      response = handler.errorResponse(408, "web_framework_error", "request timeout");
    else response = handler.errorResponse(400, "web_framework_error", "malformed request");
    logger.debug({ err: { code, message: err.message } }, "rejected a malformed request");
    socket.end(rawResponse(response), () => socket.destroy());
  });

  /** A socket with nothing left to send and no request arriving: `end()` loses nothing. */
  const isIdle = (socket: Socket, mark: number) =>
    socket.writableLength === 0 && socket.bytesRead === mark;

  function endIdleSockets() {
    for (const [socket, mark] of sockets)
      if (isIdle(socket, mark) && !socket.writableEnded) socket.end();
  }

  server.shutdown = function shutdown(): Promise<void> {
    if (closing) return closing;
    draining = true;
    closing = new Promise<void>((resolve) => {
      if (node.closeEngine) {
        try {
          engine.close();
        } catch (err) {
          logger.error({ err }, "closing the engine failed");
        }
      }
      const wasListening = server.listening;
      let poll: NodeJS.Timeout | undefined;
      let force: NodeJS.Timeout | undefined;
      const finish = () => {
        clearInterval(poll);
        clearTimeout(force);
        resolve();
      };
      if (wasListening) {
        // node's close() stops accepting, stops its timeout checker and calls back once every
        // connection has ended; but first it destroys the connections it deems idle, including
        // ones whose response is still buffered here (truncating big responses to slow
        // readers). Skip that step: idle connections are ended below, once really idle.
        server.closeIdleConnections = () => {};
        try {
          http.Server.prototype.close.call(server, () => finish());
        } finally {
          delete (server as Partial<GasdigestServer>).closeIdleConnections;
        }
      }
      // Requests in flight get `Connection: close`; a response that started before is left to
      // flush, then its socket sits idle and is ended here instead of after keepAliveTimeout.
      poll = setInterval(() => {
        endIdleSockets();
        if (!wasListening && sockets.size === 0) finish();
      }, DRAIN_POLL_MS);
      endIdleSockets();
      force = setTimeout(() => {
        logger.warn({ open: sockets.size }, "destroying connections still open after closeTimeout");
        for (const socket of sockets.keys()) socket.destroy();
      }, node.closeTimeout);
      force.unref();
    });
    return closing;
  };

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
