import { RedisFeedError } from "./errors.js";
import type { StreamEntry } from "./streamReplies.js";

/** Bytes of entries one page should hold at most, judged by the largest entry seen lately. */
export const PAGE_BYTES = 32 * 1024 * 1024;
/** Entries of a first page, before any entry's size is known. */
export const FIRST_PAGE = 4;

/** How many entries the next `XREVRANGE`, `XRANGE` or `XREAD` asks for; see {@link createPageSizer}. */
export interface PageSizer {
  /** Entries to ask for, at most `want`. */
  count(want?: number): number;
  /** A page was read: its entries' sizes size the next pages. */
  observe(page: readonly StreamEntry[]): void;
  /**
   * A page of `count` entries failed: after a timeout the next pages are half as large (a page
   * that cannot arrive within the timeout would fail the same way on every retry). Rethrows.
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
 * @example
 * const pages = createPageSizer(500);
 * pages.count(); // 4
 * pages.observe(page); // entries of about 2.5 KB
 * pages.count(); // 500
 */
export function createPageSizer(batchSize: number, pageBytes = PAGE_BYTES): PageSizer {
  let size = batchSize;
  let largest = 0;
  return {
    count(want = Number.POSITIVE_INFINITY) {
      const fit = largest === 0 ? FIRST_PAGE : Math.floor(pageBytes / largest);
      return Math.max(1, Math.min(want, size, fit));
    },
    observe(page) {
      if (page.length === 0) return;
      let most = 0;
      for (const [id, fields] of page) {
        let bytes = id.length;
        for (const f of fields) bytes += f.length;
        if (bytes > most) most = bytes;
      }
      largest = Math.max(most, Math.floor(largest / 2));
    },
    failed(e, count) {
      if (e instanceof RedisFeedError && e.kind === "timeout" && count > 1)
        size = Math.max(1, Math.floor(count / 2));
      throw e;
    },
  };
}
