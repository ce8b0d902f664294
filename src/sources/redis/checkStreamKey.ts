import { describeValue } from "../../core/describeValue.js";
import type { RedisConnection } from "./connectRedis.js";
import { RedisFeedError } from "./errors.js";

/**
 * Check that `stream` holds a stream or nothing yet (`TYPE`), before reading or writing it.
 *
 * @throws {RedisFeedError} `wrong_type` naming the key and what it holds.
 * @example
 * await checkStreamKey(conn, "redis://127.0.0.1:6379/0", "gasdigest:blocks"); // "stream" | "none"
 */
export async function checkStreamKey(
  conn: RedisConnection,
  url: string,
  stream: string,
): Promise<"stream" | "none"> {
  const type: unknown = await conn.call((c) => c.type(stream));
  if (typeof type !== "string")
    throw new RedisFeedError(url, "reply", {
      message: `Redis at ${url} answered TYPE with something that is not a type name`,
      details: `the reply is ${describeValue(type)}`,
    });
  if (type !== "stream" && type !== "none")
    throw new RedisFeedError(url, "wrong_type", {
      message: `the key "${stream}" at ${url} holds a ${type}, not a stream`,
    });
  return type;
}
