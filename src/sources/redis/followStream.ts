import { setTimeout as sleep } from "node:timers/promises";
import { noteArrival } from "../../core/blockArrival.js";
import type { BlockSample } from "../../core/blockSample.js";
import { createTurnPacer } from "../createTurnPacer.js";
import { checkStreamKey } from "./checkStreamKey.js";
import { connectRedis, type RedisConnection } from "./connectRedis.js";
import { blockDigest, createDeliveredRing, entryDigest } from "./createDeliveredRing.js";
import { createFallWatch } from "./createFallWatch.js";
import { createOutageTracker } from "./createOutageTracker.js";
import { createPageSizer } from "./createPageSizer.js";
import { RedisFeedError, tooLargeToRead, tooLargeToReadBack } from "./errors.js";
import type { ResolvedRedisStreamOptions } from "./options.js";
import { readStreamTopId } from "./redisStreamTop.js";
import {
  type DecodedStreamEntry,
  decodeStreamEntry,
  entryId,
  idBefore,
  idHeight,
  nextId,
  previousId,
} from "./streamEntry.js";
import { type StreamEntry, streamEntries, xreadEntries } from "./streamReplies.js";

/** Newest entries remembered to tell deleted entries from a stream written again (64 digests). */
const RING_SIZE = 64;
/** A warm start reads at most this many entries per block it wants (foreign entries between). */
const WARM_START_SCAN = 10;

/**
 * The follow loop of the `redisStream` source: connect, warm start (the newest
 * `warmStartBlocks` valid blocks, fed oldest first) or read from `startHeight`, then `XREAD BLOCK`
 * after the last entry seen. Any failure closes the connection and reconnects with backoff,
 * resuming after the last entry seen. Ends when `signal` aborts, or rejects with a failure that
 * is not Redis's (ioredis not installed), which no reconnection can mend.
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

  // The id of the last valid block handed on: for the `gap` events, and where to read on when
  // entries above it were deleted (see createFallWatch).
  let lastGood: string | undefined;
  // Before the first block, with `startHeight`: the first height wanted, so that a first block
  // above it (the heights between trimmed away) is a `gap` too (record --append would leave
  // a hole in its file without a word). Height 0 included.
  let gapFrom = start;

  const ring = createDeliveredRing(RING_SIZE);
  // The last valid block's digest on its own (its `block` field): entries that are not blocks
  // (a writer looping `XADD key * ...`) can push it out of the ring, and the repair must still
  // find it; a stream restored by another publisher holds it with another `received_at_ms`.
  let goodBlock: string | undefined;

  /** Hand on (or report) an entry; `digest` is its ring digest when its fields were let go. */
  const deliver = (
    raw: StreamEntry,
    decoded?: DecodedStreamEntry,
    digest?: string,
  ): BlockSample | undefined => {
    const [id, fields] = raw;
    lastId = id;
    read = true;
    // At or below the last block handed on, and an entry it handed on as it is: read again after
    // reading on from a lower top (Redis lost its newest entries, then the publisher wrote them
    // back). Not fed twice: the engine would reject them, and resync after 10. An entry it never
    // had is fed (a block written after a far-ahead one was deleted); a warm start (at start, or
    // after a real rewrite) feeds from scratch.
    if (lastGood !== undefined && !idBefore(lastGood, id) && ring.has(raw)) return undefined;
    ring.add(raw, digest);
    const entry = decoded ?? decodeStreamEntry(id, fields);
    if (!entry.ok) {
      onEvent({ type: "rejected", id, issues: entry.issues });
      return undefined;
    }
    // Heights with no valid block between the last one and this one: trimmed by the
    // publisher's MAXLEN before this replica read them (it fell behind by more than --retain),
    // never written, or written as entries that were rejected (and reported).
    const gap =
      lastGood !== undefined ? missing(lastGood, id) : gapFrom !== undefined && below(gapFrom, id);
    if (gap) onEvent({ type: "gap", stream, ...gap });
    lastGood = id;
    gapFrom = undefined;
    goodBlock = blockDigest(fields);
    if (entry.receivedAtMs !== undefined) noteArrival(entry.block, entry.receivedAtMs);
    emit(entry.block);
    return entry.block;
  };

  /**
   * Feed the newest `warmStartBlocks` valid blocks, oldest first (entries that are not blocks
   * between them are reported and do not count, so every replica starts from as many blocks),
   * reading at most WARM_START_SCAN entries per block wanted; returns the top id.
   */
  // Entries per page (warm start, XRANGE and XREAD): at most `batchSize`, fewer where entries
  // are large, halved after a page timed out (see createPageSizer).
  const pages = createPageSizer(options.batchSize);
  // Read pages and hand new blocks over a few ms of work at a time, so a server fed by this
  // replica keeps answering (but for the warm start's blocks: see warmStart).
  const pace = createTurnPacer();
  async function warmStart(conn: RedisConnection): Promise<string> {
    const wanted = options.warmStartBlocks;
    lastGood = undefined;
    // Read newest first, a block counts toward `wanted` only if an engine fed the newer ones
    // takes it too: the newest block's chain, at or below the epoch of the newer blocks. A block
    // of another chain (a second publisher on the wrong network) or a later epoch is handed on
    // and refused by the engine; counted, it would leave this replica with fewer blocks than
    // the replicas that read the stream live, and a different estimate.
    let chain: number | undefined;
    let epochAtMost: bigint | undefined;
    const follows = (b: BlockSample) => {
      if (epochAtMost === undefined) {
        chain = b.chainId;
        epochAtMost = b.epoch;
        return true;
      }
      if (b.chainId !== chain || b.epoch > epochAtMost) return false;
      epochAtMost = b.epoch;
      return true;
    };
    // An entry that is not a block is held by its id, issues and ring digest, not its fields:
    // thirty of 48 MB each, held until the warm start's end, were 1.4 GB.
    const newestFirst: [StreamEntry, DecodedStreamEntry, string?][] = [];
    let valid = 0;
    // Blocks held and their transactions; past `warmStartTransactions` no older one is taken.
    let blocksHeld = 0;
    let held = 0;
    let cut = false;
    let top: string | undefined;
    let end = "+";
    const budget = Math.max(1, wanted * WARM_START_SCAN);
    while (newestFirst.length < budget && (valid < wanted || top === undefined)) {
      const count = pages.count(Math.max(1, wanted - valid));
      const reply: unknown = await conn
        .call((c) => c.xrevrange(stream, end, "-", "COUNT", count))
        .catch((e: unknown) => pages.failed(tooLargeToReadBack(url, stream, end, e), count));
      const page = streamEntries(url, "XREVRANGE", reply);
      // A failure starts the warm start over: its pages do not grow back a cut size.
      pages.observe(page, false);
      top ??= page[0]?.[0];
      for (const e of page) {
        if (wanted === 0) break;
        await pace();
        const decoded = decodeStreamEntry(e[0], e[1]);
        // Every block held counts toward the budget, one of another chain or a later epoch
        // (handed on, and refused by the engine) as much as one that counts toward `wanted`.
        if (decoded.ok) {
          const txns = decoded.block.gasUnitPrices.length;
          cut = blocksHeld > 0 && held + txns > options.warmStartTransactions;
          if (cut) break;
          held += txns;
          blocksHeld++;
          newestFirst.push([e, decoded]);
          if (follows(decoded.block) && ++valid === wanted) break;
        } else newestFirst.push([[e[0], []], decoded, entryDigest(e)]);
      }
      const before = page.length === count ? previousId(page[page.length - 1]![0]) : undefined;
      if (before === undefined || wanted === 0 || cut) break;
      end = before;
    }
    if (top === undefined) {
      onEvent({ type: "stream_empty", url, stream });
      return "0-0";
    }
    let from: bigint | undefined;
    let to: bigint | undefined;
    let blocks = 0;
    // Handed over in one turn (not paced): a server this replica feeds answers from all of them
    // or from none, never from the oldest few with its windows part empty.
    for (let i = newestFirst.length - 1; i >= 0; i--) {
      const [raw, decoded, digest] = newestFirst[i]!;
      const block = deliver(raw, decoded, digest);
      if (!block) continue;
      from ??= block.height;
      to = block.height;
      blocks++;
    }
    // Said even when none of the entries read was a block: a replica that serves 503 then
    // says why (each entry's own `rejected` line says what is wrong with it).
    if (wanted > 0)
      onEvent(
        blocks > 0
          ? {
              type: "warm_start",
              stream,
              blocks,
              wanted,
              from,
              to,
              ...(cut ? { transactions: held } : {}),
            }
          : { type: "warm_start", stream, blocks, wanted },
      );
    return top;
  }

  /**
   * Before handing on the block `id`, the entries the stream holds between the last block
   * handed on and it that this replica never read: the read position had jumped past them. That happens when a
   * foreign entry far ahead was read (and rejected), then deleted by the repair of
   * docs/operations.md (`XDEL`, `XSETID`), and the publisher wrote the waiting blocks below its
   * id before this replica's next idle check saw the stream fall (see createFallWatch): the blocks are
   * in the stream, a replica started later has them, and this one would have skipped them for
   * good. Asked for a valid block `id` only, when heights are missing below it (a `gap`: one
   * XRANGE, empty for heights trimmed or never written); entries read before are left.
   */
  async function readSkipped(conn: RedisConnection, id: string): Promise<void> {
    if (lastGood === undefined || !missing(lastGood, id)) return;
    let from = nextId(lastGood);
    const to = previousId(id);
    while (from !== undefined && to !== undefined && !idBefore(to, from)) {
      const count = pages.count();
      const reply: unknown = await conn
        .call((c) => c.xrange(stream, from!, to, "COUNT", count))
        .catch((e: unknown) => pages.failed(e, count));
      const page = streamEntries(url, "XRANGE", reply);
      pages.observe(page);
      // Only blocks: no valid block lies between the last one handed on and `id` (it would be
      // the last one), so these are blocks never read. An entry that is not one was read in
      // order and reported then (a run longer than the ring is no longer in it), or, written
      // below the read position by a repair, is refused either way: it is not reported twice.
      for (const skipped of page) {
        if (ring.has(skipped)) continue;
        await pace();
        if (signal.aborted) return;
        const decoded = decodeStreamEntry(skipped[0], skipped[1]);
        if (decoded.ok) deliver(skipped, decoded);
      }
      if (page.length < count) break;
      from = nextId(page[page.length - 1]![0]);
    }
  }

  const falls = createFallWatch({
    stream,
    url,
    onEvent,
    ring,
    lastGood: () => (lastGood === undefined ? undefined : { id: lastGood, block: goodBlock }),
    warmStart,
  });

  while (!signal.aborted) {
    let conn: RedisConnection | undefined;
    const closeOnAbort = () => conn?.close();
    signal.addEventListener("abort", closeOnAbort, { once: true });
    try {
      // With the signal, a stop ends a connection attempt at once, not after `timeoutMs` (a
      // Redis that accepts connections but answers nothing held a stopping replica 4 s).
      conn = await connectRedis(options.target, {
        timeoutMs: options.timeoutMs,
        name: "gasdigest-source",
        signal,
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
        const asked = performance.now();
        const count = pages.count();
        const reply: unknown = await conn
          .call(
            (c) => c.xread("COUNT", count, "BLOCK", options.blockMs, "STREAMS", stream, after),
            options.blockMs,
          )
          .catch((e: unknown) => pages.failed(tooLargeToRead(url, stream, after, e), count));
        const entries = xreadEntries(url, reply);
        if (entries) pages.observe(entries);
        outage.succeeded();
        if (signal.aborted) continue;
        if (!entries) {
          // Nothing new for blockMs: is the stream now below what was read? Its newest entries
          // deleted, or the whole stream written again from lower heights (after a chain
          // reset). One XREVRANGE per idle wait, the top's id only (never decoded here).
          if (read) {
            const topId = await readStreamTopId(conn, stream);
            if (topId === undefined) falls.forget();
            else if (idBefore(topId, after)) lastId = await falls.fellBelow(conn, after, topId);
            else lastId = (await falls.settle(conn, after)) ?? lastId;
          }
          // Redis answers nothing only after blockMs; a server that answers nothing at once
          // would make this loop spin (a CPU core and two round trips a turn): wait the rest,
          // by a monotonic clock (a wall clock stepped back an hour made it sleep an hour).
          const early = options.blockMs - (performance.now() - asked);
          if (early > options.blockMs / 2)
            await sleep(early, undefined, { signal }).catch(() => undefined);
          continue;
        }
        const rewound = await falls.settle(conn, after);
        if (rewound !== undefined) {
          lastId = rewound;
          continue;
        }
        for (const entry of entries) {
          await pace();
          if (signal.aborted) break;
          const decoded = decodeStreamEntry(entry[0], entry[1]);
          if (decoded.ok) await readSkipped(conn, entry[0]);
          if (signal.aborted) break;
          deliver(entry, decoded);
        }
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

/** Heights from `from` to just below the entry `id`, when it lies above `from`. */
function below(from: bigint, id: string): { from: bigint; to: bigint } | undefined {
  const h = idHeight(id);
  return h === undefined || h <= from ? undefined : { from, to: h - 1n };
}
