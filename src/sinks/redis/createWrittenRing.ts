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

/** The bytes an entry is held by: its fields' characters (one byte each: NDJSON is ASCII). */
const entryBytes = (fields: readonly string[]) => {
  let n = 0;
  for (const f of fields) n += f.length;
  return n;
};

/**
 * A ring of the `size` newest entries the sink wrote or found written, in height order, and the
 * newest height Redis acknowledged: when Redis comes back without them (restarted from an older
 * snapshot, or without persistence), the sink tells what was lost and writes the kept ones
 * again. Memory: `size` references to the NDJSON lines the `XADD`s sent anyway (about 3 KiB per
 * block of 250 transactions), and at most `maxBytes` of them: past it the oldest are forgotten
 * (the newest is kept whatever its size). `size` 0 keeps none and still tracks the heights.
 *
 * @example
 * const written = createWrittenRing(10_000, 256 * 2 ** 20);
 * written.add(520n, encodeStreamEntry(block));
 * written.above(518n); // the entries of 519 and 520, if kept
 */
export function createWrittenRing(size: number, maxBytes = Number.POSITIVE_INFINITY): WrittenRing {
  // Kept entries, oldest first from `head` (a queue compacted now and then).
  let kept: (WrittenEntry | undefined)[] = [];
  let head = 0;
  let bytes = 0;
  let newest: bigint | undefined;
  let first: bigint | undefined;
  const dropOldest = () => {
    bytes -= entryBytes(kept[head]!.fields);
    kept[head++] = undefined;
    if (head > 1024 && head * 2 > kept.length) {
      kept = kept.slice(head);
      head = 0;
    }
  };
  return {
    add(height, fields) {
      first ??= height;
      if (newest !== undefined && height <= newest) return;
      newest = height;
      if (size === 0) return;
      kept.push({ height, fields });
      bytes += entryBytes(fields);
      while (kept.length - head > size || (bytes > maxBytes && kept.length - head > 1))
        dropOldest();
    },
    get newest() {
      return newest;
    },
    get first() {
      return first;
    },
    above(height) {
      const out: WrittenEntry[] = [];
      for (let i = head; i < kept.length; i++) {
        const entry = kept[i]!;
        if (entry.height > height) out.push(entry);
      }
      return out;
    },
  };
}
