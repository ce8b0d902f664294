import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { parseGasConfig } from "../../src/core/config.js";
import { InvalidConfigError } from "../../src/core/errors.js";
import { blockFullness } from "../../src/core/fullness.js";
import { resolveRedisStreamSinkOptions } from "../../src/sinks/redis/options.js";
import { backoffDelay, parseRetryAfter } from "../../src/sources/aptosRest/backoff.js";
import { requestSignal } from "../../src/sources/aptosRest/requestSignal.js";
import { parseLedgerInfo, parseMinGasUnitPrice } from "../../src/sources/aptosRest/schemas.js";
import { blockEpoch, toBlockSample } from "../../src/sources/aptosRest/toBlockSample.js";
import { parseBlock, parseTransactionsPage } from "../../src/sources/aptosRest/transactions.js";
import {
  aptosRest,
  aptosRestEventFields,
  describeAptosRestEvent,
  InvalidResponseError,
  resolveAptosRestOptions,
  SourceRequestError,
} from "../../src/sources/aptosRest.js";

/** The example block of node-rest-source.md. */
const docBlock = {
  block_height: "477445097",
  block_hash: "0x4232",
  block_timestamp: "1762134258889133",
  first_version: "3665938236",
  last_version: "3665938238",
  transactions: [
    {
      type: "block_metadata_transaction",
      version: "3665938236",
      epoch: "12345",
      round: "7",
      timestamp: "1762134258889133",
      gas_used: "0",
      success: true,
    },
    {
      type: "user_transaction",
      version: "3665938237",
      sender: "0xa550c18",
      gas_unit_price: "100",
      gas_used: "59",
      max_gas_amount: "2000",
      success: true,
      payload: {
        type: "entry_function_payload",
        function: "0x1::account::create_account",
        type_arguments: [],
        arguments: ["0x34bf"],
      },
      timestamp: "1762134258889133",
    },
    {
      type: "block_epilogue_transaction",
      version: "3665938238",
      gas_used: "0",
      success: true,
      block_end_info: {
        block_gas_limit_reached: false,
        block_output_limit_reached: false,
        block_effective_block_gas_units: 24,
        block_approx_output_size: 5759,
      },
    },
  ],
};

const user = (version: number, price: string, fn?: string) => ({
  type: "user_transaction",
  version: String(version),
  gas_unit_price: price,
  gas_used: "10",
  payload: fn
    ? { type: "entry_function_payload", function: fn, type_arguments: [], arguments: [] }
    : { type: "script_payload", code: { bytecode: "0x" } },
});

function block(txns: unknown[], over: Record<string, unknown> = {}) {
  return {
    block_height: "5",
    block_hash: "0x5",
    block_timestamp: "1000",
    first_version: "100",
    last_version: String(100 + txns.length - 1),
    transactions: txns,
    ...over,
  };
}
const meta = { type: "block_metadata_transaction", version: "100", epoch: "3" };

describe("reading the node's answers", () => {
  it("turns the documented example block into a block sample", () => {
    const r = parseBlock(docBlock, 477445097n);
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    const sample = toBlockSample(r.value, blockEpoch(r.value.transactions)!, {
      chainId: 1,
      minGasUnitPrice: 100n,
    });
    expect(sample).toMatchObject({
      height: 477445097n,
      epoch: 12345n,
      timestampUsec: 1762134258889133n,
      firstVersion: 3665938236n,
      lastVersion: 3665938238n,
      chainId: 1,
      minGasUnitPrice: 100n,
      gasUnitPrices: [100n],
      gasUsed: [59n],
      blockGasLimitReached: false,
      // Its one user transaction calls 0x1: the platform's use case, no contract's.
      majorityUseCaseFraction: 0,
    });
  });

  it("counts the majority contract over all user transactions, scripts included, one address however spelled", () => {
    const txns = [
      meta,
      user(101, "100", "0xBEEF::dex::swap"),
      user(
        102,
        "120",
        "0x000000000000000000000000000000000000000000000000000000000000beef::dex::add_liquidity",
      ),
      user(103, "150", "0xc0ffee::nft::mint"),
      user(104, "100"),
      { type: "validator_transaction", version: "105" },
      { type: "some_future_kind", version: "106", anything: [1] },
      { type: "state_checkpoint_transaction", version: "107" },
    ];
    const r = parseBlock(block(txns), 5n);
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    const s = toBlockSample(r.value, 3n, { chainId: 4, minGasUnitPrice: undefined });
    expect(s.gasUnitPrices).toEqual([100n, 120n, 150n, 100n]);
    expect(s.majorityUseCaseFraction).toBe(0.5);
    expect(s.blockGasLimitReached).toBeUndefined();
    expect(s.minGasUnitPrice).toBeUndefined();
  });

  it("counts calls to the special addresses 0x0-0xf as the platform's, not as a contract's, as the node does", () => {
    // 300 transfers through 0x1 and 0xa: to the node's gas estimation (and its use-case-aware
    // shuffler) that is the platform's use case, so the majority rule does not apply and the
    // block is full by its transaction count. Counted as one contract, it was "not full".
    const txns: unknown[] = [meta];
    for (let i = 0; i < 300; i++)
      txns.push(
        user(101 + i, "120", i % 3 ? "0x1::aptos_account::transfer" : "0x0a::coin::transfer"),
      );
    const r = parseBlock(block(txns), 5n);
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    const s = toBlockSample(r.value, 3n, { chainId: 4, minGasUnitPrice: 100n });
    expect(s.majorityUseCaseFraction).toBe(0);
    expect(blockFullness(s, parseGasConfig({}))).toEqual({ full: true, rule: "txn_count" });
    // 0x10 is the first address that is not special: a contract like any other.
    const past = [meta, ...[101, 102, 103].map((v) => user(v, "120", "0x10::m::f"))];
    const p = parseBlock(block(past), 5n);
    if (!p.ok) throw new Error(JSON.stringify(p.issues));
    expect(toBlockSample(p.value, 3n, { chainId: 4, minGasUnitPrice: 100n })).toMatchObject({
      majorityUseCaseFraction: 1,
    });
  });

  it("counts an encrypted transaction decrypted to an entry function by its module, as the node does", () => {
    const encrypted = (version: number, decrypted?: unknown) => ({
      ...user(version, "120"),
      payload: {
        type: "encrypted_transaction_payload",
        payload_hash: "0x1234",
        encrypted_state: decrypted ? "decrypted" : "encrypted",
        ...(decrypted ? { decrypted_payload: decrypted } : {}),
      },
    });
    const swap = { type: "entry_function_payload", function: "0xBEEF::dex::swap" };
    const txns = [
      meta,
      encrypted(101, swap),
      encrypted(102, swap),
      user(103, "120", "0xbeef::dex::swap"),
      encrypted(104), // still encrypted: no contract
      encrypted(105, { type: "entry_function_payload", function: 7 }), // not readable: none
    ];
    const r = parseBlock(block(txns), 5n);
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    const s = toBlockSample(r.value, 3n, { chainId: 4, minGasUnitPrice: 100n });
    expect(s.gasUnitPrices).toHaveLength(5);
    expect(s.majorityUseCaseFraction).toBe(0.6);
  });

  it("takes either limit flag of the block epilogue as the block having hit its limit", () => {
    const end = (gas: boolean, output: boolean) => ({
      type: "block_epilogue_transaction",
      version: "101",
      block_end_info: { block_gas_limit_reached: gas, block_output_limit_reached: output },
    });
    const flag = (t: unknown) => {
      const r = parseBlock(block([meta, t]), 5n);
      if (!r.ok) throw new Error(JSON.stringify(r.issues));
      return toBlockSample(r.value, 3n, { chainId: 4, minGasUnitPrice: 1n }).blockGasLimitReached;
    };
    expect(flag(end(false, false))).toBe(false);
    expect(flag(end(true, false))).toBe(true);
    expect(flag(end(false, true))).toBe(true);
    expect(flag({ type: "block_epilogue_transaction", version: "101", block_end_info: null })).toBe(
      undefined,
    );
  });

  it("takes the epilogue's counters, which it does not read, as JSON numbers or u64 strings", () => {
    const end = (units: unknown) => ({
      type: "block_epilogue_transaction",
      version: "101",
      block_end_info: {
        block_gas_limit_reached: true,
        block_output_limit_reached: false,
        block_effective_block_gas_units: units,
        block_approx_output_size: 5759,
      },
    });
    // u64::MAX as the JSON integer a node writes: past 2^53, rounded by JSON.parse, still a u64.
    const max = JSON.parse("18446744073709551615");
    for (const units of [24, "24", undefined, max])
      expect(parseBlock(block([meta, end(units)]), 5n).ok).toBe(true);
    for (const units of [1.5, 2 ** 65, "18446744073709551616"])
      expect(parseBlock(block([meta, end(units)]), 5n).ok).toBe(false);
    const bad = parseBlock(block([meta, end(-1)]), 5n);
    expect(bad.ok ? [] : bad.issues.map((i) => [i.path, i.message])).toEqual([
      [
        "transactions[1].block_end_info.block_effective_block_gas_units",
        "must be a whole number >= 0, as a JSON number or a u64 string (got -1)",
      ],
    ]);
  });

  it("rejects answers that do not fit, naming every field path", () => {
    const bad = block([
      { ...meta, epoch: 3 },
      { ...user(101, "-5", "0x1::coin::transfer") },
      { ...user(102, "100", "transfer") },
      { type: "user_transaction", version: "104", gas_unit_price: "1", gas_used: "1", payload: {} },
    ]);
    const r = parseBlock(bad, 5n);
    expect(r.ok ? [] : r.issues).toEqual([
      {
        path: "transactions[0].epoch",
        message: "must be a u64 as a decimal string (got 3)",
        code: "invalid_type",
      },
      {
        path: "transactions[1].gas_unit_price",
        message: 'must not be negative (got "-5")',
        code: "invalid_format",
      },
      {
        path: "transactions[2].payload.function",
        message: 'must be an entry function "<address>::<module>::<function>" (got "transfer")',
      },
      { path: "transactions[3].payload.type", message: "required", code: "invalid_type" },
    ]);
    const huge = parseBlock(block([meta, user(101, "18446744073709551616")]), 5n);
    expect(huge.ok ? [] : huge.issues).toEqual([
      {
        path: "transactions[1].gas_unit_price",
        message: "must be at most 2^64-1 (got 18446744073709551616)",
        code: "custom",
      },
    ]);
    expect(parseBlock(block([meta]), 6n)).toEqual({
      ok: false,
      issues: [{ path: "block_height", message: "must be the height asked for (6), got 5" }],
    });
    const gap = parseBlock(block([meta, user(102, "1")], { last_version: "105" }), 5n);
    expect(gap.ok ? [] : gap.issues).toEqual([
      {
        path: "transactions[1].version",
        message: "must be 101 (versions run on without gaps), got 102",
      },
    ]);
    // Past a gap every version is off: only the first one is reported.
    const gapFirst = parseBlock(
      block([meta, user(102, "1"), user(103, "1"), user(104, "1")], { last_version: "105" }),
      5n,
    );
    expect(gapFirst.ok ? [] : gapFirst.issues).toEqual(gap.ok ? [] : gap.issues);
    const noMeta = parseBlock(block([{ ...user(100, "1") }]), 5n);
    expect(noMeta.ok ? [] : noMeta.issues).toEqual([
      {
        path: "transactions[0].type",
        message:
          "must be block_metadata_transaction (a block's first transaction carries its epoch)",
      },
    ]);
  });

  it("refuses a block spanning more versions than maxBlockTransactions, before paging through them", () => {
    const huge = block([meta], { last_version: String(100 + 1e15) });
    expect(parseBlock(huge, 5n)).toEqual({
      ok: false,
      issues: [
        {
          path: "last_version",
          message:
            "must be within 100000 versions of first_version (100: maxBlockTransactions), got 1000000000000100, a block of 1000000000000001 transactions",
        },
      ],
    });
    const three = block([meta, user(101, "100"), user(102, "100")]);
    expect(parseBlock(three, 5n, 3).ok).toBe(true);
    expect(parseBlock(three, 5n, 2).ok).toBe(false);
  });

  it("checks a transactions page continues the block where it was cut", () => {
    const b = parseBlock(block([meta], { last_version: "103" }), 5n);
    if (!b.ok) throw new Error("block");
    expect(parseTransactionsPage([], 101n, b.value)).toEqual({
      ok: false,
      issues: [
        { path: "", message: "must hold the transaction at version 101, got an empty list" },
      ],
    });
    expect(parseTransactionsPage({}, 101n, b.value)).toMatchObject({ ok: false });
    const page = parseTransactionsPage(
      [user(101, "7"), user(102, "8"), user(103, "9"), user(104, "10")],
      101n,
      b.value,
    );
    expect(page.ok && page.value.map((t) => t.version)).toEqual([101n, 102n, 103n]);
    // The next block's metadata inside the range: the block runs into the next one.
    const into = parseTransactionsPage(
      [user(101, "7"), { ...meta, version: "102" }, user(103, "9")],
      101n,
      b.value,
    );
    expect(into.ok ? [] : into.issues).toEqual([
      {
        path: "[1].type",
        message:
          "must not be block_metadata_transaction at version 102: it starts another block, so the block's last_version (103) runs into the next block",
      },
    ]);
  });

  it("refuses a block whose last_version runs into the next block (its transactions would count twice)", () => {
    const next = { ...meta, version: "102", epoch: "3" };
    const over = parseBlock(block([meta, user(101, "100"), next, user(103, "200")]), 5n);
    expect(over.ok ? [] : over.issues).toEqual([
      {
        path: "transactions[2].type",
        message:
          "must not be block_metadata_transaction at version 102: it starts another block, so the block's last_version (103) runs into the next block",
      },
    ]);
    const end = { type: "block_epilogue_transaction", version: "101", block_end_info: null };
    const early = parseBlock(block([meta, end, user(102, "100")]), 5n);
    expect(early.ok ? [] : early.issues).toEqual([
      {
        path: "transactions[1].type",
        message:
          "must not be block_epilogue_transaction at version 101: it ends the block, whose last_version is 102",
      },
    ]);
    // The epilogue at the last version is the block's end, as the documented example has it.
    expect(parseBlock(block([meta, user(101, "100"), { ...end, version: "102" }]), 5n).ok).toBe(
      true,
    );
  });

  it("says a u64 sent as a JSON number past 2^53 is not exact, rather than echo rounded digits", () => {
    const r = parseBlock(block([meta, { ...user(101, "1"), gas_unit_price: 2 ** 64 }]), 5n);
    expect(r.ok ? [] : r.issues).toMatchObject([
      {
        path: "transactions[1].gas_unit_price",
        message:
          "must be a u64 as a decimal string (got a JSON number, about 1.84467e+19, beyond 2^53 and so not exact)",
      },
    ]);
    // A huge negative number is an integer to JavaScript, but no u64 at any precision.
    const negative = parseBlock(block([meta, { ...user(101, "1"), gas_unit_price: -1.5e300 }]), 5n);
    const said = negative.ok ? "" : (negative.issues[0]?.message ?? "");
    expect(said).toMatch(/^must be a u64 as a decimal string \(got /);
    expect(said).not.toContain("not exact");
    // 1e400 in the node's text is Infinity once parsed: no number of digits at all.
    const endless = parseBlock(block([meta, { ...user(101, "1"), gas_unit_price: Infinity }]), 5n);
    expect(endless.ok ? "" : endless.issues[0]?.message).toBe(
      "must be a u64 as a decimal string (got Infinity)",
    );
  });

  it("reads the ledger info, refusing another chain or an oldest height above the tip", () => {
    const info = {
      chain_id: 1,
      epoch: "9",
      ledger_version: "500",
      oldest_ledger_version: "0",
      ledger_timestamp: "1",
      node_role: "full_node",
      oldest_block_height: "0",
      block_height: "40",
    };
    expect(parseLedgerInfo(info)).toMatchObject({
      ok: true,
      value: { chainId: 1, blockHeight: 40n },
    });
    expect(parseLedgerInfo(info, 2)).toEqual({
      ok: false,
      issues: [{ path: "chain_id", message: "is 1, but the source started on chain 2" }],
    });
    expect(parseLedgerInfo({ ...info, oldest_block_height: "41", block_height: 40 })).toEqual({
      ok: false,
      issues: [
        {
          path: "block_height",
          message: "must be a u64 as a decimal string (got 40)",
          code: "invalid_type",
        },
      ],
    });
  });

  it("refuses a ledger time more than a day ahead of the local clock (blocks are dated back from it)", () => {
    const now = Date.parse("2026-11-27T12:00:00Z");
    const at = (ms: number) => ({
      chain_id: 1,
      epoch: "9",
      ledger_version: "500",
      oldest_ledger_version: "0",
      ledger_timestamp: String(BigInt(ms) * 1000n),
      node_role: "full_node",
      oldest_block_height: "0",
      block_height: "40",
    });
    const tenYears = now + 10 * 365.25 * 86_400_000;
    expect(parseLedgerInfo(at(tenYears), undefined, undefined, now)).toEqual({
      ok: false,
      issues: [
        {
          path: "ledger_timestamp",
          message: `is 10 years ahead of this machine's clock (more than a day): a chain's time cannot run ahead of the world's (is this machine's clock wrong?), and blocks dated from it would all read as that old, got ${tenYears * 1000}`,
        },
      ],
    });
    expect(parseLedgerInfo(at(now + 30 * 3_600_000), undefined, undefined, now)).toMatchObject({
      ok: false,
      issues: [{ path: "ledger_timestamp", message: expect.stringMatching(/^is 30 hours ahead/) }],
    });
    // Skew within a day, and any time behind (a lagging node), are the chain's own business.
    for (const ms of [now + 23 * 3_600_000, now - 10 * 365 * 86_400_000])
      expect(parseLedgerInfo(at(ms), undefined, undefined, now).ok).toBe(true);
  });

  it("finds the minimum gas unit price in the gas schedule", () => {
    const schedule = (entries: unknown) => ({
      type: "x",
      data: { feature_version: "40", entries },
    });
    const MAX = { key: "txn.max_price_per_gas_unit", val: "10000000000" };
    expect(
      parseMinGasUnitPrice(schedule([{ key: "txn.min_price_per_gas_unit", val: "100" }, MAX])),
    ).toEqual({
      ok: true,
      value: 100n,
    });
    // A schedule without its maximum cannot be checked: 2^64 - 1 would be every tier's price.
    expect(
      parseMinGasUnitPrice(
        schedule([{ key: "txn.min_price_per_gas_unit", val: "18446744073709551615" }]),
      ),
    ).toEqual({
      ok: false,
      issues: [{ path: "data.entries", message: 'has no "txn.max_price_per_gas_unit" entry' }],
    });
    expect(
      parseMinGasUnitPrice(
        schedule([
          { key: "txn.min_price_per_gas_unit", val: "18446744073709551615" },
          { key: "txn.max_price_per_gas_unit", val: "lots" },
        ]),
      ),
    ).toMatchObject({ ok: false, issues: [{ path: "data.entries[1].val" }] });
    expect(parseMinGasUnitPrice(schedule([{ key: "other", val: "1" }]))).toEqual({
      ok: false,
      issues: [{ path: "data.entries", message: 'has no "txn.min_price_per_gas_unit" entry' }],
    });
    // A minimum above the schedule's own maximum is no schedule a chain runs on.
    const withMax = (min: string) =>
      parseMinGasUnitPrice(
        schedule([
          { key: "txn.max_price_per_gas_unit", val: "10000000000" },
          { key: "txn.min_price_per_gas_unit", val: min },
        ]),
      );
    expect(withMax("100")).toEqual({ ok: true, value: 100n });
    expect(withMax("18446744073709551615")).toEqual({
      ok: false,
      issues: [
        {
          path: "data.entries[1].val",
          message:
            "must not exceed txn.max_price_per_gas_unit (10000000000) of the same schedule, got 18446744073709551615",
        },
      ],
    });
    expect(
      parseMinGasUnitPrice(schedule([{ key: "txn.min_price_per_gas_unit", val: "0x64" }])),
    ).toEqual({
      ok: false,
      issues: [
        {
          path: "data.entries[0].val",
          message: 'must be a decimal u64 string of digits only (got "0x64")',
          code: "invalid_format",
        },
      ],
    });
  });
});

describe("retry timing", () => {
  it("backs off exponentially with equal jitter, capped", () => {
    const at = (random: number) =>
      [1, 2, 3, 4, 5, 6, 40].map((n) =>
        backoffDelay(n, { initialBackoffMs: 100, maxBackoffMs: 1000, random: () => random }),
      );
    expect(at(0)).toEqual([50, 100, 200, 400, 500, 500, 500]);
    expect(at(0.999999)).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("Wed, 21 Oct 2015 07:28:00 GMT");
    expect(parseRetryAfter("2", now)).toBe(2000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Wed, 21 Oct 2015 07:28:03 GMT", now)).toBe(3000);
    expect(parseRetryAfter("Wed, 21 Oct 2015 07:27:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("-1", now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    // The obsolete forms an HTTP client must read too (RFC 9110), both GMT.
    expect(parseRetryAfter("Wednesday, 21-Oct-15 07:28:05 GMT", now)).toBe(5000);
    expect(parseRetryAfter("Wed Oct 21 07:28:07 2015", now)).toBe(7000);
    // Not HTTP dates, though Date.parse makes dates of them (the year 2099: a 60 s wait).
    for (const junk of ["junk 2099", "a 99999", "Wed, 21 Oct 2099", "21 Oct 2015 07:28:03 GMT"])
      expect(parseRetryAfter(junk, now), junk).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe("aptosRest options", () => {
  it("rejects a URL that is not http(s) at call time", () => {
    const message = (url: string) => {
      try {
        aptosRest(url);
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidConfigError);
        return (e as InvalidConfigError).issues.map(({ path, message }) => ({ path, message }));
      }
      throw new Error("accepted");
    };
    expect(message("node:8080")).toEqual([
      { path: "url", message: 'must use http or https (got "node")' },
    ]);
    expect(message("127.0.0.1:8080")).toEqual([
      {
        path: "url",
        message: 'must be an http(s) URL such as http://127.0.0.1:8080 (got "127.0.0.1:8080")',
      },
    ]);
    expect(message("http://node/v1?x=1")).toEqual([
      { path: "url", message: "must not carry a query or fragment" },
    ]);
    expect(message(new URL("http://node") as never)).toEqual([
      {
        path: "url",
        message: "must be an http(s) URL string such as http://127.0.0.1:8080 (got an object)",
      },
    ]);
    // A long bad URL is echoed cut to fit a log line.
    expect(message(`x${"y".repeat(10_000)}`)[0]!.message).toMatch(/\(10001 characters\)\)$/);
  });

  it("lists every bad option and fills in the defaults", () => {
    let issues: unknown;
    try {
      resolveAptosRestOptions("http://node", {
        concurrency: 0,
        timeoutMs: -1,
        initialBackoffMs: 500,
        maxBackoffMs: 100,
        startHeight: "x",
        // @ts-expect-error unknown option
        pollMs: 5,
      });
    } catch (e) {
      issues = (e as InvalidConfigError).issues;
    }
    expect(issues).toEqual([
      {
        path: "startHeight",
        message: 'must be a decimal u64 string of digits only (got "x")',
        code: "custom",
      },
      {
        path: "concurrency",
        message: "must be a whole number of requests from 1 to 64, got 0",
        code: "too_small",
      },
      {
        path: "timeoutMs",
        message: "must be a number of milliseconds from 1 to 600000, got -1",
        code: "too_small",
      },
      { path: "pollMs", message: "unknown field", code: "unrecognized_keys" },
      {
        path: "initialBackoffMs",
        message: "must not be above maxBackoffMs (100), got 500",
        code: "custom",
      },
    ]);
    const o = resolveAptosRestOptions("https://fullnode.example.com/v1/");
    expect(o).toMatchObject({
      baseUrl: "https://fullnode.example.com",
      backfillBlocks: 121,
      pollIntervalMs: 500,
      concurrency: 4,
      timeoutMs: 10_000,
      maxBackoffMs: 10_000,
      startHeight: undefined,
      maxBlockTransactions: 100_000,
    });
    expect(() => resolveAptosRestOptions("http://node", { maxBlockTransactions: 0 })).toThrow(
      "maxBlockTransactions: must be a whole number of transactions from 1 to 1000000 (the most user transactions a block sample holds), got 0",
    );
    expect(resolveAptosRestOptions("http://h:8080/prefix/v1").baseUrl).toBe("http://h:8080/prefix");
  });

  it("a cap below the default first delay is valid: the first delay follows it down", () => {
    // --max-backoff-ms 100 used to be refused over an option the CLI has no flag for.
    expect(resolveAptosRestOptions("http://node", { maxBackoffMs: 100 })).toMatchObject({
      initialBackoffMs: 100,
      maxBackoffMs: 100,
    });
    expect(resolveRedisStreamSinkOptions("redis://h", { maxBackoffMs: 50 }).initialBackoffMs).toBe(
      50,
    );
    // A first delay chosen above the cap is still refused.
    expect(() =>
      resolveAptosRestOptions("http://node", { initialBackoffMs: 150, maxBackoffMs: 100 }),
    ).toThrow("initialBackoffMs: must not be above maxBackoffMs (100), got 150");
  });
});

describe("aptosRest events for logs", () => {
  const url = "http://127.0.0.1:8080/v1";
  const http = new SourceRequestError(url, "http", { status: 503, details: "Service Unavailable" });
  const bad = new InvalidResponseError(url, [{ path: "chain_id", message: "required" }]);

  it("describes each event in one line", () => {
    const lines = [
      describeAptosRestEvent({ type: "started", url, chainId: 1, tip: 90n, oldest: 0n, from: 70n }),
      describeAptosRestEvent({ type: "retrying", url, attempt: 2, delayMs: 400, error: http }),
      describeAptosRestEvent({ type: "unreachable", url, failures: 3, error: bad }),
      describeAptosRestEvent({ type: "recovered", url, failures: 9, downMs: 60_250 }),
      describeAptosRestEvent({ type: "pruned_skip", from: 10n, to: 50n }),
      describeAptosRestEvent({ type: "caught_up", height: 99n, blocks: 30 }),
      describeAptosRestEvent({
        type: "min_gas_unit_price",
        epoch: 7n,
        height: 80n,
        value: 150n,
        previous: 100n,
      }),
    ];
    expect(lines).toEqual([
      "following chain 1 at http://127.0.0.1:8080/v1: tip 90, oldest 0, starting at 70",
      "retrying in 400 ms (attempt 2): HTTP 503 from http://127.0.0.1:8080/v1 (Service Unavailable)",
      "node unusable: 3 requests in a row failed, last: invalid response from http://127.0.0.1:8080/v1: chain_id: required",
      "node back after 60250 ms (9 failed requests)",
      "heights 10..49 were pruned by the node; skipping to 50",
      "caught up at height 99 (30 blocks)",
      "minimum gas unit price 150 in epoch 7 (from height 80)",
    ]);
  });

  it("gives JSON-safe log fields, errors included", () => {
    const fields = aptosRestEventFields({
      type: "retrying",
      url,
      attempt: 1,
      delayMs: 5,
      error: http,
    });
    expect(JSON.parse(JSON.stringify(fields))).toEqual({
      type: "retrying",
      url,
      attempt: 1,
      delayMs: 5,
      error: {
        name: "SourceRequestError",
        message: "HTTP 503 from http://127.0.0.1:8080/v1",
        details: "Service Unavailable",
        url,
        kind: "http",
        status: 503,
      },
    });
    expect(
      aptosRestEventFields({ type: "unreachable", url, failures: 3, error: bad }).error,
    ).toEqual({
      name: "InvalidResponseError",
      message: "invalid response from http://127.0.0.1:8080/v1: chain_id: required",
      url,
      issues: [{ path: "chain_id", message: "required", code: "custom" }],
    });
    expect(aptosRestEventFields({ type: "pruned_skip", from: 10n, to: 50n })).toEqual({
      type: "pruned_skip",
      from: "10",
      to: "50",
    });
  });
});

describe("requestSignal", () => {
  it("aborts on timeout or with its parent, and leaves nothing behind once disposed", async () => {
    const parent = new AbortController();
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const before = timers();
    const done = requestSignal(parent.signal, 60_000);
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(1);
    done.dispose();
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(0);
    expect(timers()).toBe(before);

    const slow = requestSignal(parent.signal, 5);
    await new Promise((r) => setTimeout(r, 30));
    expect(slow.signal.aborted).toBe(true);
    expect(slow.timedOut()).toBe(true);
    slow.dispose();

    const cancelled = requestSignal(parent.signal, 60_000);
    parent.abort(new Error("bye"));
    expect(cancelled.signal.aborted).toBe(true);
    expect(cancelled.timedOut()).toBe(false);
    expect(cancelled.signal.reason).toEqual(new Error("bye"));
    cancelled.dispose();
  });
});
