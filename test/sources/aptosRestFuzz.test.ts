import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fuzzSeed } from "../helpers/fuzzSeed.js";
import { type FakeNode, startFakeNode } from "./fakeNode.js";
import { asJson, collect, expected, follow } from "./followHelpers.js";
import { changesMeaning, mutations, toFault } from "./fuzz/nodeMutations.js";

const MIB = 1024 * 1024;
const BLOCKS = 8;
/** Wall-clock budget of the property (fast-check stops starting new runs past it). */
const BUDGET_MS = 25_000;

/** A full garbage collection (test-only: V8's `gc`, exposed at run time). */
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const heapAfterGc = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

let node: FakeNode;
let peakRss = 0;
let sampler: NodeJS.Timeout;
beforeAll(async () => {
  // Cut lists (pages), an epoch change every 5 blocks (gas schedule reads).
  node = await startFakeNode({ blocks: 100, pageSize: 5, epochLength: 5, seed: 21 });
  sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 20);
});
afterAll(async () => {
  clearInterval(sampler);
  await node.close();
});

/** Reject after `ms` (a run that never ends is a failure, not a hung suite). */
function within<T>(ms: number, p: Promise<T>, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no ${BLOCKS} blocks within ${ms} ms: ${what()}`)),
        ms,
      );
    }),
  ]);
}

describe("aptosRest fuzz: mutated node responses", () => {
  it("never crashes, stays within bounded memory and keeps every good block", async () => {
    const seed = fuzzSeed("aptosRest node-response fuzz");
    let runs = 0;
    let retried = 0;
    const heapBefore = heapAfterGc();
    await fc.assert(
      fc.asyncProperty(mutations, async (aimed) => {
        // Collect now and then, so the RSS peak measures what runs hold, not the garbage V8
        // lets pile up before a full collection.
        if (++runs % 10 === 0) gc();
        node.clearFaults();
        for (const a of aimed) if (!changesMeaning(a)) node.inject(toFault(a), { route: a.route });
        const { source$, from, events } = follow(node, {
          backfillBlocks: BLOCKS,
          maxResponseBytes: 256 * 1024,
          timeoutMs: 1_000,
          hedgeAfterMs: 100,
        });
        const got = await within(20_000, collect(source$, BLOCKS), () =>
          events.map((e) => e.type).join(","),
        );
        node.clearFaults();
        retried += events.filter((e) => e.type === "retrying").length;
        const want = expected(node, from(), from() + BigInt(BLOCKS - 1));
        // A gas schedule read failed 3 times and past the timeout (stalls aimed at it): its
        // epoch's blocks went on with the minimum in force, by design; all else is exact.
        const minimum = (blocks: object[]) =>
          events.some((e) => e.type === "min_gas_unit_price_pending")
            ? blocks.map(
                ({ min_gas_unit_price: _, ...rest }: { min_gas_unit_price?: unknown }) => rest,
              )
            : blocks;
        expect(minimum(asJson(got))).toEqual(minimum(want));
      }),
      { seed, numRuns: 200, interruptAfterTimeLimit: BUDGET_MS, markInterruptAsFailure: false },
    );
    const retained = heapAfterGc() - heapBefore;
    console.log(
      `${runs} runs, ${retried} retried requests, peak RSS ${(peakRss / MIB).toFixed(0)} MiB, ` +
        `heap retained ${(retained / MIB).toFixed(1)} MiB`,
    );
    expect(runs).toBeGreaterThanOrEqual(10);
    expect(peakRss).toBeLessThan(512 * MIB);
    expect(retained).toBeLessThan(32 * MIB);
  }, 120_000);
});
