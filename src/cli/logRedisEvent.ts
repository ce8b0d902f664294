import { describeRedisSinkEvent, type RedisSinkEvent } from "../sinks/redisStreamSink.js";
import {
  describeRedisEvent,
  type RedisStreamEvent,
  redisEventFields,
} from "../sources/redisStream.js";
import type { LineLogger } from "./createLogLimiter.js";

const WARN = new Set([
  "unreachable",
  "stream_empty",
  "stream_rewound",
  "stream_ahead",
  "stream_differs",
  "stream_lost",
  "repair_refused",
  "rejected",
  "gap",
  "dropped",
]);

/**
 * A logger for the events of the Redis source or sink: retries at debug, trouble at warn. `also`
 * is told every event first (the metrics' listener). Lines are rate-limited per event type: a
 * stream of 100,000 bad entries costs a few lines every ten seconds, not one per entry.
 *
 * `connected` is logged at info the first time, and the first time after an outage
 * (`unreachable`); the others at debug, as the `retrying` they follow: the sink reconnects after
 * every failed write, so Redis refusing writes for a minute (`OOM`) connects once per retry. The
 * source's `resumed` that comes with such a reconnection goes to debug with it.
 *
 * @example
 * const onEvent = logRedisEvent(createLogLimiter(pino()), metrics?.sink("redis"));
 * redisStreamSink(url, { onEvent });
 */
export function logRedisEvent(
  log: LineLogger,
  also?: (event: RedisStreamEvent | RedisSinkEvent) => void,
) {
  // Whether the next `connected` is news: the first one, or the first after `unreachable`.
  let announce = true;
  // A reconnection that is not news: the source emits its `resumed` (where it reads on from) in
  // the same turn as `connected`, so that one goes to debug too. A later `resumed` (the stream
  // fell below what was read) comes after a read, in another turn, and stays at info.
  let quietReconnection = false;
  return (event: RedisStreamEvent | RedisSinkEvent) => {
    also?.(event);
    if (event.type === "unreachable") announce = true;
    const level =
      event.type === "retrying" ||
      (event.type === "connected" && !announce) ||
      (event.type === "resumed" && quietReconnection)
        ? "debug"
        : WARN.has(event.type) || (event.type === "warm_start" && event.blocks < event.wanted)
          ? "warn"
          : "info";
    if (event.type === "connected") {
      quietReconnection = !announce;
      queueMicrotask(() => {
        quietReconnection = false;
      });
      announce = false;
    }
    // The sink's own events (a sink's `rejected` has no entry id); the rest read alike.
    const text =
      event.type === "dropped" ||
      event.type === "stream_ahead" ||
      event.type === "stream_differs" ||
      event.type === "stream_lost" ||
      event.type === "repair_refused" ||
      (event.type === "rejected" && !("id" in event))
        ? describeRedisSinkEvent(event as RedisSinkEvent)
        : describeRedisEvent(event as RedisStreamEvent);
    log[level](
      { event: event.type, ...redisEventFields(event) },
      text,
      `redis event ${event.type}`,
    );
  };
}
