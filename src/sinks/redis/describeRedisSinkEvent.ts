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
    case "stream_ahead":
      return `stream ${event.stream} ends at entry ${event.top}, above height ${event.height}, which it does not hold: Redis refuses the block; if the chain was reset, stop the publishers, delete the stream key and start them again; if something else wrote ${event.top}, delete it (XDEL) and set the stream's last id back (XSETID)`;
    case "stream_differs":
      return `stream ${event.stream} already holds height ${event.height} (entry ${event.id}), written by another publisher with a different block: the publishers follow nodes that disagree (another chain, a fork?); replicas serve what the stream holds`;
    case "rejected":
      return `not a block sample, skipped: ${formatIssues(event.issues, "; ")}`;
    default:
      return describeRedisEvent(event);
  }
}
