import { describe, expect, it } from "vitest";
import { createWrittenRing } from "../../src/sinks/redis/createWrittenRing.js";

/** An entry of `bytes` characters. */
const entry = (bytes: number) => ["block", "x".repeat(bytes - 5)];
const heights = (ring: ReturnType<typeof createWrittenRing>) =>
  ring.above(0n).map((e) => Number(e.height));

describe("the publisher's kept entries", () => {
  it("keeps the newest `size`, in height order, and tracks heights without keeping any at 0", () => {
    const ring = createWrittenRing(3);
    for (let h = 1; h <= 5; h++) ring.add(BigInt(h), entry(10));
    expect(heights(ring)).toEqual([3, 4, 5]);
    expect(ring.above(3n).map((e) => e.height)).toEqual([4n, 5n]);
    // A height at or below the newest is not kept again.
    ring.add(4n, entry(10));
    expect(heights(ring)).toEqual([3, 4, 5]);
    expect([ring.first, ring.newest]).toEqual([1n, 5n]);
    const none = createWrittenRing(0);
    none.add(7n, entry(10));
    expect([heights(none), none.newest]).toEqual([[], 7n]);
  });

  it("keeps at most maxBytes of them, the newest whatever its size", () => {
    // Blocks of 100,000 transactions are about 1.4 MB each: 10,000 of them were 14 GB.
    const ring = createWrittenRing(10_000, 100);
    for (let h = 1; h <= 10; h++) ring.add(BigInt(h), entry(30));
    expect(heights(ring)).toEqual([8, 9, 10]);
    ring.add(11n, entry(500));
    expect(heights(ring)).toEqual([11]);
    ring.add(12n, entry(40));
    expect(heights(ring)).toEqual([12]);
    ring.add(13n, entry(40));
    expect(heights(ring)).toEqual([12, 13]);
    // Many entries through a small ring: the queue is compacted, the order kept.
    const long = createWrittenRing(5, 1_000);
    for (let h = 1; h <= 5_000; h++) long.add(BigInt(h), entry(h % 7 === 0 ? 600 : 100));
    expect(heights(long)).toEqual([4996, 4997, 4998, 4999, 5000]);
  });
});
