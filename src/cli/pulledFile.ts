import type { Observable } from "rxjs";
import type { BlockSample } from "../core/blockSample.js";
import { createTurnPacer } from "../sources/createTurnPacer.js";
import { loopObservable } from "../sources/loopObservable.js";
import { InvalidLineError } from "../sources/ndjsonFile.js";
import { readNdjson } from "../sources/readNdjson.js";

/** How {@link pulledFile} reads its file. */
export interface PulledFileOptions {
  /** Blocks below this height are left out (a publisher resumed after the stream's newest). */
  fromHeight?: bigint | undefined;
  /** Told each line that is not a valid block; the file is read on. */
  onInvalidLine: (error: InvalidLineError) => void;
  /**
   * Resolves once the reader has room for one more block: the next line is read only then. It
   * is given the subscription's signal, aborted when the reader unsubscribes.
   */
  room: (signal: AbortSignal) => Promise<void>;
}

/**
 * An NDJSON block file read only as fast as its reader takes the blocks: `room()` is awaited
 * before each one. `ndjsonFile` without `speed` reads as fast as the disk goes, and the Redis
 * sink, which holds at most `maxPending` blocks for a Redis that does not keep up, dropped the
 * oldest: `publish` of a 1,000,000-block file wrote 377,100 of them and exited 0. A file waits;
 * it need not lose a block.
 *
 * @example
 * pulledFile("history.ndjson", { onInvalidLine: log, room: async () => {} }).subscribe(...);
 */
export function pulledFile(path: string, options: PulledFileOptions): Observable<BlockSample> {
  return loopObservable<BlockSample>(async (subscriber, signal) => {
    const pace = createTurnPacer();
    for await (const entry of readNdjson(path, { signal })) {
      if (!entry.ok) {
        options.onInvalidLine(new InvalidLineError(entry.line, entry.issues));
        continue;
      }
      if (options.fromHeight !== undefined && entry.block.height < options.fromHeight) continue;
      await pace();
      await options.room(signal);
      if (subscriber.closed) return;
      subscriber.next(entry.block);
    }
  });
}
