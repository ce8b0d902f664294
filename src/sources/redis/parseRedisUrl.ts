import { describeValue } from "../../core/describeValue.js";
import { InvalidConfigError } from "../../core/errors.js";
import { showUrl } from "../aptosRest/urlCredentials.js";

/** A validated Redis URL. */
export interface RedisTarget {
  /** The URL as given (credentials included), for the client. */
  readonly url: string;
  /** The URL without credentials, for logs and messages: `redis://host:port/db`. */
  readonly display: string;
  /** Host name or address, as the URL's hostname (an IPv6 address in brackets). */
  readonly host: string;
  /** TCP port (6379 when the URL has none). */
  readonly port: number;
  /** Database number (the URL's path; 0 when it has none). */
  readonly db: number;
  /** `rediss://`: TLS. */
  readonly tls: boolean;
}

const bad = (message: string) => new InvalidConfigError([{ path: "url", message }]);

/**
 * Validate a Redis URL: `redis://HOST[:PORT][/DB]` or `rediss://` (TLS), optionally with
 * `USER:PASSWORD@` before the host. The port defaults to 6379 and the database to 0.
 *
 * @throws {InvalidConfigError} (path `url`) naming what is wrong.
 * @example
 * parseRedisUrl("redis://127.0.0.1:6379/2"); // { host: "127.0.0.1", port: 6379, db: 2, ... }
 */
export function parseRedisUrl(url: string): RedisTarget {
  if (typeof url !== "string")
    throw bad(`must be a URL string such as redis://127.0.0.1:6379 (got ${describeValue(url)})`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw bad(`must be a URL such as redis://127.0.0.1:6379 (got ${describeValue(showUrl(url))})`);
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:")
    throw bad(`must use redis or rediss (got "${parsed.protocol.slice(0, -1)}")`);
  if (!parsed.hostname)
    throw bad(
      `must name a host, as in redis://127.0.0.1:6379 (got ${describeValue(showUrl(url))})`,
    );
  if (parsed.search || parsed.hash) throw bad("must not carry a query or fragment");
  // The URL parser takes port 0, which no server listens on: every connection would fail.
  if (parsed.port === "0") throw bad(`must name a port from 1 to 65535 (got 0)`);
  // One slash, then the number or nothing: the client reads what follows the first slash, and
  // `//0` would make it select database NaN (an error it does not catch: the process ended).
  const path = parsed.pathname.replace(/^\//, "");
  if (path !== "" && !/^\d{1,9}$/.test(path))
    throw bad(
      `the path must be a database number, as in redis://host:6379/2 (got ${describeValue(parsed.pathname)})`,
    );
  const port = parsed.port === "" ? 6379 : Number(parsed.port);
  const db = path === "" ? 0 : Number(path);
  const host = parsed.hostname;
  return Object.freeze({
    url,
    display: `${parsed.protocol}//${parsed.host}/${db}`,
    host,
    port,
    db,
    tls: parsed.protocol === "rediss:",
  });
}
