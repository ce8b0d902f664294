/**
 * `gasdigest/redis`: blocks through a Redis Stream, for many replicas fed by one or two
 * publishers. Node only; needs the `ioredis` package (an optional peer dependency), loaded at
 * the first connection.
 *
 * @example
 * import { redisStream, redisStreamSink } from "gasdigest/redis";
 * aptosRest(nodeUrl).pipe(redisStreamSink("redis://127.0.0.1:6379")).subscribe();
 * engine.connect(redisStream("redis://127.0.0.1:6379"));
 */
export * from "../sinks/redisStreamSink.js";
export * from "../sources/redisStream.js";
