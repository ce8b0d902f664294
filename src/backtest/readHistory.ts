import { type ReadNdjsonOptions, readNdjson } from "../sources/readNdjson.js";

/** Options of {@link readHistory}: those of `readNdjson`. */
export type ReadHistoryOptions = ReadNdjsonOptions;

/**
 * Read an NDJSON block file for a backtest: `readNdjson` itself (one reader for every command),
 * exported here under the backtest's name. Lines in the plain shape that `serializeBlockSample`
 * (and so `gasdigest simulate`) writes are scanned straight from the bytes; any other line goes
 * through the general parser. Streams the file in 1 MiB chunks.
 *
 * @throws the file system error when the file cannot be opened or read.
 * @example
 * for await (const entry of readHistory("history.ndjson")) if (entry.ok) backtest.push(entry.block);
 */
export const readHistory: (
  path: string,
  options?: ReadHistoryOptions,
) => AsyncGenerator<import("../sources/readNdjson.js").NdjsonLine> = readNdjson;
