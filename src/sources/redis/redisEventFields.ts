import { eventFields } from "../eventFields.js";
import type { RedisFeedError } from "./errors.js";

/**
 * An event of the Redis source or sink as plain JSON-safe log fields: u64 values as decimal
 * strings and the error as `{ name, message, details, url, kind }` (loggers print an `Error`
 * nested in an object as `{}`).
 *
 * @example
 * redisStream(url, { onEvent: (e) => logger.info(redisEventFields(e), describeRedisEvent(e)) });
 */
export function redisEventFields(event: { readonly type: string }): Record<string, unknown> {
  return eventFields(event, (e: RedisFeedError) => ({
    name: e.name,
    message: e.shortMessage,
    details: e.details,
    url: e.url,
    kind: e.kind,
  }));
}
