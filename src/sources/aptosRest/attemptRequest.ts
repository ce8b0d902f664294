import { checkJsonShape, type JsonShapeLimits } from "../../core/checkJsonShape.js";
import { describeValue, escapeControls, MAX_ECHO } from "../../core/describeValue.js";
import { InvalidJsonError } from "../../core/errors.js";
import { parseRetryAfter } from "./backoff.js";
import { badPortOf } from "./badPorts.js";
import { discardBody } from "./discardBody.js";
import { InvalidResponseError, SourceRequestError } from "./errors.js";
import type { ResolvedAptosRestOptions } from "./options.js";
import { pruneUnread, UNREAD_MEMBERS } from "./pruneUnread.js";
import { readBody } from "./readBody.js";
import { requestSignal } from "./requestSignal.js";
import type { Parsed } from "./schemas.js";
import { showUrl } from "./urlCredentials.js";

/** A usable answer: 200 with its parsed body, or one of the statuses the caller accepts. */
export type Answer<T> = { status: 200; value: T } | { status: number; value?: undefined };

/** The outcome of one HTTP exchange. */
export type Attempt<T> =
  | { ok: true; answer: Answer<T> }
  | { ok: false; error: SourceRequestError | InvalidResponseError; retryAfterMs?: number };

/** What {@link attemptRequest} needs of the source's options. */
export type AttemptOptions = Pick<
  ResolvedAptosRestOptions,
  "fetch" | "timeoutMs" | "maxResponseBytes" | "followRedirects" | "now"
> & {
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The chain the source follows: an answer whose `X-Aptos-Chain-Id` header names another one
   * is refused, whatever its body (a block carries no chain id of its own).
   */
  readonly chainId?: number;
  /** The counts a body may hold: {@link answerLimits} of `maxResponseBytes`, made once. */
  readonly limits: Required<JsonShapeLimits>;
};

/**
 * Bytes of `maxResponseBytes` per object or array a body may hold, per object member and per
 * value (`,`), counted once the members the source never reads are dropped
 * ({@link pruneUnread}). What is left of a real answer is small next to its bytes: a block of
 * 10,000 user transactions rendered like a node's (42 MB, `bench/suites/parse.js`'s) keeps
 * 20,002 objects, 240,004 members and 230,002 values, against the 262,144 objects, 1,048,576
 * members and as many values a 64 MiB cap allows, while `{},{},...` spends 3 bytes per object
 * and `[0,0,...]` 2 per value. A body past any count is refused after one pass over its text,
 * before anything is built: 60 MB of `{}` took 13 s and 1.3 GB of heap to parse (and a larger
 * cap, the whole heap).
 */
export const BYTES_PER_CONTAINER = 256;
export const BYTES_PER_MEMBER = 64;
export const BYTES_PER_VALUE = 64;
/**
 * Most members one object of an answer may hold: the node renders Move structs (a few dozen
 * fields at most) and lists as arrays, so an object of thousands of keys is no real answer, and
 * one of millions held the event loop 3 s.
 */
export const MAX_OBJECT_MEMBERS = 4096;

/** The counts a body of at most `maxResponseBytes` may hold (see {@link BYTES_PER_CONTAINER}). */
export function answerLimits(maxResponseBytes: number): Required<JsonShapeLimits> {
  return {
    maxContainers: Math.floor(maxResponseBytes / BYTES_PER_CONTAINER),
    maxMembers: Math.floor(maxResponseBytes / BYTES_PER_MEMBER),
    maxValues: Math.floor(maxResponseBytes / BYTES_PER_VALUE),
    maxObjectMembers: MAX_OBJECT_MEMBERS,
  };
}

const CHAIN_ID_HEADER = "x-aptos-chain-id";

function tooLarge(url: string, status: number, limit: number): Attempt<never> {
  return {
    ok: false,
    error: new SourceRequestError(url, "too_large", {
      status,
      limit,
      details:
        "raise maxResponseBytes (--max-response-bytes) if the node's answers are really this large",
    }),
  };
}

/**
 * One GET of `url`: the body of a 200 is read with the byte cap, parsed as JSON and checked by
 * `parse`; a status in `accept` is a usable answer without a body; anything else (other
 * statuses, redirects unless followed, network errors, the timeout, a body past the cap, a body
 * that does not fit) is a failed attempt, with the `Retry-After` of a 429 or 503. `onHeaders`
 * is called when the response headers arrive. Rejects only when `signal` aborts.
 *
 * @example
 * const r = await attemptRequest(options, `${base}/v1`, parseLedgerInfo, [], signal);
 * if (r.ok) console.log(r.answer.status);
 */
export async function attemptRequest<T>(
  options: AttemptOptions,
  url: string,
  parse: (value: unknown, headerChain?: number) => Parsed<T>,
  accept: readonly number[],
  signal: AbortSignal,
  onHeaders?: () => void,
): Promise<Attempt<T>> {
  const request = requestSignal(signal, options.timeoutMs);
  // Whether the status and headers came: a failure after them is the body's.
  let answered = false;
  try {
    const res = await options.fetch(url, {
      headers: options.headers,
      signal: request.signal,
      redirect: options.followRedirects ? "follow" : "manual",
    });
    answered = true;
    onHeaders?.();
    let headerChain: number | undefined;
    if (res.status === 200 || accept.includes(res.status)) {
      const chain = readChainHeader(res.headers.get(CHAIN_ID_HEADER), options.chainId);
      if (typeof chain === "string") {
        await discardBody(res);
        const issue = { path: "X-Aptos-Chain-Id", message: chain };
        return { ok: false, error: new InvalidResponseError(url, [issue]) };
      }
      headerChain = chain;
    }
    if (res.status === 200) {
      const body = await readBody(res, options.maxResponseBytes);
      if (!body.ok) return tooLarge(url, 200, options.maxResponseBytes);
      // What the source never reads is dropped, the rest counted, then parsed as is: a node
      // writes every u64 as a string, so there is no integer to keep exact (parseJsonLossless
      // would copy the text to quote long ones).
      let json: unknown;
      try {
        const text = pruneUnread(body.text);
        checkJsonShape(text, options.limits);
        json = JSON.parse(text);
      } catch (e) {
        const issue =
          e instanceof InvalidJsonError
            ? {
                path: "",
                message: `${e.message} (at most one object or array per ${BYTES_PER_CONTAINER} bytes of maxResponseBytes, one member and one value per ${BYTES_PER_VALUE}, ${MAX_OBJECT_MEMBERS} members per object, outside ${[...UNREAD_MEMBERS].join(", ")}), so it is not parsed: no real answer is built like this (if this node's answers really are, raise maxResponseBytes, --max-response-bytes)`,
              }
            : { path: "", message: `not valid JSON (${escapeControls((e as Error).message)})` };
        return { ok: false, error: new InvalidResponseError(url, [issue]) };
      }
      const parsed = parse(json, headerChain);
      if (!parsed.ok) return { ok: false, error: new InvalidResponseError(url, parsed.issues) };
      return { ok: true, answer: { status: 200, value: parsed.value } };
    }
    await discardBody(res);
    if (accept.includes(res.status)) return { ok: true, answer: { status: res.status } };
    const retryAfterMs =
      res.status === 429 || res.status === 503
        ? parseRetryAfter(res.headers.get("retry-after"), options.now())
        : undefined;
    const location = res.status >= 300 && res.status < 400 && res.headers.get("location");
    const details =
      typeof location === "string"
        ? `redirect to ${escapeControls(shownTarget(location).slice(0, MAX_ECHO))} not followed (followRedirects is off, --follow-redirects)`
        : escapeControls(res.statusText.slice(0, MAX_ECHO)) || undefined;
    const error = new SourceRequestError(url, "http", { status: res.status, details });
    return { ok: false, error, retryAfterMs };
  } catch (cause) {
    if (signal.aborted) throw cause;
    if (request.timedOut())
      return {
        ok: false,
        error: new SourceRequestError(url, "timeout", {
          details: `${options.timeoutMs} ms`,
          cause,
          answered,
        }),
      };
    const inner = (cause as { cause?: { message?: string; code?: unknown; name?: unknown } }).cause;
    const reason = inner?.message;
    // The node's bytes can reach this text (a parser's quote): no control character goes on.
    const details =
      reason === "bad port" ? badPort(url) : escapeControls(reason ?? (cause as Error).message);
    const malformed = !answered && isMalformedAnswer(inner);
    return {
      ok: false,
      error: new SourceRequestError(url, "network", { details, cause, answered, malformed }),
    };
  } finally {
    request.dispose();
  }
}

/**
 * Whether fetch failed on bytes it could not read as an HTTP answer, not on the connection:
 * llhttp's parse errors (`HPE_*`: not HTTP, a bad header; the undici of Node 24 and later sets
 * no code on them, only the name `HTTPParserError`), headers past the client's limit,
 * undici's assertion on a status line it cannot take (`HTTP/1.1 099`), whose only text is
 * `false == true`, and the answers undici refuses by a message alone: informational answers
 * (`100 Continue`) that never end in a final one (`bad response`), a `101 Switching Protocols`
 * nobody asked for (`bad upgrade`), more `Content-Encoding`s than it decodes. Told apart so that
 * the message does not say the node cannot be reached (an undici whose words differ falls back
 * to that message: the cause is quoted either way).
 */
function isMalformedAnswer(
  inner: { code?: unknown; name?: unknown; message?: unknown } | undefined,
): boolean {
  const code = typeof inner?.code === "string" ? inner.code : "";
  const message = typeof inner?.message === "string" ? inner.message : "";
  return (
    code.startsWith("HPE_") ||
    inner?.name === "HTTPParserError" ||
    code === "UND_ERR_HEADERS_OVERFLOW" ||
    (code === "ERR_ASSERTION" && inner?.name === "AssertionError") ||
    (code === "UND_ERR_SOCKET" && (message === "bad response" || message === "bad upgrade")) ||
    message.startsWith("too many content-encodings")
  );
}

/**
 * The chain id a `X-Aptos-Chain-Id` header names (`undefined` when absent), or why it is refused:
 * not a chain id, or another chain than `chainId`, the one the source follows. The header sent
 * twice (a proxy adding its own copy) arrives as `4, 4`: the same id repeated is that id.
 */
function readChainHeader(
  header: string | null,
  chainId: number | undefined,
): number | string | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  const ids = text.split(",").map((t) => t.trim());
  if (
    !ids.every((t) => /^\d{1,3}$/.test(t) && Number(t) <= 255) ||
    new Set(ids.map(Number)).size !== 1
  )
    return `must be a chain id 0..255 (got ${describeValue(text)})`;
  const id = Number(ids[0]);
  return chainId === undefined || id === chainId
    ? id
    : `is ${id}, but the source started on chain ${chainId} (the URL now leads to another network)`;
}

/**
 * Why fetch refused to connect: a port of the Fetch standard's "bad ports" (`BAD_PORTS`),
 * refused before any connection, on every retry alike. The source's own URL on one is refused
 * when the source is made, unless a fetch of the caller's is given (which may be node's after
 * all); otherwise a followed redirect led there, to a URL fetch does not tell.
 */
function badPort(url: string): string {
  const port = badPortOf(url);
  return port === undefined
    ? `bad port: a redirect led to a port fetch refuses to connect to (one of the Fetch standard's "bad ports"), and will on every retry; have the node redirect to another port, or turn followRedirects (--follow-redirects) off (the fault then names the redirect's Location)`
    : `bad port: fetch refuses to connect to port ${port}, one of the Fetch standard's "bad ports", and will on every retry; serve the node on another port (or behind a proxy on one), or pass a fetch that can reach it`;
}

/**
 * A redirect's target as logged: an absolute URL with its credentials as `***` (a node's own,
 * which a log must not carry any more than ours); a relative one as sent.
 */
function shownTarget(location: string): string {
  try {
    new URL(location);
  } catch {
    return location;
  }
  return showUrl(location);
}
