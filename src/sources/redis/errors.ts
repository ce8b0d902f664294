import { BaseError } from "../../core/errors.js";

/**
 * How a Redis call failed: no connection could be made (`connect`), no answer within the
 * timeout (`timeout`), the connection closed under a call (`closed`), the key holds something
 * other than a stream (`wrong_type`), or Redis answered with another error (`command`).
 */
export type RedisFailureKind = "connect" | "timeout" | "closed" | "wrong_type" | "command";

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
    super(what, { details: options.details, cause: options.cause });
    this.url = url;
    this.kind = kind;
  }
}
