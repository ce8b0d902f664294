import { describeValue } from "../../core/describeValue.js";
import type { RedisConnection } from "../../sources/redis/connectRedis.js";
import { commandFailure, RedisFeedError } from "../../sources/redis/errors.js";
import { readStreamTopId } from "../../sources/redis/redisStreamTop.js";
import { entryId, idHeight } from "../../sources/redis/streamEntry.js";
import type { WrittenRing } from "./createWrittenRing.js";
import type { ResolvedRedisStreamSinkOptions } from "./options.js";
import { isRefused, refusesNoMakeStream, writeEntries } from "./writeEntries.js";

/**
 * The loss being repaired: its `to`, so that a repair retried after a failure is not reported
 * again; and the `to` whose refused repair was reported (`repair_refused`), likewise.
 */
export interface LossReport {
  to: bigint | undefined;
  refusedTo?: bigint | undefined;
}

/**
 * Run on each new connection before anything else is written: when the stream's top is below
 * the newest height Redis acknowledged to this sink, Redis lost acknowledged entries (it
 * restarted from an older snapshot, or without persistence). Report `stream_lost` (once per
 * loss: `reported` remembers it while the repair is retried) and write the kept entries above
 * the top again, in height order, before the sink writes anything newer: Redis refuses an id
 * below the top, so once a newer block is in the hole is there for good. A refused one (the
 * other publisher was first) is fine. Costs nothing before the first write, and one
 * `XREVRANGE ... COUNT 1` (the top's id, not decoded) on each reconnection.
 *
 * Returns whether it wrote an entry: the stream is then there, and the sink's next write carries
 * `NOMKSTREAM` (a stream deleted between the repair and that write is noticed, not started again
 * above a hole).
 *
 * @throws {RedisFeedError} when a call fails (the sink retries after a backoff: the top is read
 * again and only what is still missing is written).
 * @example
 * const wrote = await restoreLostEntries(conn, options, written, reported);
 */
export async function restoreLostEntries(
  conn: RedisConnection,
  options: ResolvedRedisStreamSinkOptions,
  written: WrittenRing,
  reported: LossReport,
): Promise<boolean> {
  const newest = written.newest;
  if (newest === undefined) return false;
  const { stream } = options;
  const top = await readStreamTopId(conn, stream);
  // An id that is not a height (written by something else) is handled by the XADDs' own check.
  const topHeight = top === undefined ? 0n : idHeight(top);
  if (topHeight === undefined || topHeight >= newest) {
    reported.to = undefined;
    reported.refusedTo = undefined;
    return false;
  }
  const kept = written.above(topHeight);
  if (reported.to !== newest) {
    reported.to = newest;
    // An empty stream lost all it held: up to --retain heights below the newest, whoever wrote
    // them (not only from this publisher's first write: another one may have written before).
    const retained = newest - BigInt(options.retain) + 1n;
    const from = top !== undefined ? topHeight + 1n : retained > 1n ? retained : 1n;
    options.onEvent({
      type: "stream_lost",
      stream,
      top,
      from,
      to: newest,
      rewriteFrom: kept[0]?.height,
    });
  }
  const retain = String(options.retain);
  let refused: bigint | undefined;
  // Whether Redis refused the newest height: its last id is at or above it.
  let newestRefused = false;
  // Once a batch is in, the stream must stay: deleted under the repair (DEL, FLUSHALL, a
  // maxmemory policy that evicts), the next batch would start it again above a hole, without a
  // word. NOMKSTREAM (Redis 6.2 and later) answers null instead: the next connection repairs
  // again, from the start. Older servers refuse the option, and the repair goes on without it.
  let noMakeStream = true;
  let wrote = false;
  for (let i = 0; i < kept.length; ) {
    const mustExist = noMakeStream && i > 0;
    const replies = await writeEntries(
      conn,
      stream,
      retain,
      kept.slice(i, i + options.batchSize),
      mustExist,
    );
    if (mustExist && refusesNoMakeStream(replies)) {
      noMakeStream = false;
      continue;
    }
    for (let j = 0; j < Math.min(options.batchSize, kept.length - i); j++) {
      const [error, reply] = replies?.[j] ?? [new Error("no answer in the pipeline")];
      if (error && !isRefused(error)) throw commandFailure(conn.url, error);
      if (mustExist && !error && reply === null)
        throw new RedisFeedError(conn.url, "command", {
          message: `stream ${stream} is gone (deleted, evicted, or Redis flushed) while this publisher wrote the heights it lost back`,
          details: "the blocks it kept are written again, from the oldest, on the next connection",
        });
      // Anything but the id asked for (a proxy mangling replies) is no sign it was written.
      const id = entryId(kept[i + j]!.height);
      if (!error && reply !== id)
        throw new RedisFeedError(conn.url, "reply", {
          message: `Redis at ${conn.url} answered XADD ${id} of stream ${stream} with something that is not that entry's id`,
          details: `the reply is ${describeValue(reply)}`,
        });
      if (!error) wrote = true;
      if (error) refused ??= kept[i + j]!.height;
      if (error && kept[i + j]!.height === newest) newestRefused = true;
    }
    i += options.batchSize;
  }
  // Refused up to the newest height: the stream's last id still stands at or above every height
  // Redis acknowledged, which a restart from an older snapshot or without persistence never
  // leaves. The entries were removed by a command that keeps the last id (XTRIM ... MAXLEN 0 or
  // XDEL of the newest entries, an operator freeing memory), or the last id was set ahead. No
  // repair can go in either way: newer blocks are written as usual (before, the publisher
  // retried this repair on every connection and never wrote again until someone ran XSETID, the
  // replicas stale). A last id set ahead of them too is said by their own refusal, with the
  // XSETID that mends it; the next connection then writes these kept blocks again.
  if (newestRefused) {
    if (reported.refusedTo !== newest) {
      reported.refusedTo = newest;
      options.onEvent({ type: "repair_refused", stream, from: kept[0]!.height, to: newest });
    }
    return wrote;
  }
  // A refused height is fine when the stream now stands at or above it (the other publisher
  // was first). Refused with no entry at or above it, Redis refused it by the stream's last id,
  // set past its entries (`XADD ... MAXLEN 0`, XSETID): the repair did not happen. Said as a
  // failure (retried with backoff, the loss not reported again), with the id to set it back to.
  if (refused !== undefined) {
    const now = await readStreamTopId(conn, stream);
    const nowHeight = now === undefined ? 0n : idHeight(now);
    if (nowHeight !== undefined && nowHeight < refused)
      throw new RedisFeedError(conn.url, "command", {
        message: `Redis refuses heights ${refused}..${newest} of stream ${stream}, which this publisher kept to write again, above its newest entry ${now ?? "(none: the stream is empty)"}: the stream's last id was set past its entries`,
        details: `set it back below them (XSETID ${stream} ${now ?? entryId(refused - 1n)}); the blocks wait in memory meanwhile`,
      });
  }
  reported.to = undefined;
  return wrote;
}
