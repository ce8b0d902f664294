import { firstValueFrom, type Observable, take, toArray } from "rxjs";
import { afterEach, vi } from "vitest";
import {
  type BlockSample,
  parseBlockSample,
  toBlockSampleJson,
} from "../../src/core/blockSample.js";
import {
  type AptosRestEvent,
  type AptosRestOptions,
  aptosRest,
} from "../../src/sources/aptosRest.js";
import { type FakeNode, type FakeNodeOptions, startFakeNode } from "./fakeNode.js";

const nodes: FakeNode[] = [];
afterEach(async () => {
  await Promise.all(nodes.splice(0).map((n) => n.close()));
});

/** A fake node (lists cut at 7 transactions unless told) closed after the test. */
export async function fakeNode(options: FakeNodeOptions = {}) {
  const node = await startFakeNode({ pageSize: 7, ...options });
  nodes.push(node);
  return node;
}

/**
 * Small backoffs so faults cost milliseconds. The timeout stays generous (a loaded machine must
 * not turn slow answers into faults) except where a test stalls requests on purpose.
 */
export const fast: AptosRestOptions = {
  pollIntervalMs: 10,
  timeoutMs: 3_000,
  initialBackoffMs: 2,
  maxBackoffMs: 40,
  maxRetryAfterMs: 50,
  random: () => 0.5,
};

/** The source on `node` with {@link fast} settings, its events, and the height it started at. */
export function follow(node: FakeNode, options: AptosRestOptions = {}) {
  const events: AptosRestEvent[] = [];
  const source$ = aptosRest(node.url, { ...fast, ...options, onEvent: (e) => events.push(e) });
  const from = () => {
    const started = events.find((e) => e.type === "started");
    if (!started) throw new Error("the source did not start");
    return started.from;
  };
  return { source$, events, from };
}

/** vi.waitFor with room for a loaded machine. */
export const until = (check: () => void) => vi.waitFor(check, { timeout: 30_000, interval: 10 });

export const collect = (source$: Observable<BlockSample>, count: number) =>
  firstValueFrom(source$.pipe(take(count), toArray()));
export const asJson = (blocks: readonly BlockSample[]) => blocks.map(toBlockSampleJson);
export const expected = (node: FakeNode, from: bigint, to: bigint) =>
  node.chain.expectedSamples(from, to).map((b) => toBlockSampleJson(parseBlockSample(b)));
export const retries = (events: AptosRestEvent[]) =>
  events.flatMap((e) => (e.type === "retrying" ? [e] : []));

/**
 * The source on a scripted `fetch` (a node at `http://node.invalid`), from height 1 with
 * {@link fast} settings: the heights it emitted and the events it reported. Unsubscribe `sub`.
 */
export function followScripted(fetch: AptosRestOptions["fetch"], options: AptosRestOptions = {}) {
  const events: AptosRestEvent[] = [];
  const heights: bigint[] = [];
  const sub = aptosRest("http://node.invalid", {
    ...fast,
    startHeight: 1,
    fetch,
    ...options,
    onEvent: (e) => events.push(e),
  }).subscribe((b) => heights.push(b.height));
  return { events, heights, sub };
}
