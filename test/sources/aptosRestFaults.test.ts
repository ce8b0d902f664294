import { describe, expect, it } from "vitest";
import type { BlockSample } from "../../src/core/blockSample.js";
import type { InvalidConfigError } from "../../src/core/errors.js";
import { backoffDelay } from "../../src/sources/aptosRest/backoff.js";
import {
  type AptosRestEvent,
  aptosRestEventFields,
  describeAptosRestEvent,
  resolveAptosRestOptions,
  SourceRequestError,
} from "../../src/sources/aptosRest.js";
import { asJson, collect, expected, fakeNode, follow, retries, until } from "./followHelpers.js";

const MIB = 1024 * 1024;
const blockPaths = (node: { requests: readonly { route: string; path: string }[] }) =>
  node.requests.filter((r) => r.route === "block").map((r) => r.path);
const heightOf = (path: string) => BigInt(/by_height\/(\d+)/.exec(path)![1]!);
const requestErrors = (events: AptosRestEvent[]) =>
  retries(events).flatMap((e) => (e.error instanceof SourceRequestError ? [e.error] : []));

describe("aptosRest: response size cap", () => {
  it("cuts a body past maxResponseBytes (plain, gzip bomb, declared length), names the URL and the cap, and retries", async () => {
    const node = await fakeNode({ blocks: 60 });
    node.inject({ kind: "huge", bytes: 5 * MIB }, { route: "ledger" });
    node.inject({ kind: "huge", bytes: 64 * MIB, gzip: true }, { route: "block", times: 2 });
    node.inject({ kind: "huge", bytes: 3 * MIB, declareLength: true }, { route: "transactions" });
    const rssBefore = process.memoryUsage().rss;
    // No hedge: on a busy machine a second try could win before a body reaches the cap.
    const { source$, events, from } = follow(node, {
      backfillBlocks: 20,
      maxResponseBytes: MIB,
      hedgeAfterMs: 10_000,
    });
    const got = await collect(source$, 20);
    expect(asJson(got)).toEqual(expected(node, from(), node.chain.tip));
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(128 * MIB);

    const cut = requestErrors(events).filter((e) => e.kind === "too_large");
    expect(cut).toHaveLength(4);
    expect(cut[0]!.shortMessage).toBe(
      `response from ${node.url}/v1 is larger than the cap of 1048576 bytes`,
    );
    expect(cut[0]!.details).toContain("maxResponseBytes");
    expect(cut.map((e) => e.limit)).toEqual([MIB, MIB, MIB, MIB]);
    expect(cut.filter((e) => e.url.includes("/blocks/by_height/"))).toHaveLength(2);
    expect(cut.filter((e) => e.url.includes("/transactions?"))).toHaveLength(1);
    expect(node.requests.filter((r) => r.outcome === "huge")).toHaveLength(4);
    const first = retries(events)[0]!;
    expect(describeAptosRestEvent(first)).toMatch(
      /^retrying in \d+ ms \(attempt 1\): response from .+\/v1 is larger than the cap of 1048576 bytes \(raise maxResponseBytes \(--max-response-bytes\) if/,
    );
    expect(aptosRestEventFields(first).error).toMatchObject({ kind: "too_large", limit: MIB });
  });

  it("validates the cap and the other new limits", () => {
    const issues = (options: Parameters<typeof resolveAptosRestOptions>[1]) => {
      try {
        resolveAptosRestOptions("http://node", options);
      } catch (e) {
        return (e as InvalidConfigError).issues;
      }
      return [];
    };
    expect(issues({ maxResponseBytes: 100, hedgeAfterMs: 0, lookaheadBlocks: 2.5 })).toEqual([
      {
        path: "lookaheadBlocks",
        message: "must be a whole number of blocks from 1 to 4096, got 2.5",
        code: "invalid_type",
      },
      {
        path: "hedgeAfterMs",
        message: "must be a number of milliseconds from 1 to 600000, got 0",
        code: "too_small",
      },
      {
        path: "maxResponseBytes",
        message:
          "must be a whole number of bytes from 1024 to 536870888 (V8's longest string: an answer is read as one), got 100",
        code: "too_small",
      },
    ]);
    expect(issues({ concurrency: 8, lookaheadBlocks: 4 })).toEqual([
      {
        path: "lookaheadBlocks",
        message: "must not be below concurrency (8), got 4",
        code: "custom",
      },
    ]);
    // 512 MiB is 24 bytes more than V8's longest string: such a body could not be read.
    for (const bytes of [2 ** 30, 512 * MIB])
      expect(issues({ maxResponseBytes: bytes })[0]?.message).toBe(
        `must be a whole number of bytes from 1024 to 536870888 (V8's longest string: an answer is read as one), got ${bytes}`,
      );
    expect(issues({ maxResponseBytes: 0x1fffffe8 })).toEqual([]);
    expect(resolveAptosRestOptions("http://node")).toMatchObject({
      maxResponseBytes: 64 * MIB,
      followRedirects: false,
      lookaheadBlocks: 128,
      hedgeAfterMs: 500,
    });
  });
});

describe("aptosRest: redirects", () => {
  it("follows no redirect unless followRedirects: a 3xx is a fault naming its Location", async () => {
    const node = await fakeNode({ blocks: 40 });
    const target = `${node.url}/v1`;
    node.inject({ kind: "redirect", location: target }, { route: "ledger" });
    const off = follow(node, { backfillBlocks: 3 });
    await collect(off.source$, 3);
    const [error] = requestErrors(off.events);
    expect(error).toMatchObject({ kind: "http", status: 302 });
    expect(error!.details).toBe(
      `redirect to ${target} not followed (followRedirects is off, --follow-redirects)`,
    );

    // A target's credentials are not logged (the node's own, but a secret all the same). Each
    // part has its own node: a request the source before left in flight (a poll or a hedge,
    // aborted when it was unsubscribed) could reach a shared node late and take the fault.
    const second = await fakeNode({ blocks: 40 });
    const secretTarget = `${second.url}/v1`;
    const secret = secretTarget.replace("http://", "http://bob:pw2@");
    second.inject({ kind: "redirect", location: secret }, { route: "ledger" });
    const hidden = follow(second, { backfillBlocks: 3 });
    await collect(hidden.source$, 3);
    expect(requestErrors(hidden.events)[0]?.details).toBe(
      `redirect to ${secretTarget.replace("http://", "http://***@")} not followed (followRedirects is off, --follow-redirects)`,
    );

    const third = await fakeNode({ blocks: 40 });
    third.inject(
      { kind: "redirect", location: `${third.url}/v1`, status: 301 },
      { route: "ledger" },
    );
    const on = follow(third, { backfillBlocks: 3, followRedirects: true });
    await collect(on.source$, 3);
    expect(retries(on.events)).toEqual([]);
    expect(third.requests.slice(0, 2).map((r) => [r.path, r.outcome])).toEqual([
      ["/v1", "redirect"],
      ["/v1", 200],
    ]);
  });
});

describe("aptosRest: Retry-After never shortens the backoff", () => {
  it("waits the backoff after 429s with Retry-After: 0 or a past date, counting the requests", async () => {
    const node = await fakeNode({ blocks: 30 });
    node.inject({ kind: "rate_limit", retryAfter: "0" }, { route: "ledger", times: 4 });
    node.inject(
      { kind: "rate_limit", retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT" },
      { route: "ledger", times: 2 },
    );
    const backoff = { initialBackoffMs: 40, maxBackoffMs: 1_000, random: () => 0.5 };
    const started = performance.now();
    const { source$, events } = follow(node, {
      ...backoff,
      backfillBlocks: 1,
      maxRetryAfterMs: 60_000,
    });
    await collect(source$, 1);
    const waits = [1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, backoff));
    expect(waits).toEqual([30, 60, 120, 240, 480, 750]);
    expect(retries(events).map((e) => e.delayMs)).toEqual(waits);
    // 6 answers of 429, then the one that worked: not a flood of requests.
    expect(node.requests.slice(0, 7).map((r) => [r.route, r.outcome])).toEqual([
      ...Array.from({ length: 6 }, () => ["ledger", "rate_limit"]),
      ["ledger", 200],
    ]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_680);
  });

  it("still honours a Retry-After longer than the backoff", async () => {
    const node = await fakeNode({ blocks: 30 });
    node.inject({ kind: "rate_limit", retryAfter: "1" }, { route: "ledger" });
    const { source$, events } = follow(node, { backfillBlocks: 1, maxRetryAfterMs: 60_000 });
    await collect(source$, 1);
    expect(retries(events).map((e) => e.delayMs)).toEqual([1000]);
  });
});

describe("aptosRest: throughput under faults", () => {
  // A stall: no headers at all. A trickle: headers at once, then a byte every 100 ms, so the
  // block's few kilobytes would take minutes, and every height behind it waited out the timeout.
  it.each([
    ["a stalled request", { kind: "stall" }],
    ["a body that trickles in", { kind: "trickle" }],
  ] as const)(
    "hedges %s: the other fetches go on and the block comes from the second try",
    async (_, fault) => {
      const node = await fakeNode({ blocks: 60 });
      node.inject(fault, { route: "block" });
      const { source$, events, from } = follow(node, {
        backfillBlocks: 30,
        timeoutMs: 20_000,
        hedgeAfterMs: 300,
      });
      const got = await collect(source$, 30);
      expect(asJson(got)).toEqual(expected(node, from(), node.chain.tip));
      expect(retries(events)).toEqual([]); // the hedge answered long before the timeout
      const paths = blockPaths(node);
      expect(heightOf(paths[0]!)).toBe(from());
      const hedge = paths.indexOf(paths[0]!, 1);
      expect(paths.filter((p) => p === paths[0])).toHaveLength(2);
      expect(new Set(paths.slice(1, hedge)).size).toBeGreaterThanOrEqual(5);
      await until(() => expect(node.openRequests).toBe(0)); // the first try was aborted
    },
  );

  it("fetches the next blocks while one waits out its retry, and still emits in height order", async () => {
    const node = await fakeNode({ blocks: 60, pageSize: 10_000 });
    node.inject({ kind: "rate_limit", retryAfter: "2" }, { route: "block" });
    const { source$, events, from } = follow(node, {
      backfillBlocks: 30,
      concurrency: 2,
      maxRetryAfterMs: 2_000,
    });
    const got = await collect(source$, 30);
    expect(asJson(got)).toEqual(expected(node, from(), node.chain.tip));
    expect(retries(events).map((e) => e.delayMs)).toEqual([2_000]);
    const paths = blockPaths(node);
    expect(new Set(paths).size).toBe(30);
    expect(paths.at(-1)).toBe(paths[0]); // every other block came while the first one waited
  });

  it("keeps `concurrency` requests in flight, never more", async () => {
    const node = await fakeNode({ blocks: 80, latencyMs: 25 });
    const { source$, from } = follow(node, { backfillBlocks: 60, concurrency: 3 });
    const got = await collect(source$, 60);
    expect(asJson(got)).toEqual(expected(node, from(), node.chain.tip));
    expect(node.peakOpenRequests).toBe(3);
  });

  it("fetches at most lookaheadBlocks heights ahead of a block that holds up the emission", async () => {
    const node = await fakeNode({ blocks: 60, pageSize: 10_000 });
    node.inject({ kind: "stall" }, { route: "block" });
    const { source$, from } = follow(node, {
      backfillBlocks: 30,
      lookaheadBlocks: 10,
      timeoutMs: 1_500,
      hedgeAfterMs: 1_500, // no hedge: the stall lasts until the timeout
    });
    const got: unknown[] = [];
    const sub = source$.subscribe((b) => got.push(b));
    await until(() => expect(new Set(blockPaths(node)).size).toBe(10));
    await new Promise((r) => setTimeout(r, 300));
    expect(got).toEqual([]);
    const ahead = blockPaths(node).map(heightOf);
    expect(Math.max(...ahead.map(Number))).toBe(Number(from() + 9n));
    await until(() => expect(got).toHaveLength(30));
    sub.unsubscribe();
  });

  it("holds at most (concurrency + 4) x maxBlockTransactions transactions ahead of a stalled block", async () => {
    // Blocks of 22 transactions (20 users), maxBlockTransactions 25, concurrency 2: room for
    // 150 transactions, so 6 heights are fetched, not the 10 of the lookahead, and no more once
    // the 5 behind the stalled one hold 110.
    const node = await fakeNode({ blocks: 60, pageSize: 10_000, usersPerBlock: [20, 20] });
    node.inject({ kind: "stall" }, { route: "block" });
    const { source$, from } = follow(node, {
      backfillBlocks: 30,
      lookaheadBlocks: 10,
      concurrency: 2,
      maxBlockTransactions: 25,
      timeoutMs: 1_500,
      hedgeAfterMs: 1_500, // no hedge: the stall lasts until the timeout
    });
    const got: BlockSample[] = [];
    const sub = source$.subscribe((b) => got.push(b));
    await until(() => expect(new Set(blockPaths(node)).size).toBe(6));
    await new Promise((r) => setTimeout(r, 300));
    expect(got).toEqual([]);
    expect(new Set(blockPaths(node)).size).toBe(6);
    await until(() => expect(got).toHaveLength(30));
    sub.unsubscribe();
    expect(asJson(got)).toEqual(expected(node, from(), from() + 29n));
    expect(got.every((b) => b.gasUnitPrices.length === 20)).toBe(true);
  });

  it("re-reads the tip in the background when the window reaches it, so new blocks are fetched meanwhile", async () => {
    const node = await fakeNode({ blocks: 60, pageSize: 10_000 });
    node.inject({ kind: "stall" }, { route: "block" });
    const { source$, events, from } = follow(node, {
      backfillBlocks: 20,
      timeoutMs: 1_500,
      hedgeAfterMs: 1_500,
    });
    const got: unknown[] = [];
    const sub = source$.subscribe((b) => got.push(b));
    await until(() => expect(from()).toBeDefined());
    const startTip = node.chain.tip;
    node.chain.addBlocks(5);
    await until(() => expect(got).toHaveLength(25));
    sub.unsubscribe();
    const paths = blockPaths(node);
    const retry = paths.indexOf(paths[0]!, 1);
    // The new heights were asked for while the first block was still stalled.
    const newer = paths.slice(0, retry).filter((p) => heightOf(p) > startTip);
    expect(newer).toHaveLength(5);
    // Caught up once past every tip known: the 5 blocks seen in the background count.
    expect(events.find((e) => e.type === "caught_up")).toMatchObject({
      height: startTip + 5n,
      blocks: 25,
    });
  });

  it("reads the gas schedule of a new epoch as soon as its first block is in, before its turn", async () => {
    // 20 blocks per epoch: epoch 54 runs to 1079, epoch 55 begins at 1080.
    const node = await fakeNode({ blocks: 100, pageSize: 10_000, epochLength: 20 });
    node.inject({ kind: "stall" }, { route: "block" }); // the first block, 1075
    const { source$, events } = follow(node, {
      startHeight: 1075,
      timeoutMs: 1_500,
      hedgeAfterMs: 1_500,
    });
    const got = await collect(source$, 10);
    expect(asJson(got)).toEqual(expected(node, 1075n, 1084n));
    const paths = node.requests.map((r) => r.path);
    const head = "/v1/blocks/by_height/1075?with_transactions=true";
    const retry = paths.indexOf(head, paths.indexOf(head) + 1);
    const epoch55 = paths.indexOf(
      `/v1/accounts/0x1/resource/0x1::gas_schedule::GasScheduleV2?ledger_version=${node.chain.block(1080n)!.firstVersion}`,
    );
    expect(epoch55).toBeGreaterThan(-1);
    expect(epoch55).toBeLessThan(retry);
    const reads = events.flatMap((e) => (e.type === "min_gas_unit_price" ? [e] : []));
    expect(reads.map((r) => [r.height, r.epoch])).toEqual([
      [1075n, 54n],
      [1080n, 55n],
    ]);
    expect(paths.filter((p) => p.includes("GasScheduleV2"))).toHaveLength(2);
  });

  it("hands blocks on while the gas schedule does not answer, and takes its minimum when it does", async () => {
    // A gateway that lets blocks through but refuses the account resource (403): every block
    // waited for that one read, for ever.
    const node = await fakeNode({ blocks: 30, epochLength: 1_000 }); // one epoch (2, minimum 150)
    node.inject({ kind: "status", status: 403 }, { route: "gas", times: 1_000_000 });
    const { source$, events } = follow(node, { backfillBlocks: 3, timeoutMs: 500 });
    const got: BlockSample[] = [];
    const sub = source$.subscribe((b) => got.push(b));
    try {
      await until(() => expect(got.length).toBe(3));
      // The configured minimum meanwhile: no block carries one.
      expect(got.every((b) => b.minGasUnitPrice === undefined)).toBe(true);
      const pending = events.filter((e) => e.type === "min_gas_unit_price_pending");
      expect(pending).toEqual([
        {
          type: "min_gas_unit_price_pending",
          epoch: 2n,
          height: got[0]!.height,
          failures: expect.any(Number),
          using: undefined,
        },
      ]);
      expect(pending[0]!.failures).toBeGreaterThanOrEqual(3);
      // A failure that gives the read up announces no retry; one given up by the clock while
      // it waited for its retry had announced it.
      const gasRetries = events.filter(
        (e) => e.type === "retrying" && e.url.includes("GasScheduleV2"),
      ).length;
      expect(gasRetries).toBeGreaterThanOrEqual(pending[0]!.failures - 1);
      expect(gasRetries).toBeLessThanOrEqual(pending[0]!.failures);
      expect(events.some((e) => e.type === "min_gas_unit_price")).toBe(false);
      // The read was given up, not retried for ever: the node is not counted as failing (an
      // outage told is told over), and no request keeps failing while no block comes.
      const outage = () =>
        events.filter((e) => e.type === "unreachable" || e.type === "recovered").at(-1)?.type;
      await until(() => expect(outage() ?? "recovered").toBe("recovered"));
      const retried = events.filter((e) => e.type === "retrying").length;
      await new Promise((r) => setTimeout(r, 300));
      expect(events.filter((e) => e.type === "retrying")).toHaveLength(retried);
      node.clearFaults();
      node.grow(20);
      await until(() => expect(got.at(-1)!.minGasUnitPrice).toBe(150n));
      const reads = events.flatMap((e) => (e.type === "min_gas_unit_price" ? [e] : []));
      expect(reads).toHaveLength(1);
      expect(reads[0]).toMatchObject({ epoch: 2n, value: 150n, previous: undefined });
    } finally {
      sub.unsubscribe();
    }
  });

  it("reads an epoch's schedule where it really begins, not where a bad answer claimed it early", async () => {
    // Epoch 54 runs 1060-1079 (minimum 150), 55 from 1080 (minimum 100). The node answers block
    // 1066 once as if it were epoch 55: the schedule read at 1066's version says 150 (it is
    // epoch 54 there). Keyed by epoch alone, that read was taken for the real epoch 55 at 1080,
    // and the whole epoch was served 150.
    const node = await fakeNode({ blocks: 100, pageSize: 10_000, epochLength: 20 });
    let lied = false;
    node.inject(
      {
        kind: "replace",
        respond: ({ status, body }) => {
          const b = body as { block_height?: string; transactions?: { epoch?: string }[] };
          if (!lied && b.block_height === "1066" && b.transactions?.[0]?.epoch === "54") {
            lied = true;
            b.transactions[0].epoch = "55";
          }
          return { status, body: JSON.stringify(b) };
        },
      },
      { route: "block", times: 1_000 },
    );
    const { source$, events } = follow(node, { startHeight: 1061 });
    const got = await collect(source$, 25);
    expect(got.map((b) => b.epoch)).toEqual([
      ...Array(5).fill(54n),
      55n,
      ...Array(13).fill(54n),
      ...Array(6).fill(55n),
    ]);
    const reads = events.flatMap((e) => (e.type === "min_gas_unit_price" ? [e] : []));
    expect(reads.map((r) => [r.height, r.epoch, r.value])).toEqual([
      [1061n, 54n, 150n],
      [1066n, 55n, 150n],
      [1067n, 54n, 150n],
      [1080n, 55n, 100n],
    ]);
    expect(got.at(-1)!.minGasUnitPrice).toBe(100n);
  });
});
