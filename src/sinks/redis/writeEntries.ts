import type { RedisConnection } from "../../sources/redis/connectRedis.js";
import { entryId } from "../../sources/redis/streamEntry.js";
import type { WrittenEntry } from "./createWrittenRing.js";

/** Redis's answer to an `XADD` whose id is not above the stream's top id. */
export const REFUSED = "equal or smaller than the target stream top item";

/** Redis's answer to each `XADD` of a pipeline, in order: `[error, id]`. */
export type XaddReplies = readonly [Error | null, unknown][] | null;

/**
 * Send `XADD stream MAXLEN ~ retain <height>-0 block <line>` for each entry, in one pipeline,
 * and return Redis's answer to each, in order. The caller tells a refused id (`REFUSED`) from
 * a fault. With `mustExist` (`NOMKSTREAM`, Redis 6.2 and later) an `XADD` into a stream that is
 * gone answers `null` instead of making a new one: a stream deleted under a running publisher
 * (`DEL`, `FLUSHALL`) is then noticed, not silently started again above a hole.
 *
 * @throws {RedisFeedError} when the pipeline itself fails (connection, timeout).
 * @example
 * const replies = await writeEntries(conn, "gasdigest:blocks", "10000", [{ height: 7n, fields: encodeStreamEntry(block) }]);
 */
export function writeEntries(
  conn: RedisConnection,
  stream: string,
  retain: string,
  entries: readonly WrittenEntry[],
  mustExist = false,
): Promise<XaddReplies> {
  const options = mustExist ? ["NOMKSTREAM", "MAXLEN", "~", retain] : ["MAXLEN", "~", retain];
  return conn.call((c) => {
    const pipeline = c.pipeline();
    for (const e of entries)
      pipeline.xadd(stream, ...(options as ["MAXLEN"]), entryId(e.height), ...e.fields);
    return pipeline.exec();
  });
}
