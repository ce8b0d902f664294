import { describe, expect, it } from "vitest";
import {
  createPageSizer,
  FIRST_PAGE,
  PAGE_BYTES,
} from "../../src/sources/redis/createPageSizer.js";
import { RedisFeedError } from "../../src/sources/redis/errors.js";
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
});
