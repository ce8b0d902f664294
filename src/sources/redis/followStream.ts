import { setTimeout as sleep } from "node:timers/promises";
import type { BlockSample } from "../../core/blockSample.js";
import { checkStreamKey } from "./checkStreamKey.js";
import { connectRedis, type RedisConnection } from "./connectRedis.js";
import { createOutageTracker } from "./createOutageTracker.js";
import { RedisFeedError } from "./errors.js";
import type { ResolvedRedisStreamOptions } from "./options.js";
import { readStreamTop } from "./redisStreamTop.js";
import { decodeStreamEntry, entryId, idBefore, idHeight, previousId } from "./streamEntry.js";

type Entry = [id: string, fields: string[]];

/**
 * The follow loop of the `redisStream` source: connect, warm start (the newest
 * `warmStartBlocks` entries, fed oldest first) or read from `startHeight`, then `XREAD BLOCK`
 * after the last entry seen. Any failure closes the connection and reconnects with backoff,
 * resuming after the last entry seen. Returns only when `signal` aborts.
 */
export async function followStream(
  options: ResolvedRedisStreamOptions,
  emit: (block: BlockSample) => void,
  signal: AbortSignal,
): Promise<void> {
  const { onEvent, stream } = options;
  const url = options.target.display;
  const outage = createOutageTracker({ ...options, url, onEvent });
  const start = options.startHeight;
  // The id of the last entry handed on (or skipped as malformed); undefined until the warm start.
  let lastId: string | undefined =
    start === undefined ? undefined : (previousId(entryId(start)) ?? "0-0");
  let connectedBefore = false;
  // Whether lastId is an entry actually read (not a startHeight still ahead of the stream).
  let read = false;

  // The id of the last valid block handed on: where to resume when a foreign entry above it
  // is deleted again (the repair of docs/operations.md).
  let lastGood: string | undefined;

  const deliver = ([id, fields]: Entry): BlockSample | undefined => {
    lastId = id;
    read = true;
    const entry = decodeStreamEntry(id, fields);
    if (!entry.ok) {
      onEvent({ type: "rejected", id, issues: entry.issues });
      return undefined;
    }
    // Heights with no valid block between the last one and this one: trimmed by the
    // publisher's MAXLEN before this replica read them (it fell behind by more than --retain),
    // never written, or written as entries that were rejected (and reported).
    const gap = lastGood === undefined ? undefined : missing(lastGood, id);
    if (gap) onEvent({ type: "gap", stream, ...gap });
    lastGood = id;
    emit(entry.block);
    return entry.block;
  };

  async function warmStart(conn: RedisConnection): Promise<string> {
    const wanted = options.warmStartBlocks;
    const newestFirst: Entry[] = [];
    let end = "+";
    do {
      const count = Math.max(1, Math.min(wanted - newestFirst.length, options.batchSize));
      const page = (await conn.call((c) =>
        c.xrevrange(stream, end, "-", "COUNT", count),
      )) as Entry[];
      for (const e of page) newestFirst.push(e);
      const before = page.length === count ? previousId(page[page.length - 1]![0]) : undefined;
      if (before === undefined) break;
      end = before;
    } while (newestFirst.length < wanted);
    if (newestFirst.length === 0) {
      onEvent({ type: "stream_empty", url, stream });
      return "0-0";
    }
    const top = newestFirst[0]![0];
    if (wanted === 0) return top;
    let from: bigint | undefined;
    let to: bigint | undefined;
    let blocks = 0;
    for (let i = newestFirst.length - 1; i >= 0; i--) {
      const block = deliver(newestFirst[i]!);
      if (!block) continue;
      from ??= block.height;
      to = block.height;
      blocks++;
    }
    if (from !== undefined && to !== undefined)
      onEvent({ type: "warm_start", stream, blocks, from, to });
    return top;
  }

  while (!signal.aborted) {
    let conn: RedisConnection | undefined;
    const closeOnAbort = () => conn?.close();
    signal.addEventListener("abort", closeOnAbort, { once: true });
    try {
      conn = await connectRedis(options.target, {
        timeoutMs: options.timeoutMs,
        name: "gasdigest-source",
      });
      if (signal.aborted) break;
      await checkStreamKey(conn, url, stream);
      onEvent({ type: "connected", url, stream });
      // The outage is over once entries can be read, not once the connection is up: a read
      // that fails every time (an entry too large for the client, an ACL without XREAD) must
      // count as an outage, with its warning and backoff, not as endless quick reconnections.
      if (lastId === undefined) {
        lastId = await warmStart(conn);
        outage.succeeded();
      } else if (connectedBefore) onEvent({ type: "resumed", stream, afterId: lastId });
      connectedBefore = true;
      while (!signal.aborted) {
        const after: string = lastId;
        const reply = (await conn.call(
          (c) =>
            c.xread("COUNT", options.batchSize, "BLOCK", options.blockMs, "STREAMS", stream, after),
          options.blockMs,
        )) as [key: string, entries: Entry[]][] | null;
        outage.succeeded();
        if (signal.aborted) continue;
        if (!reply) {
          // Nothing new for blockMs: is the stream now below what was read (deleted and written
          // again from lower heights, after a chain reset)? One XREVRANGE per idle wait.
          if (read) {
            const topId = (await readStreamTop(conn, stream))?.id;
            if (topId !== undefined && idBefore(topId, after)) {
              // A foreign entry above the last block was deleted and the blocks go on after
              // it: read on after the last block, as if the foreign entry had never been.
              const good = lastGood;
              const kept =
                good !== undefined &&
                !idBefore(topId, good) &&
                ((await conn.call((c) => c.xrange(stream, good, good))) as Entry[]).length > 0;
              if (kept) {
                lastId = good;
                onEvent({ type: "resumed", stream, afterId: good });
              } else {
                onEvent({ type: "stream_rewound", stream, from: after, to: topId });
                lastId = await warmStart(conn);
              }
            }
          }
          continue;
        }
        for (const [, entries] of reply) for (const entry of entries) deliver(entry);
      }
    } catch (e) {
      conn?.close();
      if (signal.aborted) break;
      if (!(e instanceof RedisFeedError)) throw e; // not a Redis fault (e.g. ioredis missing)
      try {
        await sleep(outage.failed(e), undefined, { signal });
      } catch {
        break;
      }
    } finally {
      signal.removeEventListener("abort", closeOnAbort);
      if (signal.aborted) conn?.close();
    }
  }
}

/** Heights strictly between the entries `before` and `after`, when any (and both are heights). */
function missing(before: string, after: string): { from: bigint; to: bigint } | undefined {
  const a = idHeight(before);
  const b = idHeight(after);
  if (a === undefined || b === undefined || b <= a + 1n) return undefined;
  return { from: a + 1n, to: b - 1n };
}
