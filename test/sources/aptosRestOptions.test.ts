import { describe, expect, it } from "vitest";
import { MAX_BLOCK_TRANSACTIONS } from "../../src/core/blockSample.js";
import type { InvalidConfigError } from "../../src/core/errors.js";
import { parseHandlerOptions } from "../../src/http/handlerOptions.js";
import { resolveAptosRestOptions } from "../../src/sources/aptosRest/options.js";
import { type AptosRestOptions, aptosRest, normaliseNodeUrl } from "../../src/sources/aptosRest.js";
import { noNodeUrl } from "../helpers/freePort.js";

/** A node URL nothing listens on (not port 1 or 9: Fetch "bad ports" are refused up front). */
const NO_NODE = await noNodeUrl();

/** The issues `aptosRest()` throws for `options` (none: `[]`). */
function optionIssues(options: AptosRestOptions, url = `${NO_NODE}/v1`) {
  try {
    aptosRest(url, options);
  } catch (e) {
    return (e as InvalidConfigError).issues.map(({ path, message }) => ({ path, message }));
  }
  return [];
}

const V8 = " (V8's longest string: an answer is read as one)";
const SAMPLE = " (the most user transactions a block sample holds)";

describe("aptosRest: the range of every numeric option", () => {
  // [option, what, min, max (undefined: 2^53-1), extra reason after the range]
  const ranges: [keyof AptosRestOptions, string, number, number | undefined, string][] = [
    ["backfillBlocks", "a whole number of blocks", 0, undefined, ""],
    ["pollIntervalMs", "a number of milliseconds", 0, 3_600_000, ""],
    ["concurrency", "a whole number of requests", 1, 64, ""],
    ["lookaheadBlocks", "a whole number of blocks", 1, 4096, ""],
    ["maxBlockTransactions", "a whole number of transactions", 1, 1_000_000, SAMPLE],
    ["timeoutMs", "a number of milliseconds", 1, 600_000, ""],
    ["hedgeAfterMs", "a number of milliseconds", 1, 600_000, ""],
    ["maxResponseBytes", "a whole number of bytes", 1024, 536_870_888, V8],
    ["initialBackoffMs", "a number of milliseconds", 1, 600_000, ""],
    ["maxBackoffMs", "a number of milliseconds", 1, 3_600_000, ""],
    ["maxRetryAfterMs", "a number of milliseconds", 0, 86_400_000, ""],
    ["unreachableAfter", "a whole number of requests", 1, undefined, ""],
  ];

  it.each(ranges)(
    "%s: below, above and not a number, each says the range and the value",
    (key, what, min, max, why) => {
      const expected = (got: string) => [
        {
          path: key,
          message: `must be ${what} from ${min} to ${max ?? "2^53-1"}${why}, got ${got}`,
        },
      ];
      // Keep the cross-checks quiet: lookaheadBlocks >= concurrency, initialBackoffMs <= maxBackoffMs.
      const others: Partial<Record<keyof AptosRestOptions, AptosRestOptions>> = {
        concurrency: { lookaheadBlocks: 4096 },
        lookaheadBlocks: { concurrency: 1 },
        initialBackoffMs: { maxBackoffMs: 3_600_000 },
        maxBackoffMs: { initialBackoffMs: 1 },
      };
      const quiet = others[key] ?? {};
      expect(optionIssues({ ...quiet, [key]: min - 1 })).toEqual(expected(String(min - 1)));
      const above = max === undefined ? 2 ** 53 : max + 1;
      expect(optionIssues({ ...quiet, [key]: above })).toEqual(expected(String(above)));
      expect(optionIssues({ ...quiet, [key]: "7" })).toEqual(expected('"7"'));
      expect(optionIssues({ ...quiet, [key]: min })).toEqual([]);
      if (max !== undefined) expect(optionIssues({ ...quiet, [key]: max })).toEqual([]);
    },
  );

  it("the audit's cases: a whole number above the maximum is not called a fraction", () => {
    expect(
      optionIssues({ concurrency: 65, lookaheadBlocks: 5000, maxBlockTransactions: 2e7 }),
    ).toEqual([
      { path: "concurrency", message: "must be a whole number of requests from 1 to 64, got 65" },
      {
        path: "lookaheadBlocks",
        message: "must be a whole number of blocks from 1 to 4096, got 5000",
      },
      {
        path: "maxBlockTransactions",
        message:
          "must be a whole number of transactions from 1 to 1000000 (the most user transactions a block sample holds), got 20000000",
      },
    ]);
    expect(optionIssues({ lookaheadBlocks: 2.5 })).toEqual([
      {
        path: "lookaheadBlocks",
        message: "must be a whole number of blocks from 1 to 4096, got 2.5",
      },
    ]);
    // A huge value is echoed short.
    expect(
      optionIssues({ concurrency: "9".repeat(1000) as unknown as number })[0]!.message,
    ).toMatch(/^must be a whole number of requests from 1 to 64, got "9+…" \(1000 characters\)$/);
  });
});

describe("aptosRest: a bad URL and bad options", () => {
  it("are reported together, the URL first, so one run shows every problem", () => {
    expect(optionIssues({ concurrency: 65, unreachableAfter: 0 }, "ftp://x/v1")).toEqual([
      { path: "url", message: 'must use http or https (got "ftp")' },
      { path: "concurrency", message: "must be a whole number of requests from 1 to 64, got 65" },
      {
        path: "unreachableAfter",
        message: "must be a whole number of requests from 1 to 2^53-1, got 0",
      },
    ]);
    // A bad URL with good options is still its own one problem.
    expect(optionIssues({}, "http://x/v1?q=1")).toEqual([
      { path: "url", message: "must not carry a query or fragment" },
    ]);
  });

  // A hang guard, not a speed claim: a regex cut the trailing slashes in quadratic time (100,000
  // slashes inside the path: 11.7 s; these 300,000 would take about 2 min).
  it("cuts the trailing slashes of a URL with a long run of them inside at once", {
    timeout: 10_000,
  }, () => {
    const slashes = "/".repeat(300_000);
    expect(normaliseNodeUrl(`http://node${slashes}x/v1//`)).toBe(`http://node${slashes}x`);
  });
});

describe("aptosRest: defaults that work together", () => {
  it("the longest Retry-After honoured leaves room under serve's staleness bound", () => {
    // Blocks are handed on in order: one block's wait holds every block behind it, and a wait
    // as long as the staleness bound turns one 429 into a 503 for the whole server.
    const source = resolveAptosRestOptions(`${NO_NODE}/v1`);
    const handler = parseHandlerOptions();
    expect(handler.maxStalenessMs).toBe(30_000);
    expect(source.maxRetryAfterMs + source.timeoutMs).toBeLessThan(
      handler.maxStalenessMs as number,
    );
  });
});

describe("aptosRest: maxBlockTransactions and the block sample", () => {
  it("lets no block through that the block sample would refuse (one ended the source for good)", () => {
    // A block spans its metadata transaction and its user transactions: with the option at its
    // maximum, a block holds at most MAX_BLOCK_TRANSACTIONS - 1 user transactions. Above it, a
    // node's block of 1,000,001 user transactions (paged in, 10,001 pages) made toBlockSample
    // throw and the Observable error: no fault of a node may end the stream.
    const max = resolveAptosRestOptions(`${NO_NODE}/v1`, {
      maxBlockTransactions: MAX_BLOCK_TRANSACTIONS,
    }).maxBlockTransactions;
    expect(max).toBe(MAX_BLOCK_TRANSACTIONS);
    expect(optionIssues({ maxBlockTransactions: MAX_BLOCK_TRANSACTIONS + 2 })).toEqual([
      {
        path: "maxBlockTransactions",
        message:
          "must be a whole number of transactions from 1 to 1000000 (the most user transactions a block sample holds), got 1000002",
      },
    ]);
  });
});
