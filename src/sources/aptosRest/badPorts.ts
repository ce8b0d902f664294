import { InvalidConfigError } from "../../core/errors.js";

/**
 * The Fetch standard's "bad ports" (https://fetch.spec.whatwg.org/#bad-port), as node's fetch
 * (undici) holds them: an http(s) request to one fails before any connection, every time, with
 * only `bad port` for a reason. The one list of them: the node URL's check and the message of
 * a request refused at run time both read it.
 */
export const BAD_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102,
  103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465,
  512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993,
  995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668,
  6669, 6679, 6697, 10080,
]);

/** The port of `url` when it is one of {@link BAD_PORTS} (a default port never is). */
export function badPortOf(url: string): number | undefined {
  let port: number;
  try {
    port = Number(new URL(url).port);
  } catch {
    return undefined;
  }
  return BAD_PORTS.has(port) ? port : undefined;
}

/**
 * Refuse a node URL on a port fetch never connects to, up front: a source on it would retry
 * for ever and never reach the node. `remedy` ends the message with what else the caller can
 * do (the library: a fetch of its own).
 *
 * @throws {InvalidConfigError} (path `url`) when the URL's port is one of {@link BAD_PORTS}.
 * @example
 * refuseBadPort("http://127.0.0.1:6666/v1", ""); // throws: url: port 6666 is one of the Fetch standard's "bad ports" ...
 */
export function refuseBadPort(url: string, remedy: string): void {
  const port = badPortOf(url);
  if (port === undefined) return;
  throw new InvalidConfigError([
    {
      path: "url",
      message: `port ${port} is one of the Fetch standard's "bad ports", which fetch refuses to connect to: no request would reach the node; serve it on another port (or behind a proxy on one)${remedy}`,
    },
  ]);
}
