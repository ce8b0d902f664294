import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * Longest stretch of a source's work (reading, decoding, and the subscriber's work on each
 * block) before it lets the event loop take a turn. A source that hands over a whole chunk of a
 * file or a page of a stream in one turn holds a server it feeds for as long: replaying a file
 * held requests up to 150 ms. (A Redis replica's warm start is handed over whole on purpose.)
 */
export const SOURCE_TURN_MS = 5;

/**
 * A pacer for a source's loop: `await pace()` before each block returns at once, or on the
 * next turn of the event loop once {@link SOURCE_TURN_MS} ms of work have passed since the last
 * turn it let through.
 *
 * @example
 * const pace = createTurnPacer();
 * for (const block of page) { await pace(); if (closed) return; subscriber.next(block); }
 */
export function createTurnPacer(ms = SOURCE_TURN_MS): () => Promise<void> {
  let start = performance.now();
  return async () => {
    if (performance.now() - start <= ms) return;
    await nextTurn();
    start = performance.now();
  };
}
