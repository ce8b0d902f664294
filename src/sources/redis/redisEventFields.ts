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
  const entries: [string, unknown][] = Object.entries(event);
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    if (value === undefined) continue;
    if (typeof value === "bigint") out[key] = value.toString();
    else if (key === "error") {
      const e = value as RedisFeedError;
      out.error = {
        name: e.name,
        message: e.shortMessage,
        details: e.details,
        url: e.url,
        kind: e.kind,
      };
    } else out[key] = value;
  }
  return out;
}
