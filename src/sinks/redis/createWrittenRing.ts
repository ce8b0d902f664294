/** A block's stream entry as the sink wrote it: its height and its field/value list. */
export interface WrittenEntry {
  readonly height: bigint;
  readonly fields: readonly string[];
}

/** What the sink knows Redis acknowledged, and the newest entries it keeps to write them again. */
export interface WrittenRing {
  /**
   * Record a height Redis acknowledged (written, or found written) with the entry the sink
   * made of it. It is kept only when above every height recorded before (so the ring stays in
   * height order); past the ring's size the oldest kept entry is forgotten.
   */
  add(height: bigint, fields: readonly string[]): void;
  /** The newest height recorded, `undefined` before the first. */
  readonly newest: bigint | undefined;
  /** The first height recorded, `undefined` before it. */
  readonly first: bigint | undefined;
  /** The kept entries above `height`, oldest first. */
  above(height: bigint): WrittenEntry[];
}

/**
 * A ring of the `size` newest entries the sink wrote or found written, in height order, and the
 * newest height Redis acknowledged: when Redis comes back without them (restarted from an older
 * snapshot, or without persistence), the sink tells what was lost and writes the kept ones
 * again. Memory: `size` references to the NDJSON lines the `XADD`s sent anyway (about 3 KiB per
 * block of 250 transactions); `size` 0 keeps none and still tracks the heights.
 *
 * @example
 * const written = createWrittenRing(10_000);
 * written.add(520n, encodeStreamEntry(block));
 * written.above(518n); // the entries of 519 and 520, if kept
 */
export function createWrittenRing(size: number): WrittenRing {
  const heights: bigint[] = [];
  const fields: (readonly string[])[] = [];
  // The oldest kept entry's slot once the ring is full (the slot written next).
  let start = 0;
  let newest: bigint | undefined;
  let first: bigint | undefined;
  return {
    add(height, entry) {
      first ??= height;
      if (newest !== undefined && height <= newest) return;
      newest = height;
      if (size === 0) return;
      if (heights.length < size) {
        heights.push(height);
        fields.push(entry);
        return;
      }
      heights[start] = height;
      fields[start] = entry;
      start = (start + 1) % size;
    },
    get newest() {
      return newest;
    },
    get first() {
      return first;
    },
    above(height) {
      const out: WrittenEntry[] = [];
      for (let i = 0; i < heights.length; i++) {
        const at = (start + i) % heights.length;
        if (heights[at]! > height) out.push({ height: heights[at]!, fields: fields[at]! });
      }
      return out;
    },
  };
}
