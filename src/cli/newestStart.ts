import { DEFAULT_REDIS_TIMEOUT_MS } from "../sources/redis/connectionOptions.js";
import { fetchStreamTop } from "../sources/redis/redisStreamTop.js";
import { DEFAULT_STREAM } from "../sources/redis/streamEntry.js";
import { parseRedisUrl } from "../sources/redisStream.js";

/**
 * The first of the newest `n` heights of a stream (its newest entry's height, less `n - 1`), or
 * `undefined` when that cannot be read now (an empty stream, an entry that is not a block, a
 * Redis not answering): the warm start then reads them, and says what it could not.
 *
 * @example
 * await newestStart("redis://127.0.0.1:6379", undefined, 100); // 4901n for a stream whose newest is 5000
 */
export async function newestStart(
  url: string,
  stream: string | undefined,
  n: number,
): Promise<bigint | undefined> {
  try {
    const top = await fetchStreamTop(
      parseRedisUrl(url),
      stream ?? DEFAULT_STREAM,
      DEFAULT_REDIS_TIMEOUT_MS,
      undefined,
      "gasdigest-record",
    );
    if (!top?.ok) return undefined;
    const from = top.height - BigInt(n) + 1n;
    return from > 0n ? from : 0n;
  } catch {
    return undefined;
  }
}
