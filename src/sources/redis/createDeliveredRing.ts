import { createHash } from "node:crypto";
import type { StreamEntry } from "./streamReplies.js";

/** The newest entries a replica handed on (or skipped), remembered by id and content digest. */
export interface DeliveredRing {
  /**
   * Remember an entry just handed on (its digest given when its fields are no longer held:
   * {@link entryDigest}); the oldest is forgotten past the ring's size.
   */
  add(entry: StreamEntry, digest?: string): void;
  /** Whether `entry` is one of the remembered ones, with the same fields. */
  has(entry: StreamEntry): boolean;
}

/** The digest the ring remembers an entry by: of all its fields. */
export function entryDigest([, fields]: StreamEntry): string {
  const hash = createHash("sha256");
  for (const field of fields) hash.update(field).update("\0");
  return hash.digest("base64");
}

/**
 * A digest of an entry's `block` field alone (`undefined` without one): the same block written
 * again by another publisher differs only in its `received_at_ms`.
 *
 * @example
 * blockDigest(["block", line, "received_at_ms", "1700000000000"]) === blockDigest(["block", line]); // true
 */
export function blockDigest(fields: readonly string[]): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2)
    if (fields[i] === "block")
      return createHash("sha256")
        .update(fields[i + 1]!)
        .digest("base64");
  return undefined;
}

/**
 * A ring of the `size` newest entries handed on: when the stream's top falls below what a
 * replica read, it tells "the newest entries were deleted" (the top is an entry it already has:
 * read on after it, nothing fed twice) from "the stream was written again from lower heights"
 * (a chain reset: warm start again). Memory: `size` ids and 32-byte digests.
 *
 * @example
 * const ring = createDeliveredRing(64);
 * ring.add(["520-0", ["block", line]]);
 * ring.has(["520-0", ["block", line]]); // true
 */
export function createDeliveredRing(size: number): DeliveredRing {
  const digests = new Map<string, string>();
  return {
    add(entry, digest = entryDigest(entry)) {
      digests.delete(entry[0]);
      digests.set(entry[0], digest);
      if (digests.size > size) digests.delete(digests.keys().next().value as string);
    },
    has(entry) {
      const known = digests.get(entry[0]);
      return known !== undefined && known === entryDigest(entry);
    },
  };
}
