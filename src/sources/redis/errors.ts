import { escapeControls } from "../../core/describeValue.js";
import { BaseError } from "../../core/errors.js";

/**
 * How a Redis call failed: no connection could be made (`connect`), no answer within the
 * timeout (`timeout`), the connection closed under a call (`closed`), the key holds something
 * other than a stream (`wrong_type`), Redis answered with another error (`command`), or the
 * answer was not what the command returns (`reply`: not Redis, or a proxy that mangles replies).
 */
export type RedisFailureKind =
  | "connect"
  | "timeout"
  | "closed"
  | "wrong_type"
  | "command"
  | "reply";

/**
 * A call to Redis failed. The Redis source and sink retry it with backoff and report it in
 * their `retrying` and `unreachable` events; `url` carries no credentials.
 *
 * @example
 * if (event.type === "unreachable") console.error(event.error.kind, event.error.shortMessage);
 */
export class RedisFeedError extends BaseError {
  override name = "RedisFeedError";
  readonly url: string;
  readonly kind: RedisFailureKind;

  constructor(
    url: string,
    kind: RedisFailureKind,
    options: { message?: string; details?: string; cause?: unknown } = {},
  ) {
    const what =
      options.message ??
      (kind === "connect"
        ? `cannot connect to ${url}`
        : kind === "timeout"
          ? `no answer from ${url} within the timeout`
          : kind === "closed"
            ? `the connection to ${url} closed`
            : `Redis at ${url} refused a command`);
    // The details quote what the server said (its error replies, the client's errors): whatever
    // answers on that port chooses them, and `record` prints them to a terminal, so a control
    // character is shown escaped, never sent (as the node source's status texts are).
    const details = options.details === undefined ? undefined : escapeControls(options.details);
    super(what, { details, cause: options.cause });
    this.url = url;
    this.kind = kind;
  }
}

/**
 * Redis's error answer to a command (or to one command of a pipeline) as the fault it is:
 * `wrong_type` for `WRONGTYPE`, else `command`, with Redis's message as the details.
 *
 * @example
 * commandFailure("redis://127.0.0.1:6379", new Error("WRONGTYPE Operation against a key ...")).kind; // "wrong_type"
 */
export function commandFailure(url: string, error: unknown): RedisFeedError {
  const message = (error as Error | undefined)?.message ?? String(error);
  return new RedisFeedError(url, message.startsWith("WRONGTYPE") ? "wrong_type" : "command", {
    details: message,
    cause: error,
  });
}

/**
 * `error` as what it is when reading entries of `stream` failed because one is longer than V8's
 * longest string (about 512 MB: the client cannot decode the reply): a reply fault naming where
 * the entry is and how to remove it. Any other error is returned as it is. Without this the
 * replica said "Redis refused a command" and named no entry.
 *
 * @example
 * tooLargeToRead(url, "gasdigest:blocks", "1383-0", e); // "an entry of stream gasdigest:blocks after 1383-0 is too large ..."
 */
export function tooLargeToRead(
  url: string,
  stream: string,
  after: string,
  error: unknown,
): unknown {
  if (!isTooLong(error)) return error;
  return new RedisFeedError(url, "reply", {
    message: `an entry of stream ${stream} after ${after} ${TOO_LARGE}`,
    details: `find it (XRANGE ${stream} (${after} + COUNT 1) and delete it (XDEL ${stream} <its id>); reading resumes then`,
    cause: error,
  });
}

/**
 * {@link tooLargeToRead} for a read newest first (the warm start's `XREVRANGE` from `end`
 * down): the entry is at or below `end` (`+`: the top). Without this a replica started while
 * such an entry stood said "Redis refused a command" and named no entry.
 *
 * @example
 * tooLargeToReadBack(url, "gasdigest:blocks", "+", e); // "one of the newest entries of stream gasdigest:blocks is too large ..."
 */
export function tooLargeToReadBack(
  url: string,
  stream: string,
  end: string,
  error: unknown,
): unknown {
  if (!isTooLong(error)) return error;
  const which =
    end === "+"
      ? `one of the newest entries of stream ${stream}`
      : `an entry of stream ${stream} at or below ${end}`;
  return new RedisFeedError(url, "reply", {
    message: `${which} ${TOO_LARGE}`,
    details: `find it (XREVRANGE ${stream} ${end} - COUNT 1) and delete it (XDEL ${stream} <its id>); reading resumes then`,
    cause: error,
  });
}

/**
 * Whether `error` is (or was caused by) the client failing to decode a string longer than V8's
 * longest: one entry of the page is too large, whatever the page's size.
 */
export function isTooLong(error: unknown): boolean {
  const message = (error as Error | undefined)?.message ?? "";
  if (/Cannot create a string longer than/.test(message)) return true;
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return cause !== undefined && cause !== error && isTooLong(cause);
}

const TOO_LARGE =
  "is too large for this process to read (longer than the longest string it can hold, about 512 MB)";
