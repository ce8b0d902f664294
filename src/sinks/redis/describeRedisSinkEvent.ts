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
      return `Redis did not take the blocks as fast as they came (away, or slower than the source): dropped the ${event.count} oldest waiting blocks (heights ${event.from}..${event.to})`;
    case "stream_ahead":
      return `stream ${event.stream} ends at entry ${event.top}, above height ${event.height}, which it does not hold: Redis refuses the block. A publisher behind the stream (an older file or history, a node lagging by more than the stream keeps) needs nothing done: the stream is fine; if something else wrote ${event.top}, delete that entry (XDEL) and set the stream's last id back (XSETID); delete the stream key only if you know the chain itself was reset (its heights started again lower), after stopping every publisher: on a healthy stream that throws away the blocks the replicas read`;
    case "stream_lost":
      return describeStreamLost(event);
    case "repair_refused":
      return `Redis refuses heights ${event.from}..${event.to} of stream ${event.stream}, which this publisher kept to write again after the loss above: the stream's last id is at or above them, which no restart leaves, so its entries were removed by a command (XTRIM ... MAXLEN 0, XDEL) or the last id was set ahead. They stay missing (replicas that read them keep them); newer blocks go on after them`;
    case "stream_differs":
      if (event.notABlock)
        return `stream ${event.stream} holds an entry that is not a gasdigest block at height ${event.height} (entry ${event.id}), written by something else: replicas skip that height; this block is kept and written there if the stream loses that entry`;
      return `stream ${event.stream} already holds height ${event.height} (entry ${event.id}), written by another publisher with a different block: the publishers follow nodes that disagree (another chain, a fork?); replicas serve what the stream holds`;
    case "rejected":
      return `not a block sample, skipped: ${formatIssues(event.issues, "; ")}`;
    default:
      return describeRedisEvent(event);
  }
}

function describeStreamLost(event: Extract<RedisSinkEvent, { type: "stream_lost" }>): string {
  const { from, to, rewriteFrom } = event;
  const where =
    event.top === undefined
      ? `stream ${event.stream} is empty`
      : `stream ${event.stream} ends at entry ${event.top}`;
  const repair =
    rewriteFrom === from
      ? "this publisher kept them and writes them again before any newer block"
      : `${rewriteFrom === undefined ? "" : `this publisher writes heights ${rewriteFrom}..${to} again (what it kept) before any newer block; `}heights ${from}..${(rewriteFrom ?? to + 1n) - 1n} stay missing: replicas that read them keep them, a replica started now warm-starts across the hole until newer blocks fill its windows`;
  const cause =
    event.top === undefined
      ? "it restarted from an older snapshot or without persistence, or the stream was deleted or emptied: DEL, FLUSHALL, XTRIM, or evicted by a maxmemory-policy other than noeviction"
      : "it restarted from an older snapshot, or without persistence";
  const lost =
    event.top === undefined
      ? `Redis lost every entry it held, heights ${from}..${to} at most (the stream keeps --retain of them, whichever publisher wrote them)`
      : `Redis lost heights ${from}..${to}`;
  return `${where}, below height ${to} that Redis had acknowledged to this publisher: ${lost} (${cause}); ${repair}. Run Redis with AOF (appendonly yes, appendfsync everysec) so that a restart loses at most about 1 s of writes`;
}
