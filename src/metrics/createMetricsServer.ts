import http from "node:http";
import type { Socket } from "node:net";
import { asksUpgrade } from "../http/asksUpgrade.js";
import { checkScrape } from "../http/createScrape.js";
import { encodeErrorObject } from "../http/encodeErrorObject.js";
import { originForm } from "../http/mount.js";
import type { HandlerMetrics } from "../http/types.js";
import { createPlaces } from "./createPlaces.js";
import { type MetricsServerOptions, parseMetricsServerOptions } from "./metricsServerOptions.js";

/** A node:http server answering only the metrics scrape. */
export interface MetricsServer extends http.Server {
  /**
   * Stop accepting, let answers in progress finish (each closes its connection), destroy what is
   * left after `closeTimeout`.
   */
  shutdown(): Promise<void>;
}

/** Requests one connection may make before it is closed. */
const MAX_REQUESTS_PER_CONNECTION = 100;
/**
 * A connection whose request carries a body is closed after its answer, reading nothing more:
 * it stays open this long once the answer is out, so that closing does not reset the connection
 * before the client has read it.
 */
const LINGER_MS = 1000;

/**
 * A small node:http server for the scrape alone, so the metrics can stay off the public port
 * (bind it to 127.0.0.1 or a private interface): `GET`/`HEAD` of `path` answers
 * `metrics.scrape()` (one that throws, rejects or answers no `{ contentType, body }` is the 500
 * `internal_error`, logged, as through the handler), anything else the error object (404, or
 * 405 for another method). Each scrape is recorded as a request of route `path`. Head size,
 * request time (408 at `requestTimeout`), connections (a newcomer past `maxConnections` takes
 * the place of the one idle longest), requests per connection (100; node answers more 503 and
 * closes) and the time a client may leave an answer unread (`writeIdleTimeout`) are capped, and
 * requests arriving while a scrape is collected share it; a request carrying a body, or asking
 * to upgrade, is answered and its connection closed, the body unread. A malformed request is
 * answered 400 (431, 408) after the answers pipelined ahead of it, then closed. What node itself
 * answers is left to it: `CONNECT` closes the connection, an unknown `Expect` is node's 417, a
 * request without `Host` node's 400 (Prometheus sends none of these).
 *
 * @throws {InvalidConfigError} listing every invalid option.
 * @example
 * import { listen } from "gasdigest/node";
 * import { createMetrics, createMetricsServer } from "gasdigest/metrics";
 * const metrics = createMetrics({ engine });
 * await listen(createMetricsServer(metrics), { host: "127.0.0.1", port: 9464 });
 */
export function createMetricsServer(
  metrics: HandlerMetrics,
  options: MetricsServerOptions = {},
): MetricsServer {
  const { path, limits, logger } = parseMetricsServerOptions(metrics, options);
  try {
    metrics.declareRoutes?.([path]);
  } catch {
    // ignored, as for the handler
  }
  // Requests that arrive while a scrape is being collected share it: a client pipelining
  // thousands of requests costs one collection, not one each.
  let collecting: Promise<ReturnType<typeof checkScrape>> | undefined;
  const scrape = () => {
    if (collecting === undefined) {
      // Checked as the handler checks it: anything but a scrape is a 500, never a throw in the
      // answer below (an unhandled rejection, which ended the process).
      const p = Promise.resolve()
        .then(() => metrics.scrape())
        .then(checkScrape);
      collecting = p;
      const done = () => {
        if (collecting === p) collecting = undefined;
      };
      // A failed collection is logged once, however many requests shared it (as the handler's).
      p.then(done, (err: unknown) => {
        done();
        try {
          logger?.error({ err }, "collecting the metrics failed");
        } catch {
          // a failing logger never fails the answer
        }
      });
    }
    return collecting;
  };
  const server = http.createServer(
    {
      maxHeaderSize: 8192,
      requestTimeout: limits.requestTimeout,
      headersTimeout: limits.requestTimeout,
      // A request still arriving after requestTimeout is answered then, not up to 30 s later.
      connectionsCheckingInterval: Math.min(
        1000,
        Math.max(50, Math.floor(limits.requestTimeout / 4)),
      ),
    },
    (req, res) => {
      // No route reads a body: answer, then close, reading none of it. node would read and
      // discard the body for as long as it lasts (until requestTimeout: gigabytes on loopback),
      // at the cost of the whole process, the main port's requests included.
      if (hasBody(req)) closeUnread(req, res);
      // node's parser stops at the head of a request asking to upgrade, and what followed it in
      // the same read is dropped (no `upgrade` listener): close after its answer, so the answer
      // to a later request is not taken for a dropped one's.
      else if (asksUpgrade(req.headers)) res.setHeader("Connection", "close");
      res.once("close", places.begin(req.socket));
      const target = req.url ?? "/";
      // An absolute-form target (`http://host/metrics`), which HTTP/1.1 servers must accept,
      // lies where its path does, as on the main port.
      const url = target.charCodeAt(0) === 47 ? target : (originForm(target) ?? target);
      const q = url.indexOf("?");
      const method = req.method ?? "GET";
      if ((q === -1 ? url : url.slice(0, q)) !== path)
        return answer(res, 404, { "Content-Type": "application/json" }, error("not found"));
      if (method !== "GET" && method !== "HEAD")
        return answer(
          res,
          405,
          { "Content-Type": "application/json", Allow: "GET, HEAD" },
          error("method not allowed"),
        );
      const start = performance.now();
      // Once this answer is out, node hands the socket to the next pipelined one and writes it.
      res.on("finish", () => stalled(req.socket));
      scrape().then(
        ({ contentType, body }) => {
          answer(res, 200, { "Content-Type": contentType }, body, method === "HEAD");
          stalled(req.socket);
          record(200, start);
        },
        () => {
          answer(
            res,
            500,
            { "Content-Type": "application/json" },
            error("collecting the metrics failed", "internal_error"),
          );
          record(500, start);
        },
      );
    },
  ) as MetricsServer;
  // Places are given by `createPlaces`, not node's maxConnections, which refuses every newcomer
  // once full, whoever holds the places and however little they do with them.
  const places = createPlaces(limits.maxConnections);
  server.on("connection", (socket: Socket) => {
    if (!places.admit(socket)) socket.destroy();
  });
  server.keepAliveTimeout = limits.keepAliveTimeout;
  // A connection is closed after this many requests (node answers more 503 and closes): a
  // client pipelining requests without reading the answers holds a few scrapes' worth, not one
  // copy of the scrape per request. Prometheus sends one request per scrape interval and
  // reconnects.
  server.maxRequestsPerSocket = MAX_REQUESTS_PER_CONNECTION;
  // A socket timed out (node's keep-alive timer on an idle connection): with a listener here node
  // no longer destroys it by itself, so decide: an answer waiting, or no request open, is
  // destroyed; a connection whose client read everything while its next (pipelined) scrape is
  // still being collected is not.
  server.on("timeout", (socket: Socket & { _httpMessage?: unknown }) => {
    if (socket.writableLength > 0 || !socket._httpMessage) socket.destroy();
  });
  // Sockets whose error reply waits for the answers ahead of it (node reports the same parse
  // error again for every later chunk: one reply).
  const failing = new WeakSet<Socket>();
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || err.code === "ECONNRESET") return socket.destroy();
    if (failing.has(socket)) return;
    failing.add(socket);
    // Nothing more it sends is read (node resumes a socket once its answers drain: paused again).
    socket.pause();
    socket.on("resume", () => socket.pause());
    const [status, message] =
      err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? ["408 Request Timeout", "request timed out"]
        : err.code === "HPE_HEADER_OVERFLOW"
          ? ["431 Request Header Fields Too Large", "request head is too large"]
          : ["400 Bad Request", "malformed request"];
    const body = error(message);
    // After the answers to the requests pipelined ahead of it, in order: written at once, it
    // went out before a scrape still being collected, and the client took it for that answer.
    // Destroyed LINGER_MS after all of it went to the kernel, not at once: the answers ahead
    // may still wait in the socket (a busy machine), and destroying it dropped them with the
    // 400. A client that reads none of it is destroyed at writeIdleTimeout, as any other.
    places.afterAnswers(socket, () => {
      if (!socket.writable) return socket.destroy();
      socket.once("finish", () => {
        const timer = setTimeout(() => socket.destroy(), LINGER_MS);
        timer.unref();
        socket.once("close", () => clearTimeout(timer));
      });
      socket.end(
        `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
  });

  /**
   * What the kernel did not take of an answer waits in its socket: the client has until
   * `writeIdleTimeout` to read some of it, measured on the bytes the kernel takes (node's own
   * socket timer counts each byte read as activity too: a client that never read but sent a blank
   * line every 100 ms held its connection for ever, and node arms no timer at all while an
   * answer is stuck). Looked at when an answer is written and when one finishes (the next one has
   * just been written then); one watch per socket, until nothing waits in it.
   */
  const watched = new WeakSet<Socket>();
  function stalled(socket: Socket) {
    if (socket.writableLength === 0 || watched.has(socket)) return;
    watched.add(socket);
    // Bytes whose write completed (what `bytesWritten` counts, less what still waits).
    const taken = () => socket.bytesWritten - socket.writableLength;
    let mark = taken();
    // Ends the watch and lets go of the socket: a keep-alive connection is watched again at its
    // next stalled answer, and each watch left a 'close' listener behind (node warned of a leak
    // after 10 of them).
    const stop = () => {
      clearInterval(timer);
      watched.delete(socket);
      socket.removeListener("close", stop);
    };
    const timer = setInterval(() => {
      if (socket.destroyed || socket.writableLength === 0) return stop();
      if (taken() === mark) {
        stop();
        socket.destroy();
        return;
      }
      mark = taken();
    }, limits.writeIdleTimeout);
    timer.unref();
    socket.once("close", stop);
  }

  /**
   * {@link reply}, closing the connection once `shutdown()` began: node keeps alive the
   * connection of an answer in progress at `close()` (a scrape being collected or sent), and
   * `shutdown()` then waited `closeTimeout` for it.
   */
  function answer(...[res, status, headers, body, head]: Parameters<typeof reply>) {
    reply(
      res,
      status,
      closing === undefined ? headers : { ...headers, Connection: "close" },
      body,
      head,
    );
  }

  function record(status: number, start: number) {
    try {
      metrics.observeRequest(path, status, (performance.now() - start) / 1000);
    } catch {
      // ignored, as for the handler
    }
  }

  let closing: Promise<void> | undefined;
  server.shutdown = () => {
    closing ??= new Promise<void>((resolve) => {
      const timer = setTimeout(() => server.closeAllConnections(), limits.closeTimeout);
      timer.unref();
      server.close(() => {
        clearTimeout(timer);
        resolve();
      });
      server.closeIdleConnections();
    });
    return closing;
  };
  return server;
}

/** Whether a request announces a body (`Transfer-Encoding`, or a `Content-Length` other than 0). */
function hasBody(req: http.IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return (
    req.headers["transfer-encoding"] !== undefined || (length !== undefined && Number(length) !== 0)
  );
}

/**
 * Answer `req` with `Connection: close` and read nothing more from its socket: the body stays
 * unread (node resumes the socket to discard it once the answer is out: it is paused again),
 * and the connection is destroyed {@link LINGER_MS} after the answer was handed to it.
 */
function closeUnread(req: http.IncomingMessage, res: http.ServerResponse) {
  const socket = req.socket;
  res.setHeader("Connection", "close");
  socket.pause();
  socket.on("resume", () => socket.pause());
  // What node calls once a `Connection: close` answer is out.
  socket.destroySoon = () => {
    if (socket.writable) socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
  };
}

function error(
  message: string,
  code: "web_framework_error" | "internal_error" = "web_framework_error",
) {
  return encodeErrorObject(code, message);
}

function reply(
  res: http.ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
  head = false,
) {
  try {
    // A HEAD answer carries the length its GET would have, and no body.
    const length = body === undefined ? undefined : Buffer.byteLength(body);
    res.writeHead(status, {
      ...headers,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      ...(length === undefined ? {} : { "Content-Length": String(length) }),
    });
    res.end(head ? undefined : body);
  } catch {
    res.destroy();
  }
}
