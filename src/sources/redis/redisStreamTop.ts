import type { BlockSample } from "../../core/blockSample.js";
import type { ValidationIssue } from "../../core/errors.js";
import { validateWithArgument } from "../../core/validate.js";
import { checkStreamKey } from "./checkStreamKey.js";
import { redisConnectionShape } from "./connectionOptions.js";
import { connectRedis, type RedisConnection } from "./connectRedis.js";
import { parseRedisUrl, type RedisTarget } from "./parseRedisUrl.js";
import { decodeStreamEntry } from "./streamEntry.js";
import { type StreamEntry, streamEntries } from "./streamReplies.js";

/** The options of {@link redisStreamTop}: the stream key and the wait, as every Redis client here. */
const TOP_SHAPE = {
  stream: redisConnectionShape.stream,
  timeoutMs: redisConnectionShape.timeoutMs,
};

/** The newest entry of a stream, as {@link redisStreamTop} found it. */
export type RedisStreamTop =
  /**
   * A valid block entry: the block at `height` (a simulated chain resumed after it continues
   * its epoch, versions, chain id and minimum price).
   */
  | { id: string; ok: true; height: bigint; block: BlockSample }
  /** An entry that is not a valid block (XADDs at or below its id are refused all the same). */
  | { id: string; ok: false; issues: readonly ValidationIssue[] };

/**
 * Read the newest entry of a stream once (one connection, no retry): `undefined` when the key
 * is absent or the stream empty. A publisher resumes after its height.
 *
 * @throws {InvalidConfigError} when the URL or the options are invalid (every issue, with its path).
 * @throws {RedisFeedError} when Redis cannot be reached (`connect`, `timeout`, `closed`), or the
 * key holds something other than a stream (`wrong_type`).
 * @example
 * const top = await redisStreamTop("redis://127.0.0.1:6379");
 * const startHeight = top?.ok ? top.height + 1n : undefined;
 */
export async function redisStreamTop(
  url: string,
  options: { stream?: string | undefined; timeoutMs?: number | undefined } = {},
): Promise<RedisStreamTop | undefined> {
  const { argument: target, value } = validateWithArgument(
    () => parseRedisUrl(url),
    TOP_SHAPE,
    options,
    () => [],
  );
  return fetchStreamTop(target, value.stream, value.timeoutMs);
}

/**
 * {@link redisStreamTop} on a validated target: one connection, no retry. When `signal` aborts,
 * the connection is closed at once (a call waiting on a Redis that answers nothing fails with
 * `closed`), instead of after `timeoutMs`: a publisher stopped while it waits for Redis at start
 * stops then. `name` is the connection's (`CLIENT LIST`): the command that asks.
 *
 * @throws {RedisFeedError} as {@link redisStreamTop}.
 * @example
 * const top = await fetchStreamTop(parseRedisUrl(url), "gasdigest:blocks", 5000, signal, "gasdigest-publisher");
 */
export async function fetchStreamTop(
  target: RedisTarget,
  stream: string,
  timeoutMs: number,
  signal?: AbortSignal,
  name = "gasdigest",
): Promise<RedisStreamTop | undefined> {
  const conn = await connectRedis(target, { timeoutMs, name, signal });
  const close = () => conn.close();
  signal?.addEventListener("abort", close, { once: true });
  try {
    if (signal?.aborted) close();
    await checkStreamKey(conn, target.display, stream);
    return await readStreamTop(conn, stream);
  } finally {
    signal?.removeEventListener("abort", close);
    conn.close();
  }
}

/**
 * The last entry {@link readStreamTop} decoded, to decode it once however often it is read: its
 * id and its fields' lengths, not the fields (an entry of many megabytes is not held for it). A
 * stream never takes an id twice (`XADD` needs an id above every one it had), so that is the
 * same entry short of `XSETID` rewinding the stream and an entry of the same id and lengths.
 */
export interface StreamTopMemo {
  last?: { id: string; lengths: readonly number[]; top: RedisStreamTop };
}

/**
 * The newest entry of `stream` on an open connection (one `XREVRANGE ... COUNT 1`), decoded:
 * `undefined` when the key is absent or the stream empty. With `memo`, an entry read again with
 * the same id and fields is not decoded again (a publisher refused under a foreign entry of many
 * megabytes reads it on every retry: its transfer is the cost, not a parse each time).
 *
 * @example
 * const top = await readStreamTop(conn, "gasdigest:blocks"); // { id: "520-0", ok: true, height: 520n }
 */
export async function readStreamTop(
  conn: RedisConnection,
  stream: string,
  memo?: StreamTopMemo,
): Promise<RedisStreamTop | undefined> {
  const [entry] = await readTopEntries(conn, stream);
  if (!entry) return undefined;
  const [id, fields] = entry;
  const last = memo?.last;
  if (
    last !== undefined &&
    last.id === id &&
    last.lengths.length === fields.length &&
    last.lengths.every((n, i) => n === fields[i]!.length)
  )
    return last.top;
  const decoded = decodeStreamEntry(id, fields);
  const top: RedisStreamTop = decoded.ok
    ? { id, ok: true, height: decoded.block.height, block: decoded.block }
    : { id, ok: false, issues: decoded.issues };
  if (memo) memo.last = { id, lengths: fields.map((f) => f.length), top };
  return top;
}

/**
 * The id of the newest entry of `stream`, not decoded (what a replica's idle check needs: an
 * entry of many megabytes costs its transfer, not a parse every few seconds); `undefined` when
 * the stream is empty or absent.
 *
 * @example
 * await readStreamTopId(conn, "gasdigest:blocks"); // "520-0"
 */
export async function readStreamTopId(
  conn: RedisConnection,
  stream: string,
): Promise<string | undefined> {
  return (await readTopEntries(conn, stream))[0]?.[0];
}

async function readTopEntries(conn: RedisConnection, stream: string): Promise<StreamEntry[]> {
  const reply: unknown = await conn.call((c) => c.xrevrange(stream, "+", "-", "COUNT", 1));
  return streamEntries(conn.url, "XREVRANGE", reply);
}
