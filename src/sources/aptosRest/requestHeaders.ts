import * as z from "zod";
import { describeValue, MAX_ECHO } from "../../core/describeValue.js";
import { MAX_ISSUES } from "../../core/errors.js";
import { moreParams } from "../../core/zodIssues.js";

/** Extra request headers, as the source sends them: lowercase names, values trimmed. */
export type RequestHeaders = Readonly<Record<string, string>>;

/** RFC 9110 `token`: what a header name is made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TOKEN_CHARS = "letters, digits and !#$%&'*+-.^_`|~";

/**
 * Headers the HTTP client sets itself: node's fetch refuses every request carrying one of the
 * first five (`invalid keep-alive header`, `expect header not supported`, ...) and drops the last
 * two without a word.
 */
const CLIENT_HEADERS = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "expect",
  "host",
  "content-length",
]);

const NAMES: Record<number, string> = { 0: "NUL", 9: "tab", 10: "LF", 13: "CR", 127: "DEL" };

/** A character as a message names it: `CR`, `U+0001`, `" "`. */
function showChar(code: number): string {
  if (NAMES[code] !== undefined) return NAMES[code];
  if (code < 0x20 || code > 0x7e) return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  return JSON.stringify(String.fromCharCode(code));
}

const isHttpWhitespace = (c: number) => c === 9 || c === 10 || c === 13 || c === 32;

/**
 * Fetch's "HTTP whitespace", which it strips from both ends of a value before checking it. A
 * loop, not `/[\t\n\r ]+$/`, which a value with a long run of spaces inside took quadratic
 * time on (100,000 spaces: 11 s).
 */
function trimHttpWhitespace(v: string): string {
  let from = 0;
  let to = v.length;
  while (from < to && isHttpWhitespace(v.charCodeAt(from))) from++;
  while (to > from && isHttpWhitespace(v.charCodeAt(to - 1))) to--;
  return v.slice(from, to);
}

/**
 * What is wrong with a header value (already trimmed), or undefined. A value is sent as bytes:
 * characters from U+0000 to U+00FF, of which fetch refuses the control characters but tab (a CR
 * or LF would end the header and start another).
 */
function valueProblem(value: string): string | undefined {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 10 || c === 13)
      return `must not contain a line break (${showChar(c)} at index ${i}): it would end the header`;
    if ((c < 0x20 && c !== 9) || c === 0x7f)
      return `must not contain a control character other than tab (${showChar(c)} at index ${i})`;
    if (c > 0xff)
      return `must hold characters U+0000 to U+00FF only, sent as bytes (${showChar(c)} at index ${i})`;
  }
  return undefined;
}

/** The first character of `name` that a token cannot hold, as `CR at index 1`. */
function firstBadChar(name: string): string {
  for (let i = 0; i < name.length; i++)
    if (!TOKEN.test(name[i]!)) return `${showChar(name.codePointAt(i)!)} at index ${i}`;
  return "";
}

/**
 * The issue of a header name, or undefined: `[path, message]`. A bad name that is short and
 * printable is the path (`headers.a b`); another one is shown, cut, in the message.
 */
function nameProblem(name: string): [path: string[], message: string] | undefined {
  if (TOKEN.test(name)) {
    const lower = name.toLowerCase();
    return CLIENT_HEADERS.has(lower)
      ? [[name], `cannot be given: the HTTP client sets ${lower} itself`]
      : undefined;
  }
  const rule = `must be an RFC 9110 token (${TOKEN_CHARS})`;
  if (name.length === 0) return [[], `a header name ${rule}, got an empty name`];
  if (name.length <= MAX_ECHO && /^[\x20-\x7e]+$/.test(name))
    return [[name], `the name ${rule}, got ${firstBadChar(name)}`];
  return [[], `a header name ${rule}, got ${describeValue(name)} (${firstBadChar(name)})`];
}

/** `a Headers object`, `a Map object`, or what {@link describeValue} says. */
function kindOf(value: unknown): string {
  try {
    const name = (value as { constructor?: { name?: unknown } } | null)?.constructor?.name;
    if (
      typeof value === "object" &&
      value &&
      !Array.isArray(value) &&
      typeof name === "string" &&
      /^\w{1,40}$/.test(name)
    )
      return `a ${name} object`;
  } catch {
    // A proxy or getter that throws: described as what it is.
  }
  return describeValue(value);
}

/**
 * The `headers` option: a plain object of header names and string values. Each name must be an
 * RFC 9110 token and not one the HTTP client sets itself (`host`, `connection`, ...); each value,
 * with spaces, tabs and line breaks at its ends removed (as fetch does), must hold no line break
 * or other control character but tab, and no character above U+00FF: otherwise fetch refuses
 * every request and the source would retry for ever. Names are given in any case and output
 * lowercase; the same name twice in different cases is an issue. Values are never echoed: they
 * are often secrets. At most 20 issues are listed, then a count.
 *
 * @example
 * z.object({ headers: headersOption }).parse({ headers: { Authorization: " Bearer k\n" } });
 * // { headers: { authorization: "Bearer k" } }
 */
export const headersOption = z
  .custom<Readonly<Record<string, string>>>()
  .default(() => ({}))
  .transform((headers, ctx): RequestHeaders => {
    const proto = typeof headers === "object" && headers ? Object.getPrototypeOf(headers) : 0;
    if (proto !== Object.prototype && proto !== null) {
      ctx.addIssue({
        code: "custom",
        message: `must be a plain object of header names and values, such as { authorization: "Bearer <api key>" } (got ${kindOf(headers)})`,
      });
      return z.NEVER;
    }
    const out: Record<string, string> = Object.create(null);
    const given = new Map<string, string>();
    let bad = 0;
    const report = (path: string[], message: string) => {
      if (++bad <= MAX_ISSUES) ctx.addIssue({ code: "custom", path, message });
    };
    for (const [name, value] of Object.entries(headers)) {
      const nameIssue = nameProblem(name);
      if (nameIssue) {
        report(...nameIssue);
        continue;
      }
      if (typeof value !== "string") {
        report([name], `must be a string (got ${describeValue(value)})`);
        continue;
      }
      const lower = name.toLowerCase();
      const first = given.get(lower);
      if (first !== undefined) {
        report([name], `is given twice, as ${first} and ${name}: header names ignore case`);
        continue;
      }
      given.set(lower, name);
      const trimmed = trimHttpWhitespace(value);
      const problem = valueProblem(trimmed);
      if (problem) report([name], problem);
      else out[lower] = trimmed;
    }
    if (bad > MAX_ISSUES)
      ctx.addIssue({
        code: "custom",
        message: `and ${bad - MAX_ISSUES} more bad headers`,
        params: moreParams(bad - MAX_ISSUES),
      });
    return bad > 0 ? z.NEVER : Object.freeze({ ...out });
  });
