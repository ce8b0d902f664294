import type { RedisConnection } from "../../sources/redis/connectRedis.js";
import { entryId } from "../../sources/redis/streamEntry.js";
import type { WrittenEntry } from "./createWrittenRing.js";

/** Redis's answer to an `XADD` whose id is not above the stream's top id. */
const REFUSED = "equal or smaller than the target stream top item";
/** Its answer when the stream's last id is the largest there is (`18446744073709551615-18446744073709551615`). */
const EXHAUSTED = "exhausted the last possible ID";

/**
 * Whether an `XADD` was refused for its id: not above the stream's last id, or no id left above
 * it at all (an entry written at the largest id, which no block's `<height>-0` can pass). Either
 * way the stream's top (or last id) says why, and what repairs it.
 */
export function isRefused(error: Error | null | undefined): boolean {
  return error != null && (error.message.includes(REFUSED) || error.message.includes(EXHAUSTED));
}

/** Redis's answer to each `XADD` of a transaction, in order: `[error, id]`. */
export type XaddReplies = readonly [Error | null, unknown][] | null;

/**
 * Send `XADD stream MAXLEN ~ retain <height>-0 block <line>` for each entry, in one
 * transaction (`MULTI` ... `EXEC`, one round trip), and return Redis's answer to each, in order.
 * The caller tells a refused id ({@link isRefused}) from a fault. With `mustExist` (`NOMKSTREAM`, Redis
 * 6.2 and later) an `XADD` into a stream that is gone answers `null` instead of making a new
 * one: a stream deleted under a running publisher (`DEL`, `FLUSHALL`) is then noticed, not
 * silently started again above a hole.
 *
 * A transaction, not a plain pipeline: Redis refuses a write it has no memory for (`OOM`), and
 * memory goes up and down while replicas read, so in a pipeline some `XADD`s of a batch could
 * fail while later ones were written; the failed heights were then below the stream's top, which
 * Redis refuses for good, and lost. Refused at queueing, the whole transaction is discarded: the
 * batch is written entirely or not at all, and waits to be tried again.
 *
 * @throws {RedisFeedError} when the transaction fails (connection, timeout, or discarded: the
 *   reason Redis gave for the first command it refused, such as `OOM`, is the message).
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
    const transaction = c.multi();
    for (const e of entries)
      transaction.xadd(stream, ...(options as ["MAXLEN"]), entryId(e.height), ...e.fields);
    return transaction.exec().catch((e: unknown) => {
      // EXECABORT names no cause: the first command's own refusal does (`OOM ...`).
      const first = (e as { previousErrors?: unknown[] } | undefined)?.previousErrors?.[0];
      throw first instanceof Error ? first : e;
    });
  });
}

/**
 * Whether Redis refused `NOMKSTREAM` itself (before 6.2 it reads it as the id, "Invalid stream
 * ID", or refuses the syntax): the batch is to be written again without it (the ids written are
 * always valid, so neither answer means anything else).
 *
 * @example
 * if (mustExist && refusesNoMakeStream(replies)) noMakeStream = false;
 */
export function refusesNoMakeStream(replies: XaddReplies): boolean {
  const answer = replies?.[0]?.[0]?.message.toLowerCase() ?? "";
  return answer.includes("syntax error") || answer.includes("invalid stream id");
}
