import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { take } from "rxjs";
import { describe, expect, it } from "vitest";
import { estimateLine } from "../../src/cli/replay.js";
import { arrivalOf } from "../../src/core/blockArrival.js";
import {
  type BlockSample,
  parseBlockSample,
  serializeBlockSample,
} from "../../src/core/blockSample.js";
import { createEngine } from "../../src/core/createEngine.js";
import { InvalidConfigError } from "../../src/core/errors.js";
import {
  type AptosRestEvent,
  type AptosRestOptions,
  aptosRest,
  InvalidResponseError,
  SourceRequestError,
} from "../../src/sources/aptosRest.js";
import { aip34 } from "../../src/strategies/aip34.js";
import { runCli } from "../helpers/cli.js";
import type { BlockShape, Fault, Route } from "./fakeNode.js";
import { asJson, collect, expected, fakeNode, follow, retries, until } from "./followHelpers.js";

describe("aptosRest against the fake node", () => {
  it("backfills the last blocks, then follows the growing chain, equal to the generated chain", async () => {
    const node = await fakeNode({ blocks: 200 });
    const tip = node.chain.tip;
    node.grow(5, 1);
    const { source$, events, from } = follow(node, { backfillBlocks: 121 });
    const got = await collect(source$, 181);
    expect(from()).toBeGreaterThanOrEqual(tip - 120n);
    expect(events[0]).toMatchObject({ type: "started", chainId: 4, oldest: 1000n });
    expect(asJson(got)).toEqual(expected(node, from(), from() + 180n));
    expect(retries(events)).toEqual([]);
  });

  it("dates a block made before the tip it read by how much before, counted back from that read", async () => {
    // The fake chain's blocks are 250 ms apart, from November 2023: a block's date must not
    // depend on how far the chain's clock is from the local one.
    const node = await fakeNode({ blocks: 200 });
    const started = Date.now();
    const { source$, events, from } = follow(node, { backfillBlocks: 121 });
    const got: BlockSample[] = [];
    const sub = source$.subscribe((b) => got.push(b));
    await until(() => expect(events.some((e) => e.type === "caught_up")).toBe(true));
    // Blocks made after that are read at the tip, one poll later.
    const added = Date.now();
    node.chain.addBlocks(3);
    await until(() => expect(got).toHaveLength(124));
    sub.unsubscribe();
    expect(asJson(got)).toEqual(expected(node, from(), node.chain.tip));
    expect(events.find((e) => e.type === "caught_up")).toMatchObject({
      height: node.chain.tip - 3n,
      blocks: 121,
    });
    // Each block is dated (tip − height) × 250 ms before a read of the tip: the backfill's
    // (the tip included) from reads after it started, the three made at once from the read
    // that found them.
    const readOfTip = (i: number, tip: BlockSample) =>
      arrivalOf(got[i]!)! + Number(tip.height - got[i]!.height) * 250;
    for (let i = 0; i <= 120; i++) {
      expect(readOfTip(i, got[120]!)).toBeGreaterThanOrEqual(started);
      expect(readOfTip(i, got[120]!)).toBeLessThanOrEqual(added);
    }
    for (const i of [121, 122, 123]) {
      expect(readOfTip(i, got[123]!)).toBeGreaterThanOrEqual(added);
      expect(readOfTip(i, got[123]!)).toBeLessThanOrEqual(Date.now());
    }
  });

  it("completes cut transaction lists up to and including last_version, in pages of at most 100", async () => {
    // 1090: metadata + 6 users + epilogue = pageSize + 1: only the epilogue is cut off;
    // 1091: 250 users need three pages; 1092: no user transaction at all.
    const bare = { validatorTxns: 0, unknownTxn: false } as const;
    const shapes: Record<string, BlockShape> = {
      "1090": { ...bare, users: 6, ending: "epilogue", gasLimitReached: true },
      "1091": { users: 250 },
      "1092": { users: 0 },
    };
    const node = await fakeNode({ blocks: 100, shapeAt: (h) => shapes[String(h)] });
    const { source$, from } = follow(node, { backfillBlocks: 20 });
    const got = await collect(source$, 20);
    expect(asJson(got)).toEqual(expected(node, from(), node.chain.tip));
    const b1090 = node.chain.block(1090n)!;
    expect(b1090.lastVersion - b1090.firstVersion + 1n).toBe(8n);
    expect(b1090).toMatchObject({ ending: "epilogue", gasLimitReached: true });
    expect(got.find((b) => b.height === 1090n)!.blockGasLimitReached).toBe(true);
    expect(node.requests.map((r) => r.path)).toContain(
      `/v1/transactions?start=${b1090.lastVersion}&limit=1`,
    );
    expect(got.find((b) => b.height === 1091n)!.gasUnitPrices).toHaveLength(250);
    const pages = node.requests.filter((r) => r.route === "transactions");
    expect(pages.length).toBeGreaterThan(10);
    for (const p of pages) expect(p.outcome).toBe(200);
    const limits = pages.map((p) => Number(new URL(p.path, "http://x").searchParams.get("limit")));
    expect(Math.max(...limits)).toBe(100);
  });

  const routes: Route[] = ["ledger", "block", "transactions", "gas"];
  const kinds: [string, Fault, (e: Error) => void][] = [
    [
      "500s",
      { kind: "status", status: 500 },
      (e) => expect(e).toMatchObject({ kind: "http", status: 500 }),
    ],
    [
      "503s",
      { kind: "status", status: 503 },
      (e) => expect(e).toMatchObject({ kind: "http", status: 503 }),
    ],
    [
      "429 with Retry-After",
      { kind: "rate_limit", retryAfter: "0" },
      (e) => expect(e).toMatchObject({ status: 429 }),
    ],
    [
      "stalls past the timeout",
      { kind: "stall" },
      (e) => expect(e).toMatchObject({ kind: "timeout" }),
    ],
    [
      "dropped connections",
      { kind: "drop" },
      (e) => {
        expect(e).toMatchObject({ kind: "network" });
        expect(e.message).toMatch(/^cannot reach /);
      },
    ],
    [
      "bodies cut mid-way",
      { kind: "truncate" },
      (e) => {
        // The node did answer: the message says the answer broke off, not that it was unreachable.
        expect(e).toBeInstanceOf(SourceRequestError);
        expect(e.message).toMatch(/^the answer from \S+ broke off or could not be decoded/);
      },
    ],
    [
      "malformed JSON",
      { kind: "malformed" },
      (e) => expect(e.message).toMatch(/: not valid JSON \(/),
    ],
    ["wrong types", { kind: "wrong_type" }, (e) => expect(e).toBeInstanceOf(InvalidResponseError)],
  ];
  it.each(kinds)("loses and repeats no block under %s", async (_, fault, check) => {
    const node = await fakeNode({ blocks: 120 });
    for (const route of routes) node.inject(fault, { route, times: 2 });
    const timeoutMs = fault.kind === "stall" ? 300 : 3_000;
    const { source$, events, from } = follow(node, { backfillBlocks: 41, timeoutMs });
    const backfill = await collect(source$, 41);
    expect(asJson(backfill)).toEqual(expected(node, from(), node.chain.tip));
    const faults = node.requests.filter((r) => r.outcome === fault.kind);
    expect(faults.length).toBe(8);
    const seen = retries(events);
    expect(seen.length).toBeGreaterThanOrEqual(8);
    for (const e of seen) check(e.error);
  });

  it("names the URL and field path of a response that does not fit", async () => {
    const node = await fakeNode({ blocks: 60 });
    node.inject({ kind: "wrong_type" }, { route: "block" });
    node.inject({ kind: "wrong_type" }, { route: "ledger" });
    node.inject({ kind: "wrong_type" }, { route: "gas" });
    const { source$, events } = follow(node, { backfillBlocks: 5, concurrency: 1 });
    await collect(source$, 5);
    const messages = retries(events).map((e) => e.error.message.replace(node.url, "URL"));
    expect(messages[0]).toBe(
      'invalid response from URL/v1: chain_id: must be a chain id 0..255 as a JSON number (got "4")',
    );
    expect(messages).toContainEqual(
      expect.stringMatching(
        /^invalid response from URL\/v1\/blocks\/by_height\/\d+\?with_transactions=true: transactions\[\d+\]\.(gas_unit_price: must be a u64 as a decimal string \(got \d+\)|block_height)/,
      ),
    );
    expect(messages).toContainEqual(
      expect.stringMatching(/GasScheduleV2\?ledger_version=\d+: data\.entries: /),
    );
  });

  it("serves the same estimates as replaying the chain, through a fault storm", async () => {
    const node = await fakeNode({ blocks: 150, seed: 5, pageSize: 16 });
    node.grow(4, 1);
    // Not on the gas schedule: a read of it given up (after 2 × timeoutMs, which a loaded machine
    // reaches) hands the epoch's blocks on with the previous minimum, as documented, and the
    // estimates then differ from the replay's for a reason this test is not about.
    node.storm({ rate: 0.3, seed: 11, routes: ["ledger", "block", "transactions", "other"] });
    const { source$, events, from } = follow(node, { backfillBlocks: 121, timeoutMs: 250 });
    const engine = createEngine({ strategy: aip34() });
    const lines: string[] = [];
    engine.snapshots$.subscribe((s) => lines.push(estimateLine(s.ledger.blockHeight, s.estimate!)));
    const done = new Promise<void>((resolve) => engine.events$.subscribe({ complete: resolve }));
    const sub = engine.connect(source$.pipe(take(221)));
    await until(() => expect(engine.sourcesCompleted).toBe(true));
    sub.unsubscribe();
    engine.close();
    await done;
    node.storm(undefined);
    expect(retries(events).length).toBeGreaterThan(20);
    const outcomes = new Set(node.requests.map((r) => r.outcome));
    for (const kind of [
      "status",
      "rate_limit",
      "stall",
      "drop",
      "truncate",
      "malformed",
      "wrong_type",
    ])
      expect(outcomes).toContain(kind);
    expect(engine.counters()).toMatchObject({ accepted: 221, duplicate: 0, rejected: 0 });
    expect(events.filter((e) => e.type === "min_gas_unit_price_pending")).toEqual([]);

    const dir = mkdtempSync(join(tmpdir(), "gasdigest-aptos-"));
    const file = join(dir, "chain.ndjson");
    const chain = node.chain.expectedSamples(from(), from() + 220n);
    writeFileSync(
      file,
      chain.map((b) => `${serializeBlockSample(parseBlockSample(b))}\n`).join(""),
    );
    const replayed = await runCli(["replay", "--input", file]);
    expect(replayed.code).toBe(0);
    expect(lines.join("\n")).toBe(replayed.stdout.trim());
  }, 40_000);

  it("reads the minimum gas unit price at the first block and at every epoch change", async () => {
    const node = await fakeNode({ blocks: 120, epochLength: 20, seed: 3 });
    const { source$, events, from } = follow(node, { backfillBlocks: 60 });
    const got = await collect(source$, 60);
    expect(asJson(got)).toEqual(expected(node, from(), node.chain.tip));
    const reads = events.flatMap((e) => (e.type === "min_gas_unit_price" ? [e] : []));
    // Heights 1060..1119 with 20 blocks per epoch: epochs 54, 55, 56 start at 1060, 1080, 1100.
    expect(reads.map((r) => [r.height, r.epoch, r.value, r.previous])).toEqual([
      [1060n, 54n, 150n, undefined],
      [1080n, 55n, 100n, 150n],
      [1100n, 56n, 150n, 100n],
    ]);
    const gas = node.requests.filter((r) => r.route === "gas").map((r) => r.path);
    expect(gas).toHaveLength(3);
    expect(gas[1]).toBe(
      `/v1/accounts/0x1/resource/0x1::gas_schedule::GasScheduleV2?ledger_version=${node.chain.block(1080n)!.firstVersion}`,
    );
  });

  it("waits on a 404 for an announced block and asks again, without counting it a fault", async () => {
    const node = await fakeNode({ blocks: 60 });
    node.inject({ kind: "status", status: 404 }, { route: "block", times: 3 });
    const { source$, events, from } = follow(node, { backfillBlocks: 10 });
    const got = await collect(source$, 10);
    expect(asJson(got)).toEqual(expected(node, from(), node.chain.tip));
    expect(retries(events)).toEqual([]);
    expect(node.requests.filter((r) => r.outcome === "status")).toHaveLength(3);
  });

  it("survives the node going away and coming back on the same port, then catches up", async () => {
    const node = await fakeNode({ blocks: 60 });
    const { source$, events, from } = follow(node, { backfillBlocks: 10, unreachableAfter: 3 });
    const got: BlockSample[] = [];
    const sub = source$.subscribe((b) => got.push(b));
    await until(() => expect(events.some((e) => e.type === "caught_up")).toBe(true));
    await node.stop();
    node.chain.addBlocks(40);
    await until(() => expect(events.some((e) => e.type === "unreachable")).toBe(true));
    await new Promise((r) => setTimeout(r, 200));
    await node.start();
    await until(() => expect(got.length).toBe(50));
    sub.unsubscribe();
    expect(asJson(got)).toEqual(expected(node, from(), node.chain.tip));
    const types = events.map((e) => e.type).filter((t) => t !== "retrying");
    expect(types).toEqual([
      "started",
      "min_gas_unit_price",
      "caught_up",
      "unreachable",
      "recovered",
      ...types.slice(5, -1).filter((t) => t === "min_gas_unit_price"),
      "caught_up",
    ]);
    const recovered = events.find((e) => e.type === "recovered")!;
    expect(recovered).toMatchObject({ type: "recovered" });
    expect((recovered as { downMs: number }).downMs).toBeGreaterThanOrEqual(200);
    expect(events.at(-1)).toMatchObject({ type: "caught_up", blocks: 40 });
  });

  it('a node URL on a Fetch standard "bad port" is refused when the source is made, naming the port and what to do', () => {
    // Node's fetch refuses these ports before it connects, on every request: the source retried
    // for ever. Refused with the other problems of the call, by the field it is in.
    const refused = (port: number) =>
      `port ${port} is one of the Fetch standard's "bad ports", which fetch refuses to connect to: no request would reach the node; serve it on another port (or behind a proxy on one), or pass a fetch of your own that can reach it`;
    const issues = (url: string, options = {}) => {
      try {
        aptosRest(url, options);
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidConfigError);
        return (e as InvalidConfigError).issues.map(({ path, message }) => ({ path, message }));
      }
      return [];
    };
    expect(issues("http://127.0.0.1:6666/v1", { concurrency: 0 })).toEqual([
      { path: "url", message: refused(6666) },
      { path: "concurrency", message: "must be a whole number of requests from 1 to 64, got 0" },
    ]);
    for (const url of [
      "http://127.0.0.1:1",
      "http://node.example:9/v1",
      "http://[::1]:6000",
      "https://node.example:993/v1",
      "http://user:pass@node.example:10080/v1",
    ])
      expect(issues(url), url).toEqual([
        { path: "url", message: refused(Number(new URL(url).port)) },
      ]);
    // The ports next to them, and the default ports, are taken.
    for (const url of ["http://127.0.0.1:6670", "http://node.example:8080", "https://node.example"])
      expect(issues(url), url).toEqual([]);
    // A fetch of the caller's may reach such a port: its URL is taken.
    expect(issues("http://127.0.0.1:6666", { fetch: async () => new Response("{}") })).toEqual([]);
  });

  /** The error of the first retry of a source on `url`, stopped then. */
  async function firstRetry(url: string, options: AptosRestOptions): Promise<SourceRequestError> {
    const events: AptosRestEvent[] = [];
    const sub = aptosRest(url, {
      initialBackoffMs: 5,
      maxBackoffMs: 5,
      ...options,
      onEvent: (e) => events.push(e),
    }).subscribe({ error: () => {} });
    try {
      await until(() => expect(events.some((e) => e.type === "retrying")).toBe(true));
    } finally {
      sub.unsubscribe();
    }
    return (events.find((e) => e.type === "retrying") as { error: SourceRequestError }).error;
  }

  it("a bad port that fetch refuses at run time (a fetch of the caller's that is node's) is named so", async () => {
    // Nothing is asked of the network: fetch refuses port 6666 before it connects.
    const error = await firstRetry("http://127.0.0.1:6666/v1", {
      fetch: (input, init) => fetch(input, init),
    });
    expect(error).toMatchObject({ kind: "network" });
    expect(error.details).toBe(
      'bad port: fetch refuses to connect to port 6666, one of the Fetch standard\'s "bad ports", and will on every retry; serve the node on another port (or behind a proxy on one), or pass a fetch that can reach it',
    );
  });

  it("a followed redirect to a bad port is named so, not as the port of the node's URL", async () => {
    // It read "fetch refuses to connect to port <the node's own port>": a port fetch takes.
    const server = createServer((req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:6666${req.url}` }).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    let error: SourceRequestError;
    try {
      error = await firstRetry(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, {
        followRedirects: true,
      });
    } finally {
      server.close();
    }
    expect(error).toMatchObject({ kind: "network" });
    expect(error.details).toBe(
      "bad port: a redirect led to a port fetch refuses to connect to (one of the Fetch standard's \"bad ports\"), and will on every retry; have the node redirect to another port, or turn followRedirects (--follow-redirects) off (the fault then names the redirect's Location)",
    );
  });

  it("reports a node that answers its ledger info but no block as unreachable once, and back once blocks come", async () => {
    const node = await fakeNode({ blocks: 60 });
    const { source$, events, from } = follow(node, { backfillBlocks: 10, unreachableAfter: 3 });
    const got: BlockSample[] = [];
    const sub = source$.subscribe((b) => got.push(b));
    await until(() => expect(got).toHaveLength(10));
    // New blocks, every answer for them of the wrong type for a while, while the tip is read
    // (and answered) in the background all along.
    node.inject({ kind: "wrong_type" }, { route: "block", times: 30 });
    const ledgerReads = node.requests.filter((r) => r.route === "ledger").length;
    node.chain.addBlocks(5);
    await until(() => expect(got).toHaveLength(15));
    sub.unsubscribe();
    expect(asJson(got)).toEqual(expected(node, from(), node.chain.tip));
    expect(node.requests.filter((r) => r.route === "ledger").length - ledgerReads).toBeGreaterThan(
      3,
    );
    const types = events.map((e) => e.type).filter((t) => t !== "retrying");
    expect(types.filter((t) => t === "unreachable")).toHaveLength(1);
    expect(types.filter((t) => t === "recovered")).toHaveLength(1);
    // Back only once the blocks came.
    const back = events.findIndex((e) => e.type === "recovered");
    const lastRetry = events.findLastIndex((e) => e.type === "retrying");
    expect(back).toBeGreaterThan(lastRetry);
  });

  it("skips heights the node pruned while it was away (410), logging the skip", async () => {
    const node = await fakeNode({ blocks: 60 });
    const { source$, events, from } = follow(node, { backfillBlocks: 10 });
    const got: BlockSample[] = [];
    const sub = source$.subscribe((b) => got.push(b));
    await until(() => expect(got.length).toBe(10));
    await node.stop();
    node.chain.addBlocks(200);
    node.chain.prune(node.chain.tip - 29n);
    await node.start();
    await until(() => expect(got.length).toBe(40));
    sub.unsubscribe();
    const oldest = node.chain.oldest;
    expect(events).toContainEqual({ type: "pruned_skip", from: from() + 10n, to: oldest });
    expect(asJson(got)).toEqual([
      ...expected(node, from(), from() + 9n),
      ...expected(node, oldest, node.chain.tip),
    ]);
    expect(node.requests.some((r) => r.outcome === 410)).toBe(true);
    // The fake node answers a block it served before (and cached) with 410 once it is pruned.
    const blockUrl = (h: bigint) => `${node.url}/v1/blocks/by_height/${h}?with_transactions=true`;
    expect((await fetch(blockUrl(oldest))).status).toBe(200);
    node.chain.prune(oldest + 1n);
    expect((await fetch(blockUrl(oldest))).status).toBe(410);
  });

  it("starts at startHeight instead of backfilling, and handles the genesis block", async () => {
    const node = await fakeNode({ blocks: 30, firstHeight: 0 });
    const { source$ } = follow(node, { startHeight: 0 });
    const got = await collect(source$, 30);
    expect(got[0]).toMatchObject({ height: 0n, epoch: 0n, gasUnitPrices: [] });
    expect(asJson(got)).toEqual(expected(node, 0n, 29n));
  });

  it("cancels requests in flight and timers when unsubscribed", async () => {
    const node = await fakeNode({ blocks: 30 });
    node.inject({ kind: "stall" }, { route: "ledger" });
    const { source$ } = follow(node, { timeoutMs: 60_000 });
    const sub = source$.subscribe();
    await until(() => expect(node.openRequests).toBe(1));
    sub.unsubscribe();
    await until(() => expect(node.openRequests).toBe(0));

    // A source waiting out a backoff while the node is down never calls again.
    await node.stop();
    const waiting = follow(node, { initialBackoffMs: 300, maxBackoffMs: 300 });
    const sub2 = waiting.source$.subscribe();
    await until(() => expect(retries(waiting.events).length).toBe(1));
    sub2.unsubscribe();
    await node.start();
    const before = node.requests.length;
    await new Promise((r) => setTimeout(r, 500));
    expect(node.requests.length).toBe(before);
  });

  it("honours Retry-After in seconds and as an HTTP date", async () => {
    const node = await fakeNode({ blocks: 30 });
    const date = "Tue, 21 Oct 2025 07:28:00 GMT"; // after the fake chain's blocks (2023): a node time ahead is refused
    node.inject({ kind: "rate_limit", retryAfter: "1" }, { route: "ledger" });
    node.inject({ kind: "rate_limit", retryAfter: date }, { route: "ledger" });
    node.inject({ kind: "rate_limit" }, { route: "ledger" });
    const { source$, events } = follow(node, {
      maxRetryAfterMs: 60_000,
      now: () => Date.parse(date) - 300,
      backfillBlocks: 1,
    });
    await collect(source$, 1);
    // No Retry-After: the backoff, 2 ms for the third attempt at random 0.5 would be 4*0.75=3.
    expect(retries(events).map((e) => [e.attempt, e.delayMs])).toEqual([
      [1, 1000],
      [2, 300],
      [3, 6],
    ]);
  });
});
