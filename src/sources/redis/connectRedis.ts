import { isIP } from "node:net";
import type { Redis } from "ioredis";
import { BaseError } from "../../core/errors.js";
import { commandFailure, RedisFeedError } from "./errors.js";
import { adoptClient, hardenIoredis } from "./hardenIoredis.js";
import type { RedisTarget } from "./parseRedisUrl.js";

type RedisClass = typeof Redis;
let loading: Promise<RedisClass> | undefined;

/**
 * Load the `ioredis` client on first use: it is an optional peer dependency, needed only by the
 * Redis source and sink, so nothing else of gasdigest loads it.
 *
 * @throws {BaseError} when `ioredis` is not installed, saying how to install it.
 * @example
 * const Redis = await loadIoredis();
 */
export function loadIoredis(): Promise<RedisClass> {
  loading ??= import("ioredis").then(
    async (m) => {
      await hardenIoredis();
      return (m.Redis ?? m.default) as RedisClass;
    },
    (cause) => {
      loading = undefined;
      throw new BaseError("the Redis feed needs the ioredis package, which is not installed", {
        details: "install it next to gasdigest: npm install ioredis",
        cause,
      });
    },
  );
  return loading;
}

/** One connection to Redis, dropped at the first failure (the caller makes a new one). */
export interface RedisConnection {
  readonly client: Redis;
  /** The server's URL without credentials, for messages. */
  readonly url: string;
  /**
   * Run `what` with the connection's timeout (plus `extraMs`, e.g. an `XREAD BLOCK` time). A
   * timeout closes the connection. Failures become a {@link RedisFeedError}: `timeout`,
   * `closed` (the connection went away), `wrong_type` or `command` (Redis answered an error).
   */
  call<T>(what: (client: Redis) => Promise<T>, extraMs?: number): Promise<T>;
  /** Close the connection at once (pending calls fail with `closed`). Idempotent. */
  close(): void;
}

/** Options of {@link connectRedis}. */
export interface ConnectRedisOptions {
  /** Longest wait for the connection and for each answer, in ms. */
  timeoutMs: number;
  /** `CLIENT SETNAME` of the connection, shown by `CLIENT LIST`. */
  name: string;
  /** Gives up connecting when it aborts (the connection is closed; `closed` is thrown). */
  signal?: AbortSignal;
}

/**
 * Open one connection to Redis, with no automatic reconnection and no offline queue: a call on a
 * broken connection fails at once, so the source and the sink can reconnect with their own
 * backoff and events.
 *
 * @throws {RedisFeedError} `connect` (with the socket error as details) or `timeout`.
 * @example
 * const conn = await connectRedis(parseRedisUrl("redis://127.0.0.1:6379"), { timeoutMs: 5000, name: "gasdigest" });
 * const top = await conn.call((c) => c.xrevrange("gasdigest:blocks", "+", "-", "COUNT", 1));
 */
export async function connectRedis(
  target: RedisTarget,
  options: ConnectRedisOptions,
): Promise<RedisConnection> {
  const Client = await loadIoredis();
  const host = target.host.startsWith("[") ? target.host.slice(1, -1) : target.host;
  let lastError: Error | undefined;
  let closed = false;
  const client = new Client({
    host,
    port: target.port,
    db: target.db,
    ...(target.username === undefined ? {} : { username: target.username }),
    ...(target.password === undefined ? {} : { password: target.password }),
    // TLS names the host (SNI) unless it is an address: Node sends no server name of its own,
    // and a managed Redis behind a proxy that routes by it refuses the handshake without one.
    ...(target.tls ? { tls: isIP(host) === 0 ? { servername: host } : {} } : {}),
    lazyConnect: true,
    retryStrategy: () => null,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    connectTimeout: options.timeoutMs,
    // On disconnect, ioredis ends the socket and destroys it after this long unless it closes
    // first: a socket already gone (a refused connect) or a peer that ignores the FIN never
    // closes, and the timer (2 s by default) kept the process alive after close().
    disconnectTimeout: 0,
    connectionName: options.name,
    disableClientInfo: true,
    protocol: 2,
  });
  adoptClient(client);
  client.on("error", (e: Error) => {
    lastError = e;
  });
  const close = () => {
    if (closed) return;
    closed = true;
    client.disconnect();
  };
  const fail = (kind: "connect" | "timeout" | "closed", cause?: unknown, details?: string) =>
    new RedisFeedError(target.display, kind, { details: details ?? lastError?.message, cause });

  // Stopping while connecting (a Redis that accepts the socket and answers nothing) must not
  // wait out the timeout: close, and the connect below fails at once.
  const { signal } = options;
  signal?.addEventListener("abort", close, { once: true });
  try {
    if (signal?.aborted) throw fail("closed");
    await withTimeout(client.connect(), options.timeoutMs);
  } catch (e) {
    // "connect": the connection is open, the client's ready check (INFO) not passed.
    const status = client.status;
    close();
    if (e instanceof RedisFeedError) throw e;
    if (signal?.aborted) throw fail("closed", e);
    // A plain server answers a TLS hello with nothing: say what the likely cause is.
    if (e === TIMEOUT && target.tls && lastError === undefined)
      throw fail("timeout", undefined, TLS_TIMEOUT_HINT);
    // Redis loading its data after a restart answers the ready check with `loading:1` until it
    // is done: the client waits, and "no answer" alone sent the operator after the network.
    if (e === TIMEOUT && status === "connect" && lastError === undefined)
      throw fail("timeout", undefined, NOT_READY_HINT);
    if (e === TIMEOUT) throw fail("timeout");
    // Redis at its maxclients accepts a connection, writes its refusal and closes it before the
    // client reads it: all that is left is the write that failed (EPIPE, ECONNRESET).
    const code = (lastError as NodeJS.ErrnoException | undefined)?.code;
    if (code === "EPIPE" || code === "ECONNRESET")
      throw fail("connect", e, `${lastError?.message}: ${CLOSED_AT_ONCE_HINT}`);
    throw fail("connect", e);
  } finally {
    signal?.removeEventListener("abort", close);
  }
  // ioredis sends the URL's SELECT on connect but only reports its failure as an 'error' event,
  // and goes on in database 0: a replica of /16 on a server of 16 databases would read another
  // stream without a word. Select it again, and fail the connection if Redis refuses.
  if (target.db !== 0) {
    try {
      await withTimeout(client.select(target.db), options.timeoutMs);
    } catch (e) {
      close();
      if (e === TIMEOUT) throw fail("timeout");
      throw new RedisFeedError(target.display, "command", {
        message: `Redis at ${target.display} refuses database ${target.db}`,
        details: (e as Error)?.message ?? String(e),
        cause: e,
      });
    }
  }

  return {
    client,
    url: target.display,
    close,
    async call(what, extraMs = 0) {
      if (closed || client.status !== "ready") throw fail("closed");
      try {
        return await withTimeout(what(client), options.timeoutMs + extraMs);
      } catch (e) {
        if (e === TIMEOUT) {
          close();
          throw fail("timeout");
        }
        if (closed || client.status !== "ready") {
          close();
          throw fail("closed", e);
        }
        throw commandFailure(target.display, e);
      }
    },
  };
}

const TIMEOUT = Symbol("timeout");

/** Why a server closes a connection as soon as it is open. */
const CLOSED_AT_ONCE_HINT =
  "the server closed the connection as soon as it was open, as Redis does once it holds maxclients connections (compare connected_clients with maxclients in INFO clients: every replica and publisher holds one), or a TLS-only port reached with redis://";

/** Why a connection that opened never became ready. */
const NOT_READY_HINT =
  "the connection opened, but the server did not pass the client's ready check (INFO) in time: Redis loading its data after a restart answers loading:1 until it is done (see loading_eta_seconds in INFO persistence), or the server answers nothing";

/** Why a `rediss://` connection that never completes is most likely stuck. */
const TLS_TIMEOUT_HINT =
  "no TLS handshake completed: rediss:// connects with TLS, so a server without TLS on that port never answers (use redis:// for a plain server; a private CA is trusted with NODE_EXTRA_CA_CERTS)";

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(TIMEOUT), ms);
  });
  promise.catch(() => undefined);
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
