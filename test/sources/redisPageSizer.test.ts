import { describe, expect, it } from "vitest";
import {
  createPageSizer,
  FIRST_PAGE,
  PAGE_BYTES,
  REGROW_AFTER,
} from "../../src/sources/redis/createPageSizer.js";
import { commandFailure, RedisFeedError, tooLargeToRead } from "../../src/sources/redis/errors.js";
import type { StreamEntry } from "../../src/sources/redis/streamReplies.js";

/** A page of `n` entries whose `block` field is `bytes` long. */
const page = (n: number, bytes: number): StreamEntry[] =>
  Array.from({ length: n }, (_, i) => [`${i + 1}-0`, ["block", "x".repeat(bytes)]]);

describe("Redis page sizes: entries asked for at once", () => {
  it("starts small, grows to batchSize on small entries and shrinks on large ones", () => {
    const pages = createPageSizer(500);
    // Nothing is known of the entries yet: 500 of 48 MB would be one 24 GB answer.
    expect(pages.count()).toBe(FIRST_PAGE);
    expect(pages.count(2)).toBe(2);
    pages.observe(page(4, 2_500));
    expect(pages.count()).toBe(500);
    expect(pages.count(121)).toBe(121);
    // Entries of 8 MB: four a page.
    pages.observe(page(1, 8 * 1024 * 1024));
    expect(pages.count()).toBe(Math.floor(PAGE_BYTES / (8 * 1024 * 1024 + 10)));
    // An entry larger than a page's bytes: one at a time, never none.
    pages.observe(page(1, PAGE_BYTES * 2));
    expect(pages.count()).toBe(1);
    // Small entries again: the large one is forgotten by halves, not at once.
    pages.observe(page(10, 100));
    expect(pages.count()).toBe(1);
    for (let i = 0; i < 30; i++) pages.observe(page(10, 100));
    expect(pages.count()).toBe(500);
    // An empty page says nothing of sizes.
    pages.observe([]);
    expect(pages.count()).toBe(500);
  });

  /** A warm start's pages (started over by a failure) never double a cut of 500 to 250 back. */
  function expectWarmStartKeepsCut(pages: ReturnType<typeof createPageSizer>, error: Error) {
    expect(() => pages.failed(error, 500)).toThrow(error);
    for (let i = 0; i < 2 * REGROW_AFTER; i++) pages.observe(page(250, 100), false);
    expect(pages.count()).toBe(250);
  }

  it("halves the page after a timeout, rethrowing the failure", () => {
    const pages = createPageSizer(500);
    pages.observe(page(4, 100));
    const timeout = new RedisFeedError("redis://x", "timeout", { message: "timed out" });
    expect(() => pages.failed(timeout, 500)).toThrow(timeout);
    expect(pages.count()).toBe(250);
    const other = new Error("boom");
    expect(() => pages.failed(other, 250)).toThrow(other);
    expect(pages.count()).toBe(250);
  });

  it("reads one entry at a time after a page held an entry too long to decode, so the entries before it are read", () => {
    const pages = createPageSizer(500);
    pages.observe(page(4, 100));
    expect(pages.count()).toBe(500);
    // As the XREAD of followStream reports it: the client's RangeError, wrapped twice.
    const tooLong = tooLargeToRead(
      "redis://x",
      "s",
      "50-0",
      commandFailure(
        "redis://x",
        new RangeError("Cannot create a string longer than 0x1fffffe8 characters"),
      ),
    );
    // Asked again whole (or halved), the page fails for as long as the entry stands: the
    // blocks before it are never read, and the warning's XRANGE names the page's first entry.
    expect(() => pages.failed(tooLong, 500)).toThrow(tooLong as Error);
    expect(pages.count()).toBe(1);
    // Once it is deleted, a warm start's pages double back too: one entry per round trip, a
    // calibrated replica's 10,001 entries took 10,001 of them.
    for (let i = 0; i < REGROW_AFTER; i++) pages.observe(page(1, 100), false);
    expect(pages.count()).toBe(2);
    // Any other command failure leaves the page as it is.
    const fresh = createPageSizer(500);
    fresh.observe(page(4, 100));
    const nope = commandFailure("redis://x", new Error("NOPERM no permissions"));
    expect(() => fresh.failed(nope, 500)).toThrow(nope);
    expect(fresh.count()).toBe(500);
  });

  it("doubles a page cut by timeouts back after full pages: a Redis that stalled is not a slow link", () => {
    const pages = createPageSizer(500);
    pages.observe(page(4, 100));
    // Nine stalls of Redis longer than the timeout (a fork, CLIENT PAUSE, a partition), each
    // under an XREAD: the cut reaches one entry a page.
    const timeout = new RedisFeedError("redis://x", "timeout");
    for (let n = 500; n > 1; n = Math.floor(n / 2))
      expect(() => pages.failed(timeout, n)).toThrow(timeout);
    expect(pages.count()).toBe(1);
    // Full pages in a row (a backlog read in time) bring it back, one doubling at a time.
    for (let i = 0; i < REGROW_AFTER - 1; i++) pages.observe(page(1, 100));
    expect(pages.count()).toBe(1);
    pages.observe(page(1, 100));
    expect(pages.count()).toBe(2);
    for (let cut = 2; cut < 500; cut = Math.min(500, cut * 2))
      for (let i = 0; i < REGROW_AFTER; i++) pages.observe(page(cut, 100));
    expect(pages.count()).toBe(500);
    expectWarmStartKeepsCut(pages, timeout);
  });

  it("halves the page after a closed connection, and doubles it back after full pages", () => {
    const pages = createPageSizer(500);
    pages.observe(page(4, 100));
    // Redis closes a client past its output buffer limit: the same page would be closed again.
    const closed = new RedisFeedError("redis://x", "closed");
    expect(() => pages.failed(closed, 500)).toThrow(closed);
    expect(() => pages.failed(closed, 250)).toThrow(closed);
    expect(pages.count()).toBe(125);
    // A restart closes it too: full pages at the cut bring it back, one doubling at a time.
    for (let i = 0; i < REGROW_AFTER - 1; i++) pages.observe(page(125, 100));
    expect(pages.count()).toBe(125);
    pages.observe(page(125, 100));
    expect(pages.count()).toBe(250);
    // Pages short of the cut (a replica caught up) do not grow it.
    for (let i = 0; i < 3 * REGROW_AFTER; i++) pages.observe(page(3, 100));
    expect(pages.count()).toBe(250);
    for (let i = 0; i < REGROW_AFTER; i++) pages.observe(page(250, 100));
    expect(pages.count()).toBe(500);
    expectWarmStartKeepsCut(pages, closed);
    // A one-entry page is never cut below one.
    const one = createPageSizer(500);
    one.observe(page(4, 100));
    expect(() => one.failed(closed, 1)).toThrow(closed);
    expect(one.count()).toBe(500);
  });

  it("waits longer to double a cut back each time the doubled page fails again: a slow link is not a stall", () => {
    // A link on which a page of more than 7 entries cannot arrive within the timeout: a
    // replica catching up on 5,000 entries.
    const pages = createPageSizer(500);
    pages.observe(page(4, 100));
    const timeout = new RedisFeedError("redis://x", "timeout");
    let read = 0;
    let timeouts = 0;
    while (read < 5_000) {
      const count = pages.count();
      if (count > 7) {
        timeouts++;
        expect(() => pages.failed(timeout, count)).toThrow(timeout);
      } else {
        pages.observe(page(count, 100));
        read += count;
      }
    }
    // Six cuts (500 -> 7), then doublings undone after 8, 16, ... up to 128 full pages: 17.
    // Doubling back every REGROW_AFTER pages cost one timeout every nine pages (95, each a
    // reconnection).
    expect(timeouts).toBeLessThan(20);
    // A doubled cut that reads a full page resets the wait: stalls are outgrown as before.
    const stalls = createPageSizer(500);
    stalls.observe(page(4, 100));
    expect(() => stalls.failed(timeout, 500)).toThrow(timeout);
    for (let i = 0; i < REGROW_AFTER; i++) stalls.observe(page(250, 100));
    expect(stalls.count()).toBe(500);
    stalls.observe(page(500, 100));
    expect(() => stalls.failed(timeout, 500)).toThrow(timeout);
    for (let i = 0; i < REGROW_AFTER; i++) stalls.observe(page(250, 100));
    expect(stalls.count()).toBe(500);
  });
});
