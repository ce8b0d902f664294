import type { RedisConnection } from "./connectRedis.js";
import { blockDigest, type DeliveredRing } from "./createDeliveredRing.js";
import type { RedisStreamEvent } from "./options.js";
import { idBefore } from "./streamEntry.js";
import { streamEntries } from "./streamReplies.js";

/** What a replica knows that {@link createFallWatch} reads. */
export interface FallWatchContext {
  readonly stream: string;
  /** The Redis URL as shown in messages. */
  readonly url: string;
  readonly onEvent: (event: RedisStreamEvent) => void;
  /** The newest entries handed on, by id and content. */
  readonly ring: DeliveredRing;
  /** The id of the last valid block handed on, and its `block` field's digest. */
  lastGood(): { id: string; block: string | undefined } | undefined;
  /** Warm-start again (a rewritten stream); returns the id to read after. */
  warmStart(conn: RedisConnection): Promise<string>;
}

/** A replica's watch on its stream's top falling below what it read; see {@link createFallWatch}. */
export interface FallWatch {
  /** An idle check found the top, `topId`, below the last entry read, `after`: where to read on. */
  fellBelow(conn: RedisConnection, after: string, topId: string): Promise<string>;
  /**
   * The stream stands at or above `after` again (an idle check, or new entries): after a fall,
   * the id to read on after when it was rewritten (warm-started again), else `undefined`.
   */
  settle(conn: RedisConnection, after: string): Promise<string | undefined>;
  /** The stream is empty: a fall seen before says nothing any more. */
  forget(): void;
}

/**
 * When a replica's idle check finds the stream's top below the last entry it read:
 * - The top is an entry this replica already handed on, unchanged: the newer entries were
 *   deleted (`XDEL`); read on after the top, nothing fed twice.
 * - The last block handed on is still there (its `block` field; a restore by another publisher
 *   keeps it with another `received_at_ms`), at or below the top: entries above it were deleted,
 *   and new ones maybe written since (the repair of foreign entries in docs/operations.md, then
 *   the publisher's next blocks); read on after that block.
 * - Otherwise the stream may have been written again from lower heights (a chain reset), or it
 *   is being restored: Redis lost it, and the publisher writes back the blocks it holds, oldest
 *   first, up to and past this replica's last entry, in about a second for 10,000 blocks. Read
 *   as a rewrite at once, the restore made a replica warm-start and resync, its served height
 *   going back, though the blocks it had came back as they were. So the first such look only
 *   waits; if the next idle check, `blockMs` later, still finds the top below, the stream was
 *   written again: warm start. If by then (or when entries come) the stream stands at or above
 *   the last entry again, it was restored when the last block is at its height as it was, and
 *   written again past this replica's height otherwise (a reset chain that passed it): warm
 *   start. The fall is forgotten only once that check has its answer: a read that fails leaves
 *   it for the next look, never feeding the entries above unchecked.
 *
 * @example
 * const falls = createFallWatch({ stream, url, onEvent, ring, lastGood: () => last, warmStart });
 * lastId = await falls.fellBelow(conn, lastId, topId);
 */
export function createFallWatch(c: FallWatchContext): FallWatch {
  const { stream, url, onEvent } = c;
  // The top the last idle check found below the last entry read, while that fall is unsettled.
  let fellTo: string | undefined;

  async function entryAt(conn: RedisConnection, id: string) {
    const reply: unknown = await conn.call((r) => r.xrange(stream, id, id));
    return streamEntries(url, "XRANGE", reply)[0];
  }

  /** Whether the stream holds, at the last valid block's id, that same block. */
  async function lastBlockHeld(conn: RedisConnection, last: { id: string; block?: string }) {
    const entry = await entryAt(conn, last.id);
    return entry !== undefined && last.block !== undefined && blockDigest(entry[1]) === last.block;
  }

  async function rewound(conn: RedisConnection, after: string, to: string) {
    fellTo = undefined;
    onEvent({ type: "stream_rewound", stream, from: after, to });
    return c.warmStart(conn);
  }

  return {
    async fellBelow(conn, after, topId) {
      let from: string | undefined;
      const top = await entryAt(conn, topId);
      const last = c.lastGood();
      if (top !== undefined && c.ring.has(top)) from = topId;
      else if (last && !idBefore(topId, last.id) && (await lastBlockHeld(conn, last)))
        from = last.id;
      if (from !== undefined) {
        fellTo = undefined;
        onEvent({ type: "resumed", stream, afterId: from });
        return from;
      }
      if (fellTo === undefined) {
        fellTo = topId;
        return after;
      }
      return rewound(conn, after, topId);
    },
    async settle(conn, after) {
      const to = fellTo;
      if (to === undefined) return undefined;
      const last = c.lastGood();
      if (last === undefined || (await lastBlockHeld(conn, last))) {
        fellTo = undefined;
        return undefined;
      }
      return rewound(conn, after, to);
    },
    forget() {
      fellTo = undefined;
    },
  };
}
