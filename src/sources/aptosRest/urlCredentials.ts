import type { ValidationIssue } from "../../core/errors.js";

/**
 * `%XX` sequences as the bytes they stand for, other characters as themselves (the URL parser
 * leaves only ASCII in the user name and password); a `%` not followed by two hex digits is kept
 * as it is, as curl does.
 */
function percentDecode(text: string): number[] {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text[i] === "%" ? text.slice(i + 1, i + 3) : "";
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(text.charCodeAt(i) & 0xff);
  }
  return bytes;
}

function base64(bytes: readonly number[]): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/**
 * The `Authorization` header of the user name and password of a node URL
 * (`https://user:pass@node/v1`), as curl sends it: `Basic` and the base64 of `user:password`,
 * each percent-decoded (`p%40ss` is `p@ss`), the password empty when left out. Undefined when
 * the URL has no user name nor password; an issue (path `url`) when the user name holds a `:`
 * once decoded (RFC 7617: the server would split it there). Never puts the password in a message.
 *
 * @example
 * urlAuthorization(new URL("http://user:s3cret@127.0.0.1:8080/v1")); // "Basic dXNlcjpzM2NyZXQ="
 */
export function urlAuthorization(url: URL): string | ValidationIssue | undefined {
  if (url.username === "" && url.password === "") return undefined;
  const user = percentDecode(url.username);
  if (user.includes(0x3a))
    return {
      path: "url",
      message:
        "the user name must not contain ':' once percent-decoded (Basic authentication splits user and password at the first ':')",
    };
  return `Basic ${base64([...user, 0x3a, ...percentDecode(url.password)])}`;
}

/**
 * `text` with what may be credentials, everything between the scheme (with any slashes after
 * it) and the last `@`, and the query string (an API key), replaced by `***`: for echoing a URL
 * whose password cannot be told apart (one that could not be parsed, or `redis:user:pw@host`,
 * which the URL parser reads as a path).
 *
 * @example
 * hideCredentials("http://user:s3cret@host:99999/v1"); // "http://***@host:99999/v1"
 * hideCredentials("redis:user:s3cret@host"); // "redis:***@host"
 */
export function hideCredentials(text: string): string {
  const scheme = /^\s*[A-Za-z][A-Za-z0-9+.-]*:[/\\]*/.exec(text)?.[0] ?? "";
  const rest = text.slice(scheme.length);
  const at = rest.lastIndexOf("@");
  const shown = at === -1 ? rest : `***${rest.slice(at)}`;
  return `${scheme}${shown}`.replace(/\?.*$/s, "?***");
}

/**
 * A URL with its user name and password as `***`. Read as the URL parser reads it (which is
 * what sends them): it also takes `https:user:pw@host`, `https:/user:pw@host`, a backslash or
 * leading spaces; text it cannot parse has everything up to its last `@` hidden
 * ({@link hideCredentials}).
 *
 * @example
 * showUrl("https:user:s3cret@node.example/v1"); // "https://***@node.example/v1"
 */
export function showUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return hideCredentials(text);
  }
  // A Redis URL without `//` (`redis:user:pw@host`) is a path to the URL parser, whose
  // credentials it does not see: what precedes its `@` is hidden all the same.
  if (url.username === "" && url.password === "")
    return /^rediss?:/i.test(url.protocol) && text.includes("@") ? hideCredentials(text) : text;
  url.username = "***";
  url.password = "";
  return url.href;
}
