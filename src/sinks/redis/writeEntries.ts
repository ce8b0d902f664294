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
 * a fault.
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
): Promise<XaddReplies> {
  return conn.call((c) => {
    const pipeline = c.pipeline();
    for (const e of entries)
      pipeline.xadd(stream, "MAXLEN", "~", retain, entryId(e.height), ...e.fields);
    return pipeline.exec();
  });
}
