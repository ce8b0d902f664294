import type { AddressInfo } from "node:net";
import { createServer as createNetServer } from "node:net";
import { describe, expect, it } from "vitest";
import type { BlockSample } from "../../src/core/blockSample.js";
import { answerLimits, attemptRequest } from "../../src/sources/aptosRest/attemptRequest.js";
import { createEpochPrices } from "../../src/sources/aptosRest/createEpochPrices.js";
import type { CallMode, NodeClient } from "../../src/sources/aptosRest/createNodeClient.js";
import { pruneUnread } from "../../src/sources/aptosRest/pruneUnread.js";
import { describeAptosRestEvent, InvalidResponseError } from "../../src/sources/aptosRest.js";
import type { Fault } from "./fakeNode.js";
import {
  asJson,
  collect,
  expected,
  fakeNode,
  follow,
  followScripted,
  retries,
  until,
} from "./followHelpers.js";
import { block, gasSchedule, heightOf, ledger } from "./scriptedNode.js";

const MIB = 1024 * 1024;
const invalidAnswers = (events: Parameters<typeof retries>[0]) =>
  retries(events).flatMap((e) => (e.error instanceof InvalidResponseError ? [e.error] : []));

/** The right answer, sent with `headers` added, or with `body` instead of its own. */
const replace = (options: { headers?: Record<string, string>; body?: string }): Fault => ({
  kind: "replace",
  respond: (right) => ({
    status: right.status,
    headers: options.headers,
    body: options.body ?? JSON.stringify(right.body),
  }),
});

describe("aptosRest: a node that changes chains", () => {
  it("refuses every answer whose X-Aptos-Chain-Id names another chain, and keeps the chain it follows", async () => {
    const node = await fakeNode({ blocks: 60 });
    node.inject(replace({ headers: { "x-aptos-chain-id": "5" } }), { route: "block", times: 3 });
    // U+009B is a terminal's CSI in one byte: echoed raw, it reached stderr and the logs.
    node.inject(replace({ headers: { "x-aptos-chain-id": "four\u009b31m" } }), {
      route: "transactions",
      times: 1,
    });
    // Sent twice by a proxy: the same chain, accepted; two different ids are not.
    node.inject(replace({ headers: { "x-aptos-chain-id": "4, 4" } }), { route: "block", times: 2 });
    node.inject(replace({ headers: { "x-aptos-chain-id": "4, 5" } }), { route: "block", times: 1 });
    const { source$, events, from } = follow(node, { backfillBlocks: 20 });
    const got = await collect(source$, 20);
    // The right blocks, every one stamped chain 4: none of the refused answers was used.
    expect(asJson(got)).toEqual(expected(node, from(), node.chain.tip));
    const refused = invalidAnswers(events);
    expect(refused).toHaveLength(5);
    expect(refused.filter((e) => e.issues[0]!.message.startsWith("is 5"))).toHaveLength(3);
    expect(refused[0]!.shortMessage).toMatch(
      /^invalid response from .+\/v1\/blocks\/by_height\/\d+\?with_transactions=true: X-Aptos-Chain-Id: is 5, but the source started on chain 4 \(the URL now leads to another network\)$/,
    );
    expect(
      refused.filter((e) => e.issues[0]!.message === 'must be a chain id 0..255 (got "4, 5")'),
    ).toHaveLength(1);
    expect(refused.find((e) => e.url.includes("/transactions?"))!.issues).toEqual([
      {
        path: "X-Aptos-Chain-Id",
        message: 'must be a chain id 0..255 (got "four\\u009b31m")',
        code: "custom",
      },
    ]);
  });
});

describe("aptosRest: a first answer that names two chains", () => {
  it("is refused, naming both, and the source starts on the chain the next answers agree on", async () => {
    // The header says 5 where the body says 4: taking the body's chain would refuse every
    // later answer (header 4 from then on) as another network's, for ever.
    const node = await fakeNode({ blocks: 40 });
    node.inject(replace({ headers: { "x-aptos-chain-id": "5" } }), { route: "ledger", times: 1 });
    const { source$, events, from } = follow(node, { backfillBlocks: 10 });
    const got = await collect(source$, 10);
    expect(asJson(got)).toEqual(expected(node, from(), node.chain.tip));
    expect(invalidAnswers(events).map((e) => e.issues)).toEqual([
      [
        {
          path: "chain_id",
          message:
            "is 4, but the answer's X-Aptos-Chain-Id header is 5: the answer names two chains",
          code: "custom",
        },
      ],
    ]);
  });
});

describe("aptosRest: an answer that is not HTTP", () => {
  it("is told apart from a node that cannot be reached", async () => {
    const options = {
      fetch: globalThis.fetch,
      timeoutMs: 5_000,
      maxResponseBytes: MIB,
      followRedirects: false,
      now: Date.now,
      headers: {},
      limits: answerLimits(MIB),
    };
    const answers = {
      "a status line the client cannot take": "HTTP/1.1 099 low\r\nContent-Length: 0\r\n\r\n",
      "no HTTP at all": "hello there\r\n\r\n",
      "a header line of 1 MiB": `HTTP/1.1 200 OK\r\nX-Big: ${"a".repeat(MIB)}\r\n\r\n`,
      "2,000 informational answers": `${"HTTP/1.1 100 Continue\r\n\r\n".repeat(2_000)}HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}`,
      "a protocol switch nobody asked for":
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: upgrade\r\n\r\n",
      "2,000 content codings": `HTTP/1.1 200 OK\r\nContent-Encoding: ${Array(2_000).fill("gzip").join(", ")}\r\nContent-Length: 2\r\n\r\n{}`,
    };
    for (const [what, text] of Object.entries(answers)) {
      const server = createNetServer((socket) => {
        socket.on("error", () => {});
        socket.once("data", () => socket.end(text));
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      try {
        const r = await attemptRequest(
          options,
          url,
          () => ({ ok: true, value: 0 }),
          [],
          new AbortController().signal,
        );
        expect(r.ok, what).toBe(false);
        if (!r.ok)
          expect(r.error.message, what).toMatch(
            /^the answer from .+ is not HTTP the client can read/,
          );
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });
});

describe("aptosRest: bodies built to be expensive to parse", () => {
  // With a cap of 1 MiB a body may hold 4096 objects or arrays, 16,384 members and as many
  // values, at most 4096 members in one object.
  const cases: [string, string, string][] = [
    ["300,000 empty objects", `[${"{},".repeat(300_000)}{}]`, "more than 4096 objects or arrays"],
    [
      "nesting 400,000 deep",
      `${"[".repeat(400_000)}${"]".repeat(400_000)}`,
      "more than 4096 objects or arrays",
    ],
    [
      "32,000 members in 2,000 objects",
      `[${Array.from({ length: 2_000 }, () => `{${[..."abcdefghijklmnop"].map((k) => `"${k}":0`)}}`)}]`,
      "more than 16384 object members",
    ],
    [
      "5,000 members of one object",
      `{${Array.from({ length: 5_000 }, (_, i) => `"k${i}":0`).join(",")}}`,
      "an object of more than 4096 members",
    ],
    ["an array of 400,000 numbers", `[${"0,".repeat(400_000)}0]`, "more than 16384 values"],
  ];
  it.each(cases)(
    "refuses %s before building it, naming the count, and retries",
    async (_, body, what) => {
      expect(body.length).toBeLessThan(MIB);
      const node = await fakeNode({ blocks: 40 });
      node.inject(replace({ body }), { route: "block", times: 2 });
      const { source$, events, from } = follow(node, { backfillBlocks: 10, maxResponseBytes: MIB });
      const got = await collect(source$, 10);
      expect(asJson(got)).toEqual(expected(node, from(), node.chain.tip));
      const refused = invalidAnswers(events);
      expect(refused).toHaveLength(2);
      const { message } = refused[0]!.issues[0]!;
      expect(message.startsWith(`holds ${what}`)).toBe(true);
      expect(message).toContain(
        "(at most one object or array per 256 bytes of maxResponseBytes, one member and one value per 64, 4096 members per object, outside changes, events, signature, arguments, type_arguments, code, previous_block_votes_bitvec, failed_proposer_indices), so it is not parsed",
      );
    },
  );
});

describe("aptosRest: ordinary transactions that are all arrays", () => {
  it("reads blocks whose transactions carry millions of arrays in what it never reads (a vector<vector<u64>> argument renders [[],[],...])", async () => {
    const node = await fakeNode({ blocks: 40 });
    // Every user transaction of three block answers gets an argument of 300,000 empty vectors,
    // and a write set of as many: 4.2 million arrays in a 13 MB answer, over the 2 million
    // objects or arrays a 64 MiB cap allows, all of them in members the source never reads.
    const heavy: Fault = {
      kind: "replace",
      respond: (right) => {
        const body = right.body as { transactions?: Record<string, unknown>[] };
        for (const t of body.transactions ?? [])
          if (t.type === "user_transaction") {
            (t.payload as Record<string, unknown>).arguments = [Array(300_000).fill([])];
            t.changes = Array(300_000).fill([]);
          }
        return { status: right.status, body: JSON.stringify(body) };
      },
    };
    node.inject(heavy, { route: "block", times: 3 });
    const { source$, events, from } = follow(node, { backfillBlocks: 10 });
    const got = await collect(source$, 10);
    expect(asJson(got)).toEqual(expected(node, from(), node.chain.tip));
    expect(node.requests.filter((r) => r.outcome === "replace")).toHaveLength(3);
    expect(invalidAnswers(events)).toEqual([]);
  });
});

describe("aptosRest: a node whose tip goes back", () => {
  it("warns once when the tip stays below what it read, waits, and goes on when the node passes it again", async () => {
    const node = await fakeNode({ blocks: 60 });
    const { source$, events, from } = follow(node, { backfillBlocks: 10 });
    const got: BlockSample[] = [];
    const sub = source$.subscribe((b) => got.push(b));
    await until(() => expect(events.some((e) => e.type === "caught_up")).toBe(true));
    const read = node.chain.tip;
    // One ledger answer from a node a block behind (a load balancer): not worth a warning.
    const lagging = (right: { body: unknown }) => ({
      status: 200,
      body: JSON.stringify({ ...(right.body as object), block_height: String(read - 1n) }),
    });
    node.inject({ kind: "replace", respond: lagging }, { route: "ledger", times: 2 });
    await until(() => expect(node.requests.filter((r) => r.outcome === "replace")).toHaveLength(2));
    await until(() => expect(node.requests.at(-1)?.outcome).toBe(200));
    expect(events.filter((e) => e.type === "tip_behind")).toEqual([]);
    // A node restored from an older snapshot (tip 20 below), for a while.
    const older = (right: { body: unknown }) => ({
      status: 200,
      body: JSON.stringify({ ...(right.body as object), block_height: String(read - 20n) }),
    });
    node.inject({ kind: "replace", respond: older }, { route: "ledger", times: 1000 });
    await until(() =>
      expect(node.requests.filter((r) => r.outcome === "replace").length).toBeGreaterThan(12),
    );
    // Told once, and nothing claims it caught up while it lasts.
    const since = events.findIndex((e) => e.type === "tip_behind");
    expect(events.slice(since + 1).filter((e) => e.type !== "retrying")).toEqual([]);
    node.clearFaults();
    node.chain.addBlocks(5);
    await until(() => expect(got).toHaveLength(15));
    sub.unsubscribe();
    expect(asJson(got)).toEqual(expected(node, from(), node.chain.tip));
    const behind = events.filter((e) => e.type === "tip_behind");
    expect(behind).toEqual([{ type: "tip_behind", height: read, tip: read - 20n }]);
    expect(describeAptosRestEvent(behind[0]!)).toBe(
      `the node's tip went back to height ${read - 20n}, below height ${read} already read: waiting for it to pass ${read} again (a node restored from an older snapshot, or a lagging node behind a load balancer?)`,
    );
    // The end of the stretch is told once, when the node is back (not on every look while it
    // lasts): caught up at the height read, or past it if the new blocks came first.
    const after = events.slice(events.indexOf(behind[0]!) + 1).filter((e) => e.type !== "retrying");
    expect(after.map((e) => e.type)).toEqual(["caught_up"]);
    expect((after[0] as { height: bigint }).height).toBeGreaterThanOrEqual(read);
  });
});

describe("aptosRest: a node's bytes in messages", () => {
  it("writes no control character of an answer into an event's text (a terminal shows record's lines as they are)", async () => {
    let bad = 2;
    const fetch = async (input: string | URL | Request) => {
      const url = new URL(String(input));
      if (url.pathname === "/v1") return ledger(3);
      const h = heightOf(url);
      if (h === undefined) return gasSchedule();
      if (bad-- > 0) return new Response("\u001b]0;PWNED\u0007 \u001b[2J", { status: 200 });
      return block(h, 1, 10 * h);
    };
    const { events, heights, sub } = followScripted(fetch);
    try {
      await until(() => expect(heights).toEqual([1n, 2n, 3n]));
      const failed = retries(events);
      expect(failed.length).toBeGreaterThanOrEqual(2);
      for (const e of failed) {
        const line = describeAptosRestEvent(e);
        expect(line).toContain("not valid JSON");
        expect(line).toContain("\\u001b");
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the point of the check
        expect(line).not.toMatch(/[\u0000-\u001f\u007f]/);
      }
    } finally {
      sub.unsubscribe();
    }
  });
});

describe("createEpochPrices", () => {
  it("reads each epoch's price once per start, and keeps only the epochs it is told to", async () => {
    const asked: bigint[] = [];
    const client = {
      minGasUnitPrice: async (version: bigint) => {
        asked.push(version);
        return version * 10n;
      },
    } as unknown as NodeClient;
    const prices = createEpochPrices(client, new AbortController().signal);
    prices.prefetch(7n, 70n);
    expect(await prices.read(7n, 70n)).toBe(700n); // the prefetched read, not a second one
    // Epoch 7 seen starting at another version (a block claimed it early): read there too.
    expect(await prices.read(7n, 71n)).toBe(710n);
    expect(prices.size).toBe(2);
    // Epochs going down block after block: each drops the reads of the others.
    for (let e = 6n; e >= 1n; e--) {
      expect(await prices.read(e, e * 10n)).toBe(e * 100n);
      prices.retain(new Set([e]));
      expect(prices.size).toBe(1);
    }
    prices.prefetch(9n, 90n);
    prices.retain(new Set([1n, 9n])); // the epoch in force and one fetched ahead
    expect(prices.size).toBe(2);
    expect(asked).toEqual([70n, 71n, 60n, 50n, 40n, 30n, 20n, 10n, 90n]);
  });

  /** A read that fails `failing` times at once, then never answers until it is aborted. */
  const stuck = (failing: number) =>
    ({
      minGasUnitPrice: (_version: bigint, signal: AbortSignal, mode?: CallMode) =>
        new Promise((_resolve, reject) => {
          for (let i = 0; i < failing && !signal.aborted; i++) mode?.onFailure?.();
          if (signal.aborted) reject(signal.reason);
          else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        }),
    }) as unknown as NodeClient;

  it("gives a read up once it failed often enough and its time went by, or twice its time", async () => {
    const prices = createEpochPrices(stuck(0), new AbortController().signal);
    // Thirty stalled reads: each is given up at twice its time (a timer firing a fraction of a
    // millisecond early, by the clock, left some waiting for a failure that never came).
    const waits = Array.from({ length: 30 }, (_, i) => prices.readOrGiveUp(1n, BigInt(i), 3, 10));
    expect(await Promise.all(waits)).toEqual(Array(30).fill({ failures: 0 }));
    const failing = createEpochPrices(stuck(5), new AbortController().signal);
    expect(await failing.readOrGiveUp(2n, 20n, 3, 10)).toEqual({ failures: 5 });
  });

  it("a read given up is not waited for again: an epoch start seen again goes on at once", async () => {
    const prices = createEpochPrices(stuck(3), new AbortController().signal);
    expect(await prices.readOrGiveUp(1n, 10n, 3, 10)).toEqual({ failures: 3 });
    const again = await Promise.race([
      prices.readOrGiveUp(1n, 10n, 3, 10_000),
      new Promise((resolve) => setTimeout(() => resolve("still waiting"), 1_000)),
    ]);
    expect(again).toEqual({ failures: 3 });
  });
});

describe("pruneUnread", () => {
  it("replaces the value of every unread member with null, at any depth, and nothing else", () => {
    const text = JSON.stringify({
      block_height: "7",
      transactions: [
        {
          type: "user_transaction",
          payload: { type: "entry_function_payload", function: "0x1::a::b", arguments: [[1], "x"] },
          events: [{ data: { events: [1, 2] } }],
          changes: "a string value",
          signature: 12,
          gas_used: "7",
        },
        { type: "block_metadata_transaction", epoch: "3", previous_block_votes_bitvec: [255, 1] },
      ],
      note: 'a value that says "events": [1] and has a } in it',
      events_count: 2,
    });
    const pruned = JSON.parse(pruneUnread(text));
    expect(pruned).toEqual({
      block_height: "7",
      transactions: [
        {
          type: "user_transaction",
          payload: { type: "entry_function_payload", function: "0x1::a::b", arguments: null },
          events: null,
          changes: null,
          signature: null,
          gas_used: "7",
        },
        { type: "block_metadata_transaction", epoch: "3", previous_block_votes_bitvec: null },
      ],
      note: 'a value that says "events": [1] and has a } in it',
      events_count: 2,
    });
    // Whitespace around the colon, escaped quotes and brackets inside pruned strings.
    expect(pruneUnread('{"code" :  {"s":"\\"]}"}, "x":1, "events":true}')).toBe(
      '{"code" :null, "x":1, "events":null}',
    );
    // Text without such members comes back as it was; text that is not JSON stays so.
    expect(pruneUnread('{"a":[1,2]}')).toBe('{"a":[1,2]}');
    expect(() => JSON.parse(pruneUnread('{"changes":[[[}'))).toThrow(SyntaxError);
  });
});
