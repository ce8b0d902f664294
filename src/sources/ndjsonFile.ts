import { Observable } from "rxjs";
import type { BlockSample } from "../core/blockSample.js";
import { InvalidBlockSampleError } from "../core/errors.js";
import { readNdjson } from "./readNdjson.js";

/** A rejected line of an NDJSON file. */
export class InvalidLineError extends InvalidBlockSampleError {
  override name = "InvalidLineError";
  readonly line: number;
  constructor(line: number, issues: InvalidBlockSampleError["issues"]) {
    super(issues);
    this.line = line;
  }
}

/** Options of {@link ndjsonFile}. */
export interface NdjsonFileOptions {
  /** Called for every rejected line; reading continues. @default ignore */
  onInvalidLine?: (error: InvalidLineError) => void;
  /** Longest accepted line in bytes. @default 64 MiB */
  maxLineBytes?: number;
}

/**
 * A source that replays an NDJSON block file as fast as the subscriber takes it, streaming the
 * file (never loading it whole), and completes at the end of the file. Bad lines are reported
 * through `onInvalidLine` and skipped; a file that cannot be read errors the Observable.
 *
 * @example
 * engine.connect(ndjsonFile("history.ndjson", { onInvalidLine: (e) => console.error(e.message) }));
 */
export function ndjsonFile(path: string, options: NdjsonFileOptions = {}): Observable<BlockSample> {
  return new Observable<BlockSample>((subscriber) => {
    const abort = new AbortController();
    (async () => {
      for await (const entry of readNdjson(path, {
        signal: abort.signal,
        maxLineBytes: options.maxLineBytes,
      })) {
        if (subscriber.closed) return;
        if (entry.ok) subscriber.next(entry.block);
        else options.onInvalidLine?.(new InvalidLineError(entry.line, entry.issues));
      }
      subscriber.complete();
    })().catch((error) => {
      if (!abort.signal.aborted) subscriber.error(error);
    });
    return () => abort.abort();
  });
}
