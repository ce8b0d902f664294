import type http from "node:http";
import type { Socket } from "node:net";
import { asksUpgrade } from "../../http/asksUpgrade.js";
import type { Handler, HandlerResponse } from "../../http/index.js";
import type { ConnectionTable, TrackedConnection } from "./createConnectionTable.js";
import type { TurnBudget } from "./createTurnBudget.js";
import { MAX_FIELD_LINES, tooManyFieldLines } from "./fieldLines.js";
import { framingProblem } from "./framingProblem.js";
import type { ConnectionGuard } from "./guardConnections.js";
import { hostProblem } from "./hostHeader.js";
import { paceRequests } from "./paceRequests.js";
import type { ResolvedServerOptions } from "./parseServerOptions.js";
import { rawResponse } from "./rawResponse.js";

/** How long a connection closed for an oversized body stays open, reading nothing (see `lingerClose`). */
const LINGER_MS = 1000;
/** How often the bytes read for a chunked body are looked at (see `capBody`). */
const BODY_CHECK_MS = 50;

/** What {@link createAnswerer} works with. */
export interface AnswererContext {
  handler: Handler;
  options: ResolvedServerOptions;
  connections: ConnectionTable;
  guard: ConnectionGuard;
  budget: TurnBudget;
  /** Whether the server is draining (every answer then carries `Connection: close`). */
  draining: () => boolean;
}

/** The request side of the node server. */
export interface Answerer {
  /**
   * Answer a request node parsed: the connection's book-keeping and limits, then the handler's
   * answer (`respond` replaces the route, for node's special cases such as `Expect`).
   */
  onRequest(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    respond?: () => HandlerResponse,
  ): void;
  /**
   * An error reply written straight to the socket (node has no response object for it: a
   * malformed request, CONNECT). Answers already queued on the connection go out first;
   * nothing after it is answered, and the connection closes. `undefined`: close without a reply.
   */
  replyRaw(socket: Socket, response: HandlerResponse | undefined): void;
  /**
   * Whether the newest request node parsed on `socket` is still receiving its body. A parse
   * error then lies in that body, and the request has its answer already (no route waits for a
   * body): a second status line would answer a request the client never sent.
   */
  inBody(socket: Socket): boolean;
  /**
   * Whether the server reads nothing more of `socket` for now because answers of it are
   * waiting to go out (the pipelining limit, node's back-pressure, or bytes the pacer holds):
   * a request arriving on it is waiting on the server, not on its client.
   */
  heldBack(socket: Socket): boolean;
  /** A `web_framework_error` error object response. */
  error(status: number, message: string): HandlerResponse;
}

/**
 * The request side of the node server: answers every request node parses with the handler, in
 * order, keeping each connection's count of answers still to go out, and enforces the limits
 * that apply per request (pipelining, header lines, `Host`, framing, body size).
 *
 * @example
 * const answerer = createAnswerer({ handler, options, connections, guard, budget, draining: () => false });
 * server.on("request", (req, res) => answerer.onRequest(req, res));
 */
export function createAnswerer(context: AnswererContext): Answerer {
  const { handler, options: o, connections, guard, budget } = context;
  const logger = handler.options.logger;

  const error = (status: number, message: string) =>
    handler.errorResponse(status, "web_framework_error", message);

  function send(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    response: HandlerResponse,
    close = false,
  ) {
    try {
      if (close || context.draining()) res.setHeader("Connection", "close");
      res.writeHead(response.status, response.headers);
      // node sends no body for HEAD (and 204/304) by itself; Content-Length stays as given.
      if (response.body === undefined || req.method === "HEAD") res.end();
      else res.end(response.body);
      // What the kernel did not take waits here: the client has until writeIdleTimeout to read.
      if (res.socket !== null && res.socket.writableLength > 0) {
        res.socket.setTimeout(o.writeIdleTimeout);
        // The bytes waiting now are what the client's reads are measured against (see
        // `noteWrites`): without this, what it reads before the next look would go unseen.
        const c = connections.get(res.socket);
        if (c !== undefined) connections.noteWrites(c, performance.now());
      }
    } catch (err) {
      // A client that went away, or a response the socket can no longer take.
      logger.debug({ err, url: req.url }, "could not write the response");
      res.destroy();
    }
  }

  /** Write `bytes` as the last thing on `socket`, then close it. */
  function endWith(socket: Socket, bytes: Buffer) {
    if (!socket.writable) socket.destroy();
    else socket.end(bytes, () => socket.destroy());
  }

  /**
   * An answer went out (`this` is its response): once none is left on its connection, send the
   * error reply that waited for them. If the next answer is stuck, the client has until
   * `writeIdleTimeout` to read some of it.
   */
  function onAnswered(this: http.ServerResponse) {
    // (Found through the request's socket: a function shared by every response, no closure.)
    const c = connections.get(this.req.socket);
    if (c === undefined) return; // closed meanwhile
    const now = performance.now();
    c.inFlight--;
    c.lastProgress = now;
    connections.noteWrites(c, now);
    if (c.socket.writableLength > 0) c.socket.setTimeout(o.writeIdleTimeout);
    if (c.inFlight === 0) {
      if (c.deferred !== undefined) {
        const bytes = c.deferred;
        c.deferred = undefined;
        endWith(c.socket, bytes);
      } else if (!c.closing) connections.settled(c, now);
    }
    c.pump();
  }

  /**
   * A request's body has all arrived (`this` is the request): unless a later request was parsed
   * meanwhile, the bytes read so far are no request on its way, and the connection is idle
   * again once it owes nothing (else a body sent after its head, which no route waits for, kept
   * the connection from the keep-alive timeout: it stayed open until the sweep closed it,
   * `requestTimeout + keepAliveTimeout` later).
   */
  function onBodyEnd(this: http.IncomingMessage) {
    const c = connections.get(this.socket);
    if (c !== undefined && c.request === this) c.mark = this.socket.bytesRead;
  }

  /**
   * node (parsing in C++) handed us more pipelined requests from one read than the connection
   * may have waiting: answer this one with 503 and close after it, leave the rest of the read
   * unanswered, and pace every connection from now on (so that a flood on many connections
   * costs one read, not one per connection).
   *
   * The answers queued ahead of the 503 go out first, then the 503, and node closes the
   * connection after it. A client that reads none of them is closed after `writeIdleTimeout`
   * (armed as an answer waits in the socket, see `send`), like any client that stops reading.
   * The requests parsed after this one stay in memory until then (node holds them until the
   * socket closes), and nothing more may be parsed meanwhile: node resumes reading a socket it
   * paused once its answers drain, even one paused again meanwhile. So from the next turn of the
   * event loop (node is parsing this read now) the connection's bytes go through the pacer,
   * which discards what a closing connection sends.
   */
  function overflow(c: TrackedConnection, req: http.IncomingMessage, res: http.ServerResponse) {
    closeAfter(c);
    setImmediate(() => {
      if (c.paced || c.socket.destroyed) return;
      const pump = paceRequests(c.socket, c, 0, budget);
      if (pump === undefined) return;
      c.paced = true;
      c.pump = pump;
      pump();
    });
    send(
      req,
      res,
      error(
        503,
        `too many pipelined requests: over ${o.maxPipelinedRequests} waiting for an answer on this connection`,
      ),
      true,
    );
    guard.flooded();
  }

  /** `c` closes after the answers already given: parse and answer nothing more on it. */
  function closeAfter(c: TrackedConnection | undefined) {
    if (c === undefined) return;
    c.closing = true;
    c.pump();
  }

  /**
   * An error reply written straight to the socket (node has no response object for it). Answers
   * already queued on the connection go out first; nothing after it is answered.
   */
  function replyRaw(socket: Socket, response: HandlerResponse | undefined) {
    const c = connections.get(socket);
    const bytes = response === undefined ? Buffer.alloc(0) : rawResponse(response);
    if (c !== undefined) {
      closeAfter(c);
      if (c.inFlight > 0) {
        c.deferred = bytes;
        return;
      }
    }
    endWith(socket, bytes);
  }

  /**
   * Close a connection whose client is still sending a body past the cap: read nothing more,
   * end it after what is written, and destroy it after LINGER_MS (or once the client closes).
   * Destroying at once, with its bytes unread, resets the connection, and a reset can discard
   * the answer before the client has read it.
   */
  function lingerClose(req: http.IncomingMessage) {
    const socket = req.socket;
    req.removeAllListeners("data");
    req.pause();
    socket.pause();
    // node resumes the socket itself when the answer finishes (it drains a request body nobody
    // read): keep it paused, or it reads on at whatever rate the client sends until the linger ends.
    socket.on("resume", () => socket.pause());
    if (socket.writable) socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
  }

  /**
   * A chunked body: count its bytes as they are discarded, and what the connection reads meanwhile:
   * framing is no body, and an endless chunk-size line of zeros, or 1-byte chunks with 16 KB
   * extensions, decode to nothing or next to nothing (such a body used to be read until
   * `requestTimeout`, at whatever rate the client sent: 199 MB in 30 s). Past `maxBodySize`
   * decoded, or `maxBodySize + maxHeaderSize` read (framing and trailers), close the connection.
   * The reads are looked at as they come: listening to the socket's data makes node hand them to
   * its parser in JavaScript rather than C++ (for this connection only, and its parse is the
   * same); and every {@link BODY_CHECK_MS} as well, should a node version not allow that.
   */
  function capBody(req: http.IncomingMessage, c: TrackedConnection | undefined) {
    const socket = req.socket;
    const from = socket.bytesRead;
    let seen = 0;
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    function stop() {
      done = true;
      clearInterval(timer);
      socket.removeListener("data", onRead);
      socket.removeListener("close", stop);
    }
    function close() {
      if (done) return;
      stop();
      logger.debug({ url: req.url, limit: o.maxBodySize }, "request body over the cap: closing");
      closeAfter(c);
      lingerClose(req);
    }
    // The bytes read for the body since its head: what the connection read, less what the pacer
    // holds unparsed. Once the body is complete, what the same reads held is other requests.
    function onRead() {
      if (
        !req.complete &&
        socket.bytesRead - (c?.held ?? 0) - from > o.maxBodySize + o.maxHeaderSize
      )
        close();
    }
    // (Decoded bytes arrive in the middle of a parse, when the read may hold requests after it.)
    req.on("data", (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > o.maxBodySize) close();
    });
    req.once("end", stop);
    req.once("close", stop);
    // node emits neither on a request already answered whose connection closes.
    socket.once("close", stop);
    socket.on("data", onRead);
    timer = setInterval(onRead, BODY_CHECK_MS);
    timer.unref();
  }

  /**
   * Every request: the connection's book-keeping and limits, then the answer (`respond`
   * replaces the route, for node's special cases).
   */
  function onRequest(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    respond?: () => HandlerResponse,
  ) {
    const socket = req.socket;
    budget.spend();
    const c = connections.get(socket);
    if (c === undefined && guard.isRefused(socket)) return;
    if (c !== undefined) {
      c.request = req;
      // The connection closes after the answers already queued: leave the rest unanswered.
      if (c.closing) return;
      c.inFlight++;
      c.mark = socket.bytesRead;
      c.lastProgress = performance.now();
      res.on("close", onAnswered);
      if (c.inFlight >= o.maxPipelinedRequests) {
        if (!c.paced && c.inFlight > o.maxPipelinedRequests) return overflow(c, req, res);
        c.pump();
      }
    }
    // (Before the Host rules: past the lines node keeps, a second Host would go unseen.)
    if (tooManyFieldLines(req)) {
      closeAfter(c);
      return send(
        req,
        res,
        error(431, `too many header fields (over ${MAX_FIELD_LINES} lines)`),
        true,
      );
    }
    // Node's parser takes any one-digit version; only HTTP/1.x is answered (2.0 without the
    // preface, or a request line with none, "0.9", is another protocol).
    if (req.httpVersionMajor !== 1) {
      closeAfter(c);
      return send(req, res, error(505, `HTTP version not supported: ${req.httpVersion}`), true);
    }
    const problem = hostProblem(req) ?? framingProblem(req);
    if (problem !== undefined) {
      closeAfter(c);
      return send(req, res, error(400, problem), true);
    }
    const length = req.headers["content-length"];
    if (length !== undefined && Number(length) > o.maxBodySize) {
      closeAfter(c);
      // Claim the body (node would read and discard all of it after the answer), and once the
      // answer is out close the connection lingering, not with node's immediate destroy.
      req.read(0);
      socket.destroySoon = () => lingerClose(req);
      return send(
        req,
        res,
        error(413, `request body is too large (over ${o.maxBodySize} bytes)`),
        true,
      );
    }
    if (req.headers["transfer-encoding"] !== undefined) capBody(req, c);
    if (req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0"))
      req.once("end", onBodyEnd);
    // A request asking to upgrade: node's parser stops at its head, and what the client sent
    // after it in the same read is dropped (it is for an `upgrade` listener, and the server has
    // none). Answered, then closed: kept open, the next answer would go to a request the client
    // sent after the dropped ones, and a pipelining client would take it for a dropped one's.
    const upgrading = asksUpgrade(req.headers);
    if (upgrading) closeAfter(c);
    let response: HandlerResponse | Promise<HandlerResponse>;
    try {
      response = respond
        ? respond()
        : handler.respond({
            method: req.method ?? "GET",
            url: req.url ?? "/",
            headers: req.headers,
          });
    } catch (err) {
      // The handler catches its own failures; this is a last guard so a request never crashes us.
      logger.error({ err }, "request failed");
      response = handler.errorResponse(500, "internal_error", "internal error");
    }
    // Only the metrics scrape is asynchronous; node sends pipelined answers in order all the same.
    if (response instanceof Promise)
      response.then(
        (r) => send(req, res, r, upgrading),
        (err: unknown) => {
          // The handler's scrape answers its own failures; this guard keeps a rejection from
          // taking the process down and the request from going unanswered.
          logger.error({ err }, "request failed");
          send(req, res, handler.errorResponse(500, "internal_error", "internal error"));
        },
      );
    else send(req, res, response, upgrading);
  }

  const inBody = (socket: Socket) => connections.get(socket)?.request?.complete === false;
  function heldBack(socket: Socket) {
    const c = connections.get(socket);
    return c !== undefined && c.inFlight > 0 && (socket.isPaused() || c.held > 0);
  }
  return { onRequest, replyRaw, inBody, heldBack, error };
}
