import { formatIssues } from "../../core/errors.js";
import { describeRedisEvent } from "../../sources/redis/describeRedisEvent.js";
import type { RedisSinkEvent } from "./options.js";

/**
 * One human-readable line for an event of the Redis sink.
 *
 * @example
 * redisStreamSink(url, { onEvent: (e) => logger.info(redisEventFields(e), describeRedisSinkEvent(e)) });
 */
export function describeRedisSinkEvent(event: RedisSinkEvent): string {
  switch (event.type) {
    case "dropped":
      return `Redis stayed away too long: dropped the ${event.count} oldest waiting blocks (heights ${event.from}..${event.to})`;
    case "rejected":
      return `not a block sample, skipped: ${formatIssues(event.issues, "; ")}`;
    default:
      return describeRedisEvent(event);
  }
}
