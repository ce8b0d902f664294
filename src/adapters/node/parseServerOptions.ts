import { limitIssue } from "../../core/maxTimerMs.js";
import {
  type HandlerOptions,
  InvalidConfigError,
  openOptions,
  parseCloseEngine,
  safeParseHandlerOptions,
  suggestOuterFields,
  type ValidationIssue,
} from "../../http/index.js";

/**
 * Options of `createServer`: every handler option, plus the node:http ones below. Every limit
 * bounds what one peer can make the server hold or do; docs/http.md says why each default is
 * what it is.
 */
export interface NodeServerOptions extends HandlerOptions {
  /**
   * Largest request head (request line and headers) in bytes; a larger one is answered with
   * 400 `web_framework_error` and the connection is closed.
   * @default 16384
   */
  maxHeaderSize?: number | undefined;
  /**
   * Largest request body in bytes. No route reads a body: this only lets a client that sends a
   * small one keep its connection. A larger `Content-Length` is answered with 413 and the
   * connection closed; a chunked body that grows past it closes the connection.
   * @default 16384
   */
  maxBodySize?: number | undefined;
  /**
   * Connections open at once. At the cap, a new connection closes the one idle the longest
   * (else one stuck on a client that reads nothing, or a request head arriving for over a
   * second, or the deepest pipelined backlog); when there is none, it is refused with 503
   * `web_framework_error`. Keep it well below the
   * open-file limit (`ulimit -n`).
   * @default 256
   */
  maxConnections?: number | undefined;
  /**
   * Pipelined requests one connection may have waiting for their answer: node parses more of
   * what the client sent only as these answers go out (a client that pipelines without reading
   * cannot make the server hold more).
   * @default 16
   */
  maxPipelinedRequests?: number | undefined;
  /**
   * A connection with a response waiting to be sent, on which the client has read nothing for
   * this many ms, is destroyed (a client that does not read cannot hold memory).
   * @default 10000
   */
  writeIdleTimeout?: number | undefined;
  /** Idle keep-alive connections are closed after this many ms. @default 5000 */
  keepAliveTimeout?: number | undefined;
  /** A request must arrive completely within this many ms, else 408 and the connection closes. @default 30000 */
  requestTimeout?: number | undefined;
  /**
   * `shutdown()` destroys connections still open this many ms after it was called.
   * @default 10000
   */
  closeTimeout?: number | undefined;
  /** `shutdown()` also closes the engine, unsubscribing its sources. @default true */
  closeEngine?: boolean | undefined;
}

/** The node:http options with every default filled in. */
export interface ResolvedServerOptions {
  readonly maxHeaderSize: number;
  readonly maxBodySize: number;
  readonly maxConnections: number;
  readonly maxPipelinedRequests: number;
  readonly writeIdleTimeout: number;
  readonly keepAliveTimeout: number;
  readonly requestTimeout: number;
  readonly closeTimeout: number;
  readonly closeEngine: boolean;
}

/** Defaults of the node:http options (see docs/http.md, "Limits", for the reasoning). */
export const SERVER_DEFAULTS: ResolvedServerOptions = Object.freeze({
  maxHeaderSize: 16_384,
  maxBodySize: 16_384,
  maxConnections: 256,
  maxPipelinedRequests: 16,
  writeIdleTimeout: 10_000,
  keepAliveTimeout: 5_000,
  requestTimeout: 30_000,
  closeTimeout: 10_000,
  closeEngine: true,
});

/** Smallest accepted value of each numeric option. */
const MINIMUM: Record<string, number> = {
  maxHeaderSize: 1024,
  maxBodySize: 0,
  maxConnections: 1,
  maxPipelinedRequests: 1,
  writeIdleTimeout: 1,
  keepAliveTimeout: 1,
  requestTimeout: 1,
  closeTimeout: 0,
};

/**
 * Split `createServer`'s options into the node:http ones (validated, defaults filled in) and
 * the handler ones (validated too), listing every problem of both in one error.
 *
 * @throws {InvalidConfigError} listing every invalid option.
 * @example
 * const { server, handler } = parseServerOptions({ maxConnections: 100, basePath: "/v1" });
 * server.maxConnections; // 100
 */
export function parseServerOptions(input: NodeServerOptions | null | undefined): {
  server: ResolvedServerOptions;
  handler: HandlerOptions;
} {
  const opened = openOptions(input);
  if (opened.issue) throw new InvalidConfigError([opened.issue]);
  const issues: ValidationIssue[] = [];
  const server: Record<string, unknown> = { ...SERVER_DEFAULTS };
  // Copied as data properties: an own `__proto__` key (JSON.parse makes one) stays a key, named
  // as unknown, where `handler[key] = value` set the copy's prototype (its fields then passed
  // unchecked, or were named as unknown though spelt right).
  const handler: Record<string, unknown> = Object.fromEntries(
    Object.entries(opened.value).filter(([key]) => !Object.hasOwn(SERVER_DEFAULTS, key)),
  );
  for (const [key, value] of Object.entries(opened.value)) {
    if (!Object.hasOwn(SERVER_DEFAULTS, key) || value === undefined) continue;
    if (key === "closeEngine") {
      server.closeEngine = parseCloseEngine(value, issues);
      continue;
    }
    const issue = limitIssue(key, value, MINIMUM[key]!);
    if (issue) issues.push(issue);
    else server[key] = value as number;
  }
  const h = safeParseHandlerOptions(handler);
  // The handler took every key that is not the server's: a typo of a server option is one of
  // its unknown fields, and is named with the option it likely meant.
  if (!h.ok) issues.push(...suggestOuterFields(h.issues, Object.keys(SERVER_DEFAULTS)));
  if (issues.length > 0) throw new InvalidConfigError(issues);
  return { server: server as unknown as ResolvedServerOptions, handler: handler as HandlerOptions };
}
