// Issue 14's publish throughput: blocks/s written to a Redis Stream with 250-transaction blocks,
// through redisStreamSink (the operator behind `gasdigest publish`: validation check, queue,
// pipelined XADD <height>-0 MAXLEN ~ 10000, one result per block) against a bare ioredis
// pipeline sending the same XADDs (same serializer, same batch of 100), on a redis-server of
// its own (loopback, AOF on). Whole passes are timed; cases alternate and the best pass counts.
import { Redis } from "ioredis";
import { from, lastValueFrom } from "rxjs";
import { serializeBlockSample } from "../../dist/core/blockSample.js";
import { redisStreamSink } from "../../dist/redis.js";
import { makeBlocks } from "../lib.js";
import { redisServerAvailable, startRedisServer } from "../lib-redis.js";

const TITLE = "Publish: 250-transaction blocks into a Redis Stream";

export default async function run({ quick }) {
  if (!redisServerAvailable)
    return { title: TITLE, rows: [{ name: "skipped: redis-server is not installed" }] };
  const count = quick ? 2_000 : 10_000;
  const passes = quick ? 2 : 5;
  const blocks = makeBlocks(count, 11);
  const redis = await startRedisServer();
  // The bare client speaks RESP2 like the sink's connections (ioredis 6 defaults to RESP3).
  const bare = new Redis(redis.url, { protocol: 2 });
  let key = 0;
  const cases = {
    async ours() {
      const stream = `bench:${key++}`;
      const results = await lastValueFrom(
        from(blocks).pipe(redisStreamSink(redis.url, { stream, retain: 10_000, batchSize: 100 })),
      );
      if (results.outcome !== "published") throw new Error("the last block was not published");
      await redis.client.del(stream);
    },
    async bare() {
      const stream = `bench:${key++}`;
      for (let i = 0; i < blocks.length; i += 100) {
        const pipeline = bare.pipeline();
        for (const b of blocks.slice(i, i + 100))
          pipeline.xadd(
            stream,
            "MAXLEN",
            "~",
            "10000",
            `${b.height}-0`,
            "block",
            serializeBlockSample(b),
          );
        const replies = await pipeline.exec();
        if (replies.some(([error]) => error)) throw new Error("XADD failed");
      }
      await redis.client.del(stream);
    },
  };
  const best = { ours: Number.POSITIVE_INFINITY, bare: Number.POSITIVE_INFINITY };
  try {
    for (let p = 0; p < passes; p++)
      for (const name of p % 2 ? ["bare", "ours"] : ["ours", "bare"]) {
        const t0 = performance.now();
        await cases[name]();
        best[name] = Math.min(best[name], performance.now() - t0);
      }
  } finally {
    bare.disconnect();
    await redis.stop();
  }
  const rate = (ms) => (count * 1000) / ms;
  const bytes = blocks.reduce((n, b) => n + serializeBlockSample(b).length, 0) / count;
  return {
    title: TITLE,
    rows: [
      {
        name: "blocks/s, redisStreamSink vs bare ioredis pipeline",
        ours: rate(best.ours),
        baseline: rate(best.bare),
        unit: "blocks/s",
        ratio: best.bare / best.ours,
        kind: "overhead",
        note: `${count} blocks of 250 transactions (~${Math.round(bytes / 1024)} KiB each as NDJSON), best of ${passes} passes; baseline = the same XADDs (same serializer, batches of 100) through a bare ioredis pipeline (RESP2, as the sink); <1 = the sink's share`,
      },
    ],
  };
}
