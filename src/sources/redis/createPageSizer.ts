import { isTooLong, RedisFeedError } from "./errors.js";
import type { StreamEntry } from "./streamReplies.js";

/** Bytes of entries one page should hold at most, judged by the largest entry seen lately. */
export const PAGE_BYTES = 32 * 1024 * 1024;
/** Entries of a first page, before any entry's size is known. */
export const FIRST_PAGE = 4;
/** Full pages in a row after which a page size cut by a timeout or a closed connection doubles again. */
export const REGROW_AFTER = 8;
/** Most full pages a doubling waits for, once doublings were undone by the page after them. */
export const REGROW_AFTER_MAX = 16 * REGROW_AFTER;

/** How many entries the next `XREVRANGE`, `XRANGE` or `XREAD` asks for; see {@link createPageSizer}. */
export interface PageSizer {
  /** Entries to ask for, at most `want`. */
  count(want?: number): number;
  /**
   * A page was read: its entries' sizes size the next pages. `regrow: false` for a read that a
   * failure starts over (the warm start): a page doubled back and closed again would start it
   * over every time.
   */
  observe(page: readonly StreamEntry[], regrow?: boolean): void;
  /**
   * A page of `count` entries failed: after a timeout, or the connection closed under it, the
   * next pages are half as large (a page that cannot arrive within the timeout, or that Redis
   * closes the connection for, past its `client-output-buffer-limit`, would fail the same way on
   * every retry), until full pages in a row double it back. Rethrows.
   */
  failed(e: unknown, count: number): never;
}

/**
 * The page size of a Redis stream reader: at most `batchSize` entries, and no more than
 * `pageBytes` of them going by the largest entry seen lately (the largest of the last page, or
 * half the one remembered before, whichever is more, so one page of small entries does not
 * forget a large one at once). Redis answers a page whole, and a reader holds it whole: 500
 * entries of 12 million prices were 24 GB, where the block cap (1,000,000 transactions) still
 * allows some 50 MB an entry. The first page asks for {@link FIRST_PAGE} entries.
 *
 * A page that timed out halves the size (a page too large for a slow link would time out on
 * every retry). A connection closed under a page halves it too, since Redis closes a client
 * whose answer passes its `client-output-buffer-limit` (a page of 500 entries of 3 KB against
 * `normal 512kb`, asked again on every reconnection: a replica that never warm-started, or never
 * caught up). But a Redis that stalls (a fork, `DEBUG SLEEP`, `CLIENT PAUSE`, a network
 * partition) times a page out too, whatever its size, and a restart closes it: either cut
 * doubles back after {@link REGROW_AFTER} full pages in a row (of reads that a failure does not
 * start over: a warm start never completed when its pages doubled back into the limit). When the
 * first full page at a doubled cut fails again (the link is slow, or the limit is real), the next
 * doubling waits twice as many pages, up to {@link REGROW_AFTER_MAX}: doubling back every 8
 * pages cost a timeout and a reconnection every nine pages of a catch-up over a slow link. Kept
 * for good, nine stalls of Redis longer than the timeout left a replica reading one entry per
 * `XREAD` until it was restarted: 2,000 entries behind, it took 28 s to catch up over a 40 ms
 * round trip, where it took 0.9 s.
 *
 * @example
 * const pages = createPageSizer(500);
 * pages.count(); // 4
 * pages.observe(page); // entries of about 2.5 KB
 * pages.count(); // 500
 */
export function createPageSizer(batchSize: number, pageBytes = PAGE_BYTES): PageSizer {
  // The cut of timeouts and closed connections, and the full pages read at it in a row.
  let cut = batchSize;
  let fullPages = 0;
  // The full pages a doubling waits for, and whether the cut was doubled with no full page read
  // at it yet: a slow link (or the output buffer limit) fails that page again, and a doubling
  // each REGROW_AFTER pages cost a timeout (or a closed connection) every nine pages.
  let regrowAfter = REGROW_AFTER;
  let grown = false;
  let largest = 0;
  // Whether the cut is one entry for an entry too long to decode: it doubles back in a warm
  // start too (a calibrated replica's 10,001 entries one per round trip once it is deleted).
  let tooLongCut = false;
  return {
    count(want = Number.POSITIVE_INFINITY) {
      const fit = largest === 0 ? FIRST_PAGE : Math.floor(pageBytes / largest);
      return Math.max(1, Math.min(want, cut, fit));
    },
    observe(page, regrow = true) {
      if (page.length === 0) return;
      if (grown && page.length >= cut) {
        grown = false;
        regrowAfter = REGROW_AFTER;
      }
      if ((regrow || tooLongCut) && cut < batchSize) {
        fullPages = page.length >= cut ? fullPages + 1 : 0;
        if (fullPages >= regrowAfter) {
          cut = Math.min(batchSize, cut * 2);
          fullPages = 0;
          grown = true;
        }
      }
      let most = 0;
      for (const [id, fields] of page) {
        let bytes = id.length;
        for (const f of fields) bytes += f.length;
        if (bytes > most) most = bytes;
      }
      largest = Math.max(most, Math.floor(largest / 2));
    },
    failed(e, count) {
      // An entry too long for the client to decode fails every page holding it: read one
      // entry at a time, so the blocks before it are read and the failure names where it is
      // (asked again whole, a page of 500 stayed stuck before them, and the repair the warning
      // gave pointed at the first entry of the page, a valid block).
      if (count > 1 && isTooLong(e)) {
        grown = false;
        cut = 1;
        fullPages = 0;
        tooLongCut = true;
        throw e;
      }
      if (
        e instanceof RedisFeedError &&
        count > 1 &&
        (e.kind === "timeout" || e.kind === "closed")
      ) {
        // The first full page at a doubled cut failed: the next doubling waits twice as long.
        if (grown && count >= cut) regrowAfter = Math.min(REGROW_AFTER_MAX, regrowAfter * 2);
        grown = false;
        cut = Math.max(1, Math.floor(count / 2));
        fullPages = 0;
        tooLongCut = false;
      }
      throw e;
    },
  };
}
