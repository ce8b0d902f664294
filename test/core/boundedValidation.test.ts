import { describe, expect, it } from "vitest";
import { createBacktest } from "../../src/backtest/index.js";
import { createIssueList, moreIssues } from "../../src/core/createIssueList.js";
import { MAX_ISSUES } from "../../src/core/errors.js";
import { parseHandlerOptions } from "../../src/http/handlerOptions.js";
import {
  aip34,
  createEngine,
  createOpenApiDocument,
  InvalidConfigError,
  parseGasConfig,
  resolveStrategy,
  safeParseBlockSample,
  ValidationError,
  type ValidationIssue,
} from "../../src/index.js";
import { parseMinGasUnitPrice } from "../../src/sources/aptosRest/schemas.js";
import { parseBlock, parseTransactionsPage } from "../../src/sources/aptosRest/transactions.js";
import { parseTDigestOptions } from "../../src/strategies/tdigestOptions.js";
import { block } from "../helpers/blocks.js";

/** The issues of a rejected block sample. */
function blockIssues(input: unknown): readonly ValidationIssue[] {
  const r = safeParseBlockSample(input);
  if (r.ok) throw new Error("expected the block to be rejected");
  return r.issues;
}

function configIssues(parse: () => unknown): readonly ValidationIssue[] {
  try {
    parse();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidConfigError);
    return (e as InvalidConfigError).issues;
  }
  throw new Error("expected a rejection");
}

/** Every issue list is short: the limit, one summary, and no message longer than a line. */
function expectBounded(issues: readonly ValidationIssue[], more?: number) {
  expect(issues.length).toBeLessThanOrEqual(MAX_ISSUES + 1);
  for (const i of issues) expect(i.message.length + i.path.length).toBeLessThan(300);
  if (more !== undefined)
    expect(issues.at(-1)).toEqual({
      path: "",
      code: "too_many_issues",
      message: `and ${more} more issues (not listed)`,
    });
}

describe("issue lists stop at 20 and count the rest", () => {
  it("lists the first 20 bad prices of a block and counts the other 199980", () => {
    const prices = Array.from({ length: 200_000 }, (_, i) => (i % 2 ? "x" : -1));
    const issues = blockIssues(block(1, { gas_unit_prices: prices as never }));
    expect(issues).toHaveLength(21);
    expect(issues[0]).toEqual({
      path: "gas_unit_prices[0]",
      message: "must not be negative (got -1)",
      code: "custom",
    });
    expect(issues[1]).toEqual({
      path: "gas_unit_prices[1]",
      message: 'must be a decimal u64 string of digits only (got "x")',
      code: "custom",
    });
    expect(issues[19]!.path).toBe("gas_unit_prices[19]");
    expectBounded(issues, 199_980);
  });

  it("counts issues across fields: both arrays, scalars and unknown keys", () => {
    const bad = Array(1000).fill("no");
    const unknown = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, 1]));
    const issues = blockIssues({
      ...block(1, { gas_unit_prices: bad, gas_used: bad }),
      height: "-1",
      ...unknown,
    });
    // 1 height + 1000 prices + 1000 gas + 5000 unknown keys = 7001; 20 listed.
    expectBounded(issues, 7001 - 20);
    expect(issues[0]!.path).toBe("height");
  });

  it("a few issues are all listed, with no summary", () => {
    const issues = blockIssues(block(1, { gas_unit_prices: ["1", "x", "y"], height: "z" }));
    expect(issues.map((i) => i.path)).toEqual([
      "height",
      "gas_unit_prices[1]",
      "gas_unit_prices[2]",
    ]);
  });

  it("caps the config's buckets, their order and unknown keys", () => {
    const buckets = Array.from({ length: 100_000 }, (_, i) => (i < 50_000 ? "x" : 100_000 - i));
    expectBounded(
      configIssues(() => parseGasConfig({ buckets })),
      50_000 - 20,
    );
    // Valid but descending: 99999 order issues.
    const descending = Array.from({ length: 100_000 }, (_, i) => 100_000 - i);
    const issues = configIssues(() => parseGasConfig({ buckets: descending }));
    expect(issues[0]!.message).toBe("buckets must be strictly ascending: 99999 follows 100000");
    expectBounded(issues, 99_999 - 20);
    const keys = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`x${i}`, 1]));
    expectBounded(
      configIssues(() => parseGasConfig(keys)),
      10_000 - 20,
    );
  });

  it("caps option validators: tdigest options and handler options", () => {
    const keys = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`x${i}`, 1]));
    expectBounded(
      configIssues(() => parseTDigestOptions(keys)),
      1000 - 20,
    );
    expectBounded(
      configIssues(() => parseHandlerOptions(keys as never)),
      1000 - 20,
    );
  });

  it("caps the checks written by hand too: one issue per unknown key or bad strategy", () => {
    const keys = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`x${i}`, 1]));
    const thrown = (f: () => unknown): readonly ValidationIssue[] => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(ValidationError);
        return (e as ValidationError).issues;
      }
      throw new Error("expected a rejection");
    };
    expectBounded(
      thrown(() => createEngine({ strategy: aip34(), ...keys })),
      1000 - 20,
    );
    expectBounded(
      thrown(() => createOpenApiDocument(keys as never)),
      1000 - 20,
    );
    expectBounded(
      thrown(() => resolveStrategy("aip34", keys as never)),
      1000 - 20,
    );
    const strategies = Array.from({ length: 1000 }, () => ({ strategy: 5 }));
    expectBounded(
      thrown(() => createBacktest({ strategies } as never)),
      1000 - 20,
    );
    // A list already cut keeps its summary, and one under the limit is kept whole.
    const cut = new InvalidConfigError([
      ...Array(20).fill({ path: "a", message: "b" }),
      moreIssues(7),
    ]);
    expect(cut.issues.at(-1)).toEqual(moreIssues(7));
    expect(cut.issues).toHaveLength(21);
  });

  it("echoes a huge bad option value in at most 80 characters", () => {
    const huge = "/".repeat(1_000_000);
    const [issue] = configIssues(() => parseHandlerOptions({ basePath: huge }));
    const shown = /\(got (.*)\)$/.exec(issue!.message)![1]!;
    expect(shown.length).toBeLessThanOrEqual(80);
    expect(shown).toMatch(/^"\/+…" \(1000000 characters\)$/);
    const [quantile] = configIssues(() =>
      parseTDigestOptions({ tiers: { deprioritized: { quantile: "q".repeat(10_000) } } }),
    );
    expect(quantile!.message).toMatch(/got "q+…" \(10000 characters\)$/);
  });
});

describe("field names taken from the input", () => {
  it("an unknown key of 5 MB or with terminal escapes is quoted, escaped and cut in the path", () => {
    const long = blockIssues({ ...block(1), ["k".repeat(5_000_000)]: 1 });
    expect(long).toHaveLength(1);
    expect(long[0]!.message).toBe("unknown field");
    expect(long[0]!.path.length).toBeLessThanOrEqual(82);
    expect(long[0]!.path).toMatch(/^\["k+…" \(5000000 characters\)\]$/);
    const escaped = blockIssues({ ...block(1), "\u001b[2J\u001b]0;owned\u0007key": 1 });
    expect(escaped[0]!.path).toBe('["\\u001b[2J\\u001b]0;owned\\u0007key"]');
    // Plain names stay as they were.
    expect(blockIssues({ ...block(1), colour: 1 })[0]!.path).toBe("colour");
    expect(configIssues(() => parseGasConfig({ "min gas": 1 }))[0]!.path).toBe('["min gas"]');
  });
});

describe("node answers with millions of bad items", () => {
  const answer = {
    block_height: "5",
    block_hash: "0x1",
    block_timestamp: "1",
    first_version: "10",
    last_version: "20",
  };

  it("a transaction list stops being checked after 20 issues", () => {
    const transactions = Array(1_000_000).fill(1);
    const r = parseBlock({ ...answer, transactions }, 5n);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toHaveLength(21);
    expect(r.issues[0]!.path).toBe("transactions[0]");
    expect(r.issues[20]).toEqual({
      path: "",
      code: "too_many_issues",
      message: "stopped after 20 issues; 999980 more transactions not checked",
    });
    const page = parseTransactionsPage(transactions, 10n, {
      height: 5n,
      timestampUsec: 1n,
      firstVersion: 10n,
      lastVersion: 2_000_000n,
      transactions: [],
    });
    expect(page.ok || page.issues.length).toBe(21);
  });

  it("a gas schedule with a million bad entries is counted, not listed", () => {
    const entries = Array(1_000_000).fill({ key: 1, val: "2" });
    const r = parseMinGasUnitPrice({ data: { feature_version: "1", entries } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues[0]).toEqual({
      path: "data.entries[0]",
      message: "must be an object { key, val } of two strings (got an object)",
      code: "custom",
    });
    expectBounded(r.issues, 1_000_000 - 20);
  });

  it("echoes a bad entry function name shortened", () => {
    const user = {
      type: "user_transaction",
      version: "11",
      gas_unit_price: "100",
      gas_used: "1",
      payload: { type: "entry_function_payload", function: "f".repeat(100_000) },
    };
    const meta = { type: "block_metadata_transaction", version: "10", epoch: "1" };
    const r = parseBlock({ ...answer, transactions: [meta, user] }, 5n);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues[0]!.message).toMatch(/\(got "f+…" \(100000 characters\)\)$/);
    expect(r.issues[0]!.message.length).toBeLessThan(200);
  });
});

describe("createIssueList", () => {
  it("builds messages only while under the limit, and merges summaries", () => {
    const list = createIssueList(2);
    let made = 0;
    for (let i = 0; i < 10; i++)
      list.report(() => {
        made++;
        return { path: `a[${i}]`, message: "bad" };
      });
    expect(made).toBe(2);
    expect(list.full).toBe(true);
    list.add([{ path: "b", message: "bad" }, moreIssues(100)]);
    expect(list.found).toBe(111);
    expect(list.issues().at(-1)!.message).toBe("and 109 more issues (not listed)");
  });
});
