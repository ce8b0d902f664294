// gasdigest/redis: blocks through a Redis Stream, for many replicas fed by one or two
// publishers (docs/operations.md). Node only; needs the optional peer dependency `ioredis`,
// which starts loading when a source or sink is created, never when this module is imported.
// The stream's entry format (docs/operations.md) and its codec stay internal: a publisher in
// JavaScript uses redisStreamSink, one in another language writes the documented format.

export {
  describeRedisSinkEvent,
  type RedisPublishOutcome,
  type RedisPublishResult,
  type RedisSinkEvent,
  type RedisStreamSinkOptions,
  redisStreamSink,
} from "./sinks/redisStreamSink.js";
export {
  describeRedisEvent,
  type RedisConnectionEvent,
  type RedisConnectionOptions,
  type RedisFailureKind,
  RedisFeedError,
  type RedisStreamEvent,
  type RedisStreamOptions,
  type RedisStreamTop,
  type RedisTarget,
  redisEventFields,
  redisStream,
  redisStreamTop,
} from "./sources/redisStream.js";
