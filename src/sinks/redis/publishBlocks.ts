import { setTimeout as sleep } from "node:timers/promises";
import type { BlockSample } from "../../core/blockSample.js";
import { describeValue } from "../../core/describeValue.js";
import { checkStreamKey } from "../../sources/redis/checkStreamKey.js";
import { connectRedis, type RedisConnection } from "../../sources/redis/connectRedis.js";
import { createOutageTracker } from "../../sources/redis/createOutageTracker.js";
import { commandFailure, RedisFeedError } from "../../sources/redis/errors.js";
import { readStreamTop, type StreamTopMemo } from "../../sources/redis/redisStreamTop.js";
import {
  blockField,
  decodeStreamEntry,
  encodeStreamEntry,
  entryId,
} from "../../sources/redis/streamEntry.js";
import { streamEntries } from "../../sources/redis/streamReplies.js";
import type { PendingQueue } from "./createPendingQueue.js";
import { createWrittenRing } from "./createWrittenRing.js";
import type { RedisPublishResult, ResolvedRedisStreamSinkOptions } from "./options.js";
import { type LossReport, restoreLostEntries } from "./restoreLostEntries.js";
import { isRefused, refusesNoMakeStream, writeEntries } from "./writeEntries.js";

/**
 * The write loop of the Redis sink: take up to `batchSize` waiting blocks, send their `XADD`s
 * (`MAXLEN ~ retain`, id `<height>-0`) in one pipeline, report each outcome in order. A failure
 * (connection, timeout, or an error answer other than the refused id) puts the unwritten blocks
 * back, closes the connection and retries after a backoff. On each new connection after the
 * first write, entries Redis lost are reported and the kept ones written again first
 * (`restoreLostEntries`). Returns when the queue has ended and is empty, or when `signal` aborts.
 */
export async function publishBlocks(
  options: ResolvedRedisStreamSinkOptions,
  queue: PendingQueue,
  report: (result: RedisPublishResult) => void,
  signal: AbortSignal,
): Promise<void> {
  const { onEvent, stream } = options;
  const url = options.target.display;
  const outage = createOutageTracker({ ...options, url, onEvent });
  const retain = String(options.retain);
  // Whether `stream_ahead` was reported since the last block published.
  let warnedAhead = false;
  let conn: RedisConnection | undefined;
  const closeOnAbort = () => conn?.close();
  signal.addEventListener("abort", closeOnAbort, { once: true });
  // Whether `stream_differs` was reported since a height was last found written alike.
  let warnedDiffers = false;
  // The newest height Redis acknowledged, and the newest entries, to write again if it loses them.
  const written = createWrittenRing(
    Math.min(options.keepBlocks, options.retain),
    options.keepBytes,
  );
  const lost: LossReport = { to: undefined };
  // The stream's top as last decoded: a foreign entry read on every retry is decoded once.
  const topMemo: StreamTopMemo = {};
  // Whether Redis takes XADD ... NOMKSTREAM (6.2 and later); false once it answered a syntax error.
  let noMakeStream = true;
  // Whether this connection wrote to the stream: from then on the stream must be there.
  let wroteHere = false;
  // Ids whose entries one pipeline reads back, halved when the connection closed under one:
  // Redis closes a client whose answers pass its `client-output-buffer-limit`, and 100 entries
  // of 3.5 KB against `normal 64kb` were closed on every retry (the blocks behind them waited
  // for ever, new heights included).
  let heldChunk = options.batchSize;
  /** The field/value list of each of `ids` the stream holds (one pipelined XRANGE each). */
  async function held(
    c: RedisConnection,
    ids: readonly string[],
  ): Promise<Map<string, readonly string[]>> {
    const out = new Map<string, readonly string[]>();
    for (let from = 0; from < ids.length; ) {
      const chunk = ids.slice(from, from + heldChunk);
      const found = await c.call((r) => {
        const pipeline = r.pipeline();
        for (const id of chunk) pipeline.xrange(stream, id, id);
        return pipeline.exec();
      });
      for (let i = 0; i < chunk.length; i++) {
        const [error, entries] = found?.[i] ?? [new Error("no answer in the pipeline")];
        // An error answer here (the connection dropped under the pipeline, the key replaced by
        // another type) is a Redis fault like any other: blocks put back, retried after a backoff.
        if (error && c.client.status !== "ready") {
          if (chunk.length > 1) heldChunk = Math.max(1, Math.floor(chunk.length / 2));
          throw new RedisFeedError(url, "closed", { details: error.message, cause: error });
        }
        if (error) throw commandFailure(url, error);
        const [entry] = streamEntries(url, "XRANGE", entries);
        if (entry) out.set(chunk[i]!, entry[1]);
      }
      from += chunk.length;
    }
    return out;
  }

  try {
    while (!signal.aborted) {
      if (queue.length === 0) {
        if (queue.ended) return;
        await queue.wait();
        continue;
      }
      let batch: BlockSample[] = [];
      try {
        if (!conn) {
          conn = await connectRedis(options.target, {
            timeoutMs: options.timeoutMs,
            name: "gasdigest-publisher",
            signal,
          });
          if (signal.aborted) return;
          await checkStreamKey(conn, url, stream);
          // The outage ends when blocks are written (below), not when a connection is up: a
          // write refused every time must count as an outage, not as endless reconnections.
          onEvent({ type: "connected", url, stream });
          wroteHere = await restoreLostEntries(conn, options, written, lost);
        }
        batch = queue.take(options.batchSize);
        // Height 0 is never written (Redis refuses the id 0-0): skipped where it comes. One
        // after others (a chain started again from genesis) ends the batch, and waits first in
        // the next, so the outcomes stay in the blocks' order.
        while (batch.length > 0 && batch[0]!.height === 0n) {
          report({ height: 0n, id: "0-0", outcome: "skipped" });
          batch.shift();
        }
        const zero = batch.findIndex((b) => b.height === 0n);
        if (zero > 0) {
          queue.putBack(batch.slice(zero));
          batch = batch.slice(0, zero);
        }
        if (batch.length === 0) continue;
        const entries = batch.map((b) => ({ height: b.height, fields: encodeStreamEntry(b) }));
        // Once this connection has written, the stream must be there: a stream deleted since
        // (DEL, FLUSHALL) is lost like one Redis restarted without, and repaired the same way,
        // by the next connection's check (which may leave it empty: then XADD makes it again).
        const mustExist = noMakeStream && wroteHere;
        const replies = await writeEntries(conn, stream, retain, entries, mustExist);
        // Redis before 6.2: the batch is written again without the check.
        if (mustExist && refusesNoMakeStream(replies)) {
          noMakeStream = false;
          queue.putBack(batch);
          batch = [];
          continue;
        }
        const refusedIds = batch.flatMap((b, i) =>
          isRefused(replies?.[i]?.[0]) ? [entryId(b.height)] : [],
        );
        // A refused XADD means "already published" only when the stream holds that very id
        // (another publisher wrote it first). An entry written by something else on top
        // (`XADD key * ...`, a time in ms as its id) makes Redis refuse every block; a stream
        // that went past a height without it (a chain reset, an entry written ahead) refuses
        // that height for good.
        const top = refusedIds.length > 0 ? await readStreamTop(conn, stream, topMemo) : undefined;
        if (top && !top.ok)
          throw new RedisFeedError(url, "command", {
            message: `the newest entry ${top.id} of stream ${stream} is not a gasdigest block, and Redis refuses every XADD at or below its id`,
            details: `remove it (XDEL ${stream} ${top.id}) and set the stream's last id back to its newest gasdigest entry (XSETID ${stream} <that id>); the blocks wait in memory meanwhile`,
          });
        const inStream = refusedIds.length > 0 ? await held(conn, refusedIds) : undefined;
        let done = 0;
        let failure: Error | undefined;
        let refused: bigint | undefined;
        for (const b of batch) {
          const [error, reply] = replies?.[done] ?? [new Error("no answer in the pipeline")];
          if (error && !isRefused(error)) {
            failure = error;
            break;
          }
          // NOMKSTREAM's answer when the stream is gone: reconnect, and the new connection's
          // check (restoreLostEntries) reports stream_lost and writes the kept blocks again.
          if (!error && reply === null) {
            failure = new RedisFeedError(url, "command", {
              message: `stream ${stream} is gone (deleted, or Redis flushed) since this publisher wrote to it`,
              details: "the blocks it kept are written again before this one",
            });
            break;
          }
          const id = entryId(b.height);
          // Redis answers an XADD with the id it added, the one asked for. Anything else (a
          // proxy or a server that is not Redis, mangling replies) says nothing of what was
          // written: counted as published, the block would be lost without a word.
          if (!error && reply !== id) {
            failure = new RedisFeedError(url, "reply", {
              message: `Redis at ${url} answered XADD ${id} of stream ${stream} with something that is not that entry's id`,
              details: `the reply is ${describeValue(reply)}`,
            });
            break;
          }
          // Refused above the newest entry (or in an empty stream): no entry stands at or above
          // that height, so it is the stream's last id that Redis refuses it by (set past its
          // entries: an entry written and deleted or trimmed, XSETID). That can be repaired:
          // the block waits, it is not lost.
          if (
            error &&
            !inStream?.has(id) &&
            (top === undefined || (top.ok && b.height > top.height))
          ) {
            failure = new RedisFeedError(url, "command", {
              message: `Redis refuses height ${b.height} of stream ${stream}, whose newest entry is ${top?.id ?? "none (the stream is empty)"}: the stream's last id was set past its entries`,
              // An empty stream: back below the oldest block kept, which the repair writes again.
              details: `set it back (XSETID ${stream} ${top?.id ?? entryId((written.above(0n)[0]?.height ?? b.height) - 1n)}); the blocks wait in memory meanwhile`,
            });
            break;
          }
          const outcome = !error
            ? "published"
            : inStream?.has(id)
              ? "already_published"
              : "refused";
          // What the stream holds at that height, kept to be written again if Redis loses it.
          let fields: readonly string[] = entries[done]!.fields;
          if (outcome === "already_published") {
            const there = inStream?.get(id);
            const alike = there !== undefined && blockField(there) === fields[1];
            const valid = there !== undefined && (alike || decodeStreamEntry(id, there).ok);
            if (!alike && !warnedDiffers)
              onEvent({
                type: "stream_differs",
                stream,
                height: b.height,
                id,
                ...(there !== undefined && !valid ? { notABlock: true } : {}),
              });
            warnedDiffers = !alike;
            // Kept as the stream holds it, every field (its arrival time included), so that
            // written again it is the same bytes a replica may already have; but only a valid
            // block: what something else wrote there (replicas skip it) is not kept, nor ever
            // written back after a loss, and its own block is written in its place.
            if (valid) fields = there!;
          }
          if (outcome !== "refused") {
            written.add(b.height, fields);
            wroteHere = true;
          }
          report({ height: b.height, id, outcome });
          if (outcome === "refused") refused ??= b.height;
          else if (outcome === "published") warnedAhead = false;
          done++;
        }
        batch = batch.slice(done);
        if (failure)
          throw failure instanceof RedisFeedError ? failure : commandFailure(url, failure);
        outage.succeeded();
        if (refused !== undefined && top && !warnedAhead) {
          warnedAhead = true;
          onEvent({ type: "stream_ahead", stream, height: refused, top: top.id });
        }
      } catch (e) {
        queue.putBack(batch);
        conn?.close();
        conn = undefined;
        if (signal.aborted) return;
        if (!(e instanceof RedisFeedError)) throw e;
        try {
          await sleep(outage.failed(e), undefined, { signal });
        } catch {
          return;
        }
      }
    }
  } finally {
    signal.removeEventListener("abort", closeOnAbort);
    conn?.close();
  }
}
