import { formatIssues } from "../../core/errors.js";
import type { RedisConnectionEvent } from "./createOutageTracker.js";
import type { RedisStreamEvent } from "./options.js";

function errorText(error: { shortMessage: string; details: string | undefined }): string {
  return error.details ? `${error.shortMessage} (${error.details})` : error.shortMessage;
}

/**
 * One human-readable line for an event of the Redis source (or a connection event of the sink).
 *
 * @example
 * redisStream(url, { onEvent: (e) => logger.info(redisEventFields(e), describeRedisEvent(e)) });
 */
export function describeRedisEvent(event: RedisStreamEvent | RedisConnectionEvent): string {
  switch (event.type) {
    case "connected":
      return `connected to ${event.url}, stream ${event.stream}`;
    case "retrying":
      return `reconnecting to Redis in ${event.delayMs} ms (attempt ${event.attempt}): ${errorText(event.error)}`;
    case "unreachable":
      return `Redis unusable: ${event.failures} attempts in a row failed, last: ${errorText(event.error)}`;
    case "recovered":
      return `Redis back after ${event.downMs} ms (${event.failures} failed attempts)`;
    case "warm_start":
      if (event.blocks === 0)
        return `warm start: no valid block among the ${event.wanted === 1 ? "newest entry" : "newest entries"} read from stream ${event.stream} (each one skipped is listed); serving nothing until a valid block comes`;
      if (event.transactions !== undefined)
        return `warm start: only ${event.blocks} of the ${event.wanted} blocks wanted (heights ${event.from}..${event.to}) from stream ${event.stream}: they hold ${event.transactions} transactions, and the next older block would have taken the warm start past warmStartTransactions; until the windows fill the estimate may differ from replicas that read more`;
      return event.blocks < event.wanted
        ? `warm start: only ${event.blocks} of the ${event.wanted} blocks wanted (heights ${event.from}..${event.to}) from stream ${event.stream}; the stream holds no more (a young stream, one Redis lost, or one trimmed as it was read: a publisher's --retain with no room above the warm start), so until the windows fill the estimate may differ from replicas that read the missing blocks`
        : `warm start: ${event.blocks} blocks (heights ${event.from}..${event.to}) from stream ${event.stream}`;
    case "stream_empty":
      return `stream ${event.stream} at ${event.url} is empty or absent; waiting for the first entry (is the stream key right? A stream emptied, by a chain reset or a Redis restarted without persistence, waits for its publisher the same way)`;
    case "stream_rewound":
      return `stream ${event.stream} now ends at entry ${event.to}, below entry ${event.from} read before (deleted and written again?): reading it again from its newest entries`;
    case "resumed":
      return `reading stream ${event.stream} again after entry ${event.afterId}`;
    case "gap":
      return `no block for heights ${event.from}..${event.to} in stream ${event.stream}: trimmed before they were read here (this reader fell behind by more than the stream keeps, or asked for older heights than it keeps: see --retain), never published, or skipped as invalid`;
    case "rejected":
      return `entry ${event.id} skipped: ${formatIssues(event.issues, "; ")}`;
  }
}
