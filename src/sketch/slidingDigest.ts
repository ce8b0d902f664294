import { describeValue } from "../core/describeValue.js";
import {
  type Centroids,
  checkCentroids,
  copyCentroids,
  immutableCentroids,
  quantileOfCentroids,
} from "./centroids.js";
import { maxCentroids } from "./compressCentroids.js";
import { emptyList, mergeCentroidLists } from "./mergeCentroidLists.js";
import { MergingDigest } from "./mergingDigest.js";
import { nextHeight } from "./nextHeight.js";
import {
  checkFinite,
  checkOptionKeys,
  checkValues,
  MAX_TOTAL_WEIGHT,
  MAX_WEIGHT,
  SketchError,
} from "./sketchError.js";
import type { SlidingDigest, SlidingDigestOptions } from "./slidingDigestTypes.js";
import { createTDigest, type TDigest } from "./tdigest.js";

export type { SlidingDigest, SlidingDigestOptions } from "./slidingDigestTypes.js";

interface Chunk {
  /** The chunk's centroids (a suffix aggregate once moved to the front stack). */
  centroids: Centroids;
  /** Blocks in this chunk alone. */
  blocks: number;
  /** Deferred weight: of this chunk alone in the back stack, of the suffix in the front stack. */
  deferred: number;
  /** The chunk's index: its blocks' height divided by the chunk size. */
  index: bigint;
  /** Height of the chunk's newest block. */
  last: bigint;
}

/** See `flip`: how many of its parts a window of single blocks may span before it stops aligning them. */
const SPARSE_PARTS = 16n;

function wholeNumber(field: string, value: unknown, min: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > 2 ** 40)
    throw new SketchError(
      field,
      `must be a whole number from ${min} to ${2 ** 40}, got ${describeValue(value)}`,
    );
  return value;
}

/**
 * Create a sliding-window t-digest over blocks. It keeps a ring of per-chunk summaries as
 * two stacks (the front stack holds suffix merges of the oldest chunks, the back stack the
 * newest chunks with a running merge), so each block costs O(1) amortized digest merges and a
 * query merges three sorted centroid lists, never the whole ring. The merged list is cached
 * until the window moves.
 *
 * @throws {SketchError} when an option is out of range.
 * @example
 * const window = createSlidingDigest({ windowBlocks: 120 });
 * window.addBlock([150]);
 * window.addBlock([], undefined, 1); // a value known later: the current minimum price
 * window.quantile(0.5, 100); // 150
 */
export function createSlidingDigest(given: SlidingDigestOptions): SlidingDigest {
  const options = checkOptionKeys(given, ["windowBlocks", "chunks", "exactUpTo", "compression"]);
  const windowBlocks = wholeNumber("windowBlocks", options.windowBlocks, 1);
  const chunks = wholeNumber("chunks", options.chunks ?? 32, 1);
  const exactUpTo = wholeNumber("exactUpTo", options.exactUpTo ?? 1024, 0);
  const compression = options.compression ?? 500;
  const chunkBlocks = windowBlocks <= exactUpTo ? 1 : Math.ceil(windowBlocks / chunks);
  // Small live buffers: the partial chunk is flushed at least once per chunk anyway.
  const newDigest = () => createTDigest({ compression, bufferSize: Math.ceil(compression) });
  const partial: TDigest = newDigest();
  const backAgg: TDigest = newDigest();
  const perChunk = maxCentroids(compression);
  const maxChunks = Math.ceil(windowBlocks / chunkBlocks);
  const maxCentroidCount = (maxChunks + 2) * perChunk;
  const chunkSize = BigInt(chunkBlocks);
  const windowHeights = BigInt(windowBlocks);
  // Chunks per rebuild of the front stack (see flip): when the window drops its oldest chunk,
  // the newest block is at least this many chunks above it, so every chunk the rebuild takes
  // has arrived.
  const rebuildChunks = BigInt(Math.floor(windowBlocks / chunkBlocks));

  let front: (Chunk | undefined)[] = [];
  let frontStart = 0;
  let frontBlocks = 0;
  let back: Chunk[] = [];
  let backBlocks = 0;
  let backDeferred = 0;
  let partialBlocks = 0;
  let partialDeferred = 0;
  let partialIndex = 0n;
  /** Height of the newest block; `undefined` before the first (and after a reset). */
  let newest: bigint | undefined;
  // Query cache: the three lists merged, plus the deferred point mass.
  const cache = emptyList();
  const scratch = emptyList();
  const point = emptyList(1);
  point.exact[0] = 1;
  point.length = 1;
  let cacheValid = false;
  let cacheDeferredValue = Number.NaN;

  const covered = () => frontBlocks + backBlocks + partialBlocks;
  /** The front stack's oldest entry: the merge of every chunk left in it. */
  const frontTop = () => (frontStart < front.length ? front[frontStart] : undefined);

  /** Close the partial chunk (or push a ready one-block chunk at `height`) onto the back stack. */
  function seal(ready?: Centroids, readyDeferred = 0, height = 0n): void {
    const chunk: Chunk = ready
      ? { centroids: ready, blocks: 1, deferred: readyDeferred, index: height, last: height }
      : {
          centroids: copyCentroids(partial.centroids()),
          blocks: partialBlocks,
          deferred: partialDeferred,
          index: partialIndex,
          last: newest!,
        };
    back.push(chunk);
    addTo(backAgg, chunk.centroids);
    backBlocks += chunk.blocks;
    backDeferred += chunk.deferred;
    if (!ready) {
      partial.reset();
      partialBlocks = 0;
      partialDeferred = 0;
    }
  }

  /**
   * Move the oldest chunks of the back stack to the front, as suffix merges (oldest entry =
   * whole front): those below the first multiple of `rebuildChunks` above the oldest's index.
   * Where the stacks part is then fixed by the heights, not by when the window started, and so
   * is every merge: a suffix is merged from its newest chunk down, the back stack's running
   * merge from its oldest up. It is called when the oldest chunk is dropped, and the newest
   * block is then `rebuildChunks` chunks above it or more (the window spans `windowBlocks`
   * heights after it): no chunk below the part can arrive later.
   */
  function flip(): void {
    const lo = back[0]!.index;
    const end = (lo / rebuildChunks + 1n) * rebuildChunks;
    let k = 1;
    while (k < back.length && back[k]!.index < end) k++;
    // A window of single blocks drops them by count, so on a stream with few blocks per height
    // (a sampled recording, a peer's made-up heights) a part holds few of them, and the running
    // merge of the many left is rebuilt at every flip: O(window) merges a block. A flip happens
    // at most once per part, and the stack spans fewer than SPARSE_PARTS parts (it holds the
    // window): at most SPARSE_PARTS + 2 merges a block. A stack that spans more takes all of
    // it at once, as before heights, and windows started apart may then differ: only while the
    // window spans SPARSE_PARTS times its length in heights (an outage that long, or fewer
    // than one block in SPARSE_PARTS heights).
    if (chunkBlocks === 1 && newest! - lo >= SPARSE_PARTS * rebuildChunks) k = back.length;
    const next: Chunk[] = new Array(k);
    backAgg.reset();
    let deferred = 0;
    let blocks = 0;
    for (let i = k - 1; i >= 0; i--) {
      const chunk = back[i]!;
      backAgg.merge(chunk.centroids);
      deferred += chunk.deferred;
      blocks += chunk.blocks;
      next[i] = { ...chunk, centroids: copyCentroids(backAgg.centroids()), deferred };
    }
    front = next;
    frontStart = 0;
    frontBlocks = blocks;
    back = back.slice(k);
    backAgg.reset();
    backBlocks = 0;
    backDeferred = 0;
    for (const chunk of back) {
      addTo(backAgg, chunk.centroids);
      backBlocks += chunk.blocks;
      backDeferred += chunk.deferred;
    }
  }

  /** Whether the window still covers `windowBlocks` without its oldest chunk. */
  function full(oldest: Chunk): boolean {
    return chunkBlocks === 1
      ? covered() - oldest.blocks >= windowBlocks
      : newest! - oldest.last >= windowHeights;
  }

  function evict(): void {
    for (;;) {
      const oldest = frontTop() ?? back[0];
      if (!oldest || !full(oldest)) return;
      if (frontStart === front.length) flip();
      front[frontStart] = undefined;
      frontStart++;
      frontBlocks -= oldest.blocks;
    }
  }

  /** Start the chunk of the block at `height` (closing the partial one if it is another's). */
  function enter(height: bigint): void {
    const index = height / chunkSize;
    if (partialBlocks > 0 && index !== partialIndex) seal();
    partialIndex = index;
    newest = height;
  }

  /** The block at `height` is in the partial chunk: close it if that was its last height. */
  function leave(height: bigint): void {
    if (partialBlocks === chunkBlocks || (height + 1n) % chunkSize === 0n) seal();
  }

  /** `list` compressed with this window's compression, as an immutable copy. */
  function compressed(list: Centroids): Centroids {
    const digest = newDigest();
    addTo(digest, list);
    return copyCentroids(digest.centroids());
  }

  function merged(deferredValue: number | undefined): Centroids {
    const top = frontTop();
    const deferred = (top ? top.deferred : 0) + backDeferred + partialDeferred;
    if (deferred > 0) {
      if (deferredValue === undefined)
        throw new SketchError("deferredValue", "is required: the window holds deferred weight");
      checkFinite("deferredValue", deferredValue);
    }
    const key = deferred > 0 ? deferredValue! : Number.NaN;
    if (cacheValid && Object.is(key, cacheDeferredValue)) return cache;
    const lists: Centroids[] = [];
    if (top && top.centroids.length > 0) lists.push(top.centroids);
    if (backAgg.count > 0) lists.push(backAgg.centroids());
    if (partial.count > 0) lists.push(partial.centroids());
    if (deferred > 0) {
      point.means[0] = key;
      point.weights[0] = deferred;
      point.count = deferred;
      point.min = point.max = key;
      lists.push(point);
    }
    mergeCentroidLists(lists, cache, scratch);
    cacheValid = true;
    cacheDeferredValue = key;
    return cache;
  }

  /** The weight the window's digests hold (its deferred weight is no digest's). */
  function digestWeight(): number {
    const top = frontTop();
    return (top ? top.centroids.count : 0) + backAgg.count + partial.count;
  }

  // A weight like any other (at most 2^53): summed over a window's blocks, it stays finite.
  function checkDeferred(deferred: unknown): number {
    if (typeof deferred !== "number" || !(deferred >= 0) || deferred > MAX_WEIGHT)
      throw new SketchError(
        "deferred",
        `must be a number from 0 to 2^53, got ${describeValue(deferred)}`,
      );
    return deferred;
  }

  return {
    windowBlocks,
    chunkBlocks,
    maxCentroidCount,
    get blocks() {
      return covered();
    },
    get count() {
      const top = frontTop();
      const fromTop = top ? top.centroids.count + top.deferred : 0;
      return fromTop + backAgg.count + backDeferred + partial.count + partialDeferred;
    },
    addBlock(values, weights, deferred = 0, height) {
      checkDeferred(deferred);
      checkValues(values, weights);
      const at = nextHeight(height, newest);
      enter(at);
      partial.addMany(values, weights).centroids(); // compressed now: see addTo
      partialDeferred += deferred;
      partialBlocks++;
      leave(at);
      evict();
      cacheValid = false;
    },
    addBlockDigest(block, deferred = 0, height) {
      checkDeferred(deferred);
      let list: Centroids;
      if (block instanceof MergingDigest) list = block.centroids();
      else if (isTDigest(block)) {
        // Another implementation of the interface: what it returns is checked like any list.
        const given: unknown = block.centroids();
        checkCentroids("block.centroids()", given);
        list = given;
      } else {
        checkCentroids("block", block);
        list = block;
      }
      // No merge this block leads to may pass a digest's bound: checked here, before any change.
      const held = digestWeight();
      if (held + list.count > MAX_TOTAL_WEIGHT)
        throw new SketchError(
          "block",
          `would bring the window's total weight to ${held + list.count}, past 2^128 (it holds ${held})`,
        );
      const at = nextHeight(height, newest);
      if (chunkBlocks === 1) {
        newest = at;
        // A list longer than this window's digests hold (another compression, a raw list) is
        // compressed as `addBlock` would: the summary of a block stays within the memory bound.
        seal(list.length > perChunk ? compressed(list) : immutableCentroids(list), deferred, at);
      } else {
        enter(at);
        addTo(partial, list);
        partialDeferred += deferred;
        partialBlocks++;
        leave(at);
      }
      evict();
      cacheValid = false;
    },
    quantile(q, deferredValue) {
      if (typeof q !== "number" || !(q >= 0 && q <= 1))
        throw new SketchError("q", `must be a number from 0 to 1, got ${describeValue(q)}`);
      return quantileOfCentroids(merged(deferredValue), q);
    },
    centroidCount() {
      let n = backAgg.centroidCount() + partial.centroidCount();
      for (let i = frontStart; i < front.length; i++) n += front[i]!.centroids.length;
      for (const chunk of back) n += chunk.centroids.length;
      return n;
    },
    reset() {
      front = [];
      frontStart = 0;
      frontBlocks = 0;
      back = [];
      backBlocks = 0;
      backDeferred = 0;
      backAgg.reset();
      partial.reset();
      partialBlocks = 0;
      partialDeferred = 0;
      partialIndex = 0n;
      newest = undefined;
      cacheValid = false;
    },
  };
}

/**
 * Merge `list` into `digest` and compress it at once. A digest compresses what it buffered
 * whenever it is read, and the result depends on when that was: compressing after every block
 * leaves a window's digests the same whenever (and whether) it was queried, so two windows fed
 * the same blocks answer alike. The engine queries after every block anyway.
 */
function addTo(digest: TDigest, list: Centroids): void {
  if (list.length > 0) digest.merge(list).centroids();
}

function isTDigest(value: unknown): value is TDigest {
  return typeof (value as TDigest | undefined)?.centroids === "function";
}
