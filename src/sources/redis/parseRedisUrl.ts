import { describeValue } from "../../core/describeValue.js";
import { InvalidConfigError } from "../../core/errors.js";
import { showUrl } from "../aptosRest/urlCredentials.js";

/**
 * A validated Redis URL, read once: the client is given these fields, never the URL text, so
 * what connects is what was checked (a client parsing the text again could read it otherwise).
 */
export interface RedisTarget {
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
  /** The user name, percent-decoded (`undefined` when the URL has none). */
  readonly username: string | undefined;
  /** The password, percent-decoded (`undefined` when the URL has none). */
  readonly password: string | undefined;
}

const bad = (message: string) => new InvalidConfigError([{ path: "url", message }]);

/**
 * Validate a Redis URL: `redis://HOST[:PORT][/DB]` or `rediss://` (TLS), optionally with
 * `USER:PASSWORD@` before the host, percent-encoded (a `%` in a password is `%25`). The port
 * defaults to 6379 and the database to 0. No message quotes the password.
 *
 * @throws {InvalidConfigError} (path `url`) naming what is wrong.
 * @example
 * parseRedisUrl("redis://127.0.0.1:6379/2"); // { host: "127.0.0.1", port: 6379, db: 2, ... }
 */
export function parseRedisUrl(url: string): RedisTarget {
  if (typeof url !== "string")
    throw bad(`must be a URL string such as redis://127.0.0.1:6379 (got ${describeValue(url)})`);
  // The URL parser drops spaces and control characters around the URL, and tabs and line
  // breaks inside it, without a word: a URL pasted with a newline would connect elsewhere than
  // it reads, and a message quoting it would not hide its password.
  if (/[\s\p{Cc}]/u.test(url))
    throw bad(
      "must not hold spaces, tabs, line breaks or other control characters (percent-encode them in a password: a space is %20)",
    );
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw bad(`must be a URL such as redis://127.0.0.1:6379 (got ${describeValue(showUrl(url))})`);
  }
  // A socket path (unix:/run/redis.sock, redis:///run/redis.sock, as some clients take them):
  // say that sockets are not read, not only that the URL names no host.
  if (parsed.protocol === "unix:" || (!parsed.hostname && parsed.pathname.length > 1))
    throw bad(
      "names a Unix socket, which gasdigest does not connect to: serve Redis on a TCP port too (its port setting) and give that, as in redis://127.0.0.1:6379",
    );
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
      // An @ in the path: a password with a / in it ended the host early, and the rest of
      // the password is the path, not to be quoted.
      parsed.pathname.includes("@")
        ? "the path must be a database number, as in redis://host:6379/2 (a / in a password ends the host: percent-encode it as %2F)"
        : `the path must be a database number, as in redis://host:6379/2 (got ${describeValue(parsed.pathname)})`,
    );
  const username = decoded(parsed.username, "user name");
  const password = decoded(parsed.password, "password");
  const port = parsed.port === "" ? 6379 : Number(parsed.port);
  const db = path === "" ? 0 : Number(path);
  const host = parsed.hostname;
  return Object.freeze({
    display: `${parsed.protocol}//${parsed.host}/${db}`,
    host,
    port,
    db,
    tls: parsed.protocol === "rediss:",
    username,
    password,
  });
}

/** A percent-encoded user name or password, decoded; `undefined` when empty. Never quoted. */
function decoded(encoded: string, what: string): string | undefined {
  if (encoded === "") return undefined;
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw bad(
      `the ${what} is not percent-encoded: each % must start a byte such as %25 (a % itself) and the bytes must be UTF-8`,
    );
  }
}
