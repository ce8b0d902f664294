import type { Centroids } from "./centroids.js";
import type { TDigest } from "./tdigest.js";

/** Options of `createSlidingDigest`. */
export interface SlidingDigestOptions {
  /** Number of newest blocks the window covers (a whole number >= 1). */
  windowBlocks: number;
  /**
   * Most chunks a long window is cut into: a window longer than `exactUpTo` blocks uses chunks
   * of `ceil(windowBlocks / chunks)` blocks, so memory depends on `chunks` and the compression
   * only. @default 32
   */
  chunks?: number | undefined;
  /** Windows of at most this many blocks keep one summary per block and cover exactly `windowBlocks` blocks. @default 1024 */
  exactUpTo?: number | undefined;
  /** Compression of every digest in the window. @default 500 */
  compression?: number | undefined;
}

/**
 * Quantiles over the newest blocks of a stream, in bounded memory. The window covers the newest
 * `N` blocks with `windowBlocks <= N < windowBlocks + chunkBlocks` once that many blocks have
 * arrived (`N = windowBlocks` exactly when `chunkBlocks` is 1).
 *
 * Each block has a height: the one given, or the previous block's plus one (0 for the first).
 * Chunks are cut at heights that are multiples of `chunkBlocks`, and the window's summaries are
 * rebuilt at chunk indices fixed by the heights too, so what a window answers depends only on
 * the blocks it holds: two windows fed the same blocks (with their heights) from different
 * starts answer alike once the later one has dropped the first chunk it read. A window of
 * chunks (`chunkBlocks > 1`) counts heights: it covers the newest `N` heights, and blocks
 * missing from them are not made up for by older ones.
 */
export interface SlidingDigest {
  /** Blocks the window covers at least, once that many have arrived. */
  readonly windowBlocks: number;
  /** Blocks per chunk: 1 when `windowBlocks <= exactUpTo`, else `ceil(windowBlocks / chunks)`. */
  readonly chunkBlocks: number;
  /** Blocks currently covered. */
  readonly blocks: number;
  /** Total weight in the window, deferred weight included. */
  readonly count: number;
  /**
   * Add one block: its values (and weights), plus `deferred` weight (0 to 2^53, as a value's
   * weight) for a value only known at query time (see `quantile`), at `height` (a whole number
   * above the previous block's; by default the previous block's plus one). Call once per block;
   * an empty block still moves the window. Everything is checked first; on error nothing changes.
   */
  addBlock(
    values: ArrayLike<number>,
    weights?: ArrayLike<number>,
    deferred?: number,
    height?: bigint | number,
  ): void;
  /**
   * Add one block given as a digest (or centroid list) of its values: several windows fed the
   * same block can share one sort. Same rules as {@link SlidingDigest.addBlock}.
   */
  addBlockDigest(block: TDigest | Centroids, deferred?: number, height?: bigint | number): void;
  /**
   * The q-quantile of the window (same convention as the t-digest: with every centroid exact it
   * is the element at index `floor(q * count)` of the sorted window). The window's deferred
   * weight counts as a point mass at `deferredValue`, required when there is any. `NaN` when
   * the window is empty.
   */
  quantile(q: number, deferredValue?: number): number;
  /** Centroids held in the chunk summaries and the two live digests (the memory bound's unit). */
  centroidCount(): number;
  /** The most centroids {@link centroidCount} can reach with these options. */
  readonly maxCentroidCount: number;
  /** Forget every block (the options stay). */
  reset(): void;
}
