import { describeValue } from "../../core/describeValue.js";
import { InvalidConfigError } from "../../core/errors.js";
import { hideCredentials, urlAuthorization } from "./urlCredentials.js";

/** A node URL checked by {@link parseNodeUrl}. */
export interface NodeUrl {
  /** `http(s)://host[:port][/prefix]`, without credentials, a trailing `/` or `/v1`. */
  readonly baseUrl: string;
  /** `Basic ...` of the URL's user name and password, when it has some. */
  readonly authorization: string | undefined;
}

const bad = (message: string) => new InvalidConfigError([{ path: "url", message }]);

/**
 * Check the URL of a node and split it: the base URL requests go to (never holding credentials,
 * so no event, error or log line does) and the `Authorization` of its user name and password
 * (`https://user:pass@node/v1`, sent as curl sends it: see `urlAuthorization`).
 *
 * @throws {InvalidConfigError} (path `url`) when it is not an http(s) URL without a query, or
 * its user name holds a `:`. A URL that cannot be parsed is echoed with its credentials hidden.
 * @example
 * parseNodeUrl("http://user:s3cret@127.0.0.1:8080/v1");
 * // { baseUrl: "http://127.0.0.1:8080", authorization: "Basic dXNlcjpzM2NyZXQ=" }
 */
export function parseNodeUrl(url: string): NodeUrl {
  if (typeof url !== "string")
    throw bad(
      `must be an http(s) URL string such as http://127.0.0.1:8080 (got ${describeValue(url)})`,
    );
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw bad(
      `must be an http(s) URL such as http://127.0.0.1:8080 (got ${describeValue(hideCredentials(url))})`,
    );
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw bad(`must use http or https (got "${parsed.protocol.slice(0, -1)}")`);
  if (parsed.search || parsed.hash) throw bad("must not carry a query or fragment");
  const authorization = urlAuthorization(parsed);
  if (typeof authorization === "object") throw new InvalidConfigError([authorization]);
  // Trailing slashes cut by a loop: `/\/+$/` took quadratic time on a long run of them that
  // does not end the path (60,000: 5 s).
  let end = parsed.pathname.length;
  while (end > 0 && parsed.pathname.charCodeAt(end - 1) === 47) end--;
  const path = parsed.pathname.slice(0, end).replace(/\/v1$/, "");
  return Object.freeze({ baseUrl: `${parsed.origin}${path}`, authorization });
}

/**
 * The base URL of a node: `http(s)://host[:port][/prefix]`, with a trailing `/` or `/v1`
 * removed (both `https://node/v1` and `https://node` work) and no user name or password (safe
 * to log).
 *
 * @throws {InvalidConfigError} (path `url`) when it is not an http(s) URL.
 * @example
 * normaliseNodeUrl("https://user:pass@node.example/v1/"); // "https://node.example"
 */
export function normaliseNodeUrl(url: string): string {
  return parseNodeUrl(url).baseUrl;
}
