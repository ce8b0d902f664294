import { describe, expect, it } from "vitest";
import { isBlockSample, MAX_BLOCK_TRANSACTIONS } from "../../src/core/blockSample.js";
import {
  InvalidBlockSampleError,
  parseBlockSample,
  parseJsonLossless,
  serializeBlockSample,
} from "../../src/index.js";
import { parseNdjsonLine } from "../../src/sources/parseNdjsonLine.js";
import { scanBlockLine } from "../../src/sources/scanBlockLine.js";

function issuesOf(input: unknown) {
  try {
    parseBlockSample(input);
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidBlockSampleError);
    return (e as InvalidBlockSampleError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  throw new Error("expected the block to be rejected");
}

describe("block sample", () => {
  it("a majority-use-case fraction outside 0..1, or not a number, echoes the value", () => {
    for (const [bad, shown] of [
      [-0.5, "-0.5"],
      ["0.5", '"0.5"'],
    ] as const)
      expect(
        issuesOf({ height: "1", epoch: "1", gas_unit_prices: [], majority_use_case_fraction: bad }),
      ).toEqual([`majority_use_case_fraction: must be a fraction from 0 to 1 (got ${shown})`]);
  });

  it("a copy of a validated sample is refused with a hint, and its wire form is accepted", () => {
    const b = parseBlockSample({ height: "7", epoch: "1", gas_unit_prices: ["100"] });
    for (const copy of [{ ...b }, structuredClone(b)]) {
      const issues = issuesOf(copy);
      expect(issues[0]).toMatch(/^: looks like a copy of a validated BlockSample/);
      expect(issues[0]).toContain("JSON.parse(serializeBlockSample(block))");
    }
    expect(parseBlockSample(JSON.parse(serializeBlockSample(b)))).toEqual(b);
  });

  it("parses the documented example into BigInt fields", () => {
    const b = parseBlockSample({
      height: "1042",
      epoch: "7",
      timestamp_usec: "1700000000123456",
      first_version: "90000",
      last_version: "90260",
      chain_id: 4,
      min_gas_unit_price: "100",
      gas_unit_prices: ["100", "150", "100"],
      gas_used: ["12", "30", "7"],
      block_gas_limit_reached: false,
      block_gas_limit: null,
      majority_use_case_fraction: 0.2,
    });
    expect(b.height).toBe(1042n);
    expect(b.gasUnitPrices).toEqual([100n, 150n, 100n]);
    expect(b.gasUsed).toEqual([12n, 30n, 7n]);
    expect(b.blockGasLimit).toBeUndefined();
    expect(b.blockGasLimitReached).toBe(false);
    expect(isBlockSample(b)).toBe(true);
    expect(Object.isFrozen(b)).toBe(true);
  });

  it("accepts JSON integers, decimal strings and the u64 maximum", () => {
    const b = parseBlockSample({
      height: 5,
      epoch: "0",
      gas_unit_prices: [1, "18446744073709551615"],
    });
    expect(b.gasUnitPrices).toEqual([1n, 18446744073709551615n]);
  });

  it.each([
    [{ height: -1 }, "height: must not be negative (got -1)"],
    [{ height: "-1" }, 'height: must not be negative (got "-1")'],
    [{ height: 1.5 }, "height: must be an integer (got 1.5)"],
    [{ height: "1.5" }, 'height: must be a decimal u64 string of digits only (got "1.5")'],
    [{ height: "0x10" }, 'height: must be a decimal u64 string of digits only (got "0x10")'],
    [{ height: "" }, "height: must be a decimal u64, got an empty string"],
    [
      { height: "18446744073709551616" },
      "height: must be at most 2^64-1 (got 18446744073709551616)",
    ],
    [
      { height: 2 ** 60 },
      "height: 1152921504606847000 is above 2^53 and lost precision as a JSON number; write it as a decimal string",
    ],
    [{ height: true }, "height: must be a u64 as a JSON integer or decimal string (got true)"],
    [{ height: undefined }, "height: required"],
  ])("rejects %j with the field path", (over, message) => {
    expect(issuesOf({ epoch: "1", gas_unit_prices: [], ...over })).toContain(message);
  });

  it("names the index of a bad price and reports every problem", () => {
    expect(issuesOf({ height: "x", epoch: "1", gas_unit_prices: ["100", "-5", "abc"] })).toEqual([
      'height: must be a decimal u64 string of digits only (got "x")',
      'gas_unit_prices[1]: must not be negative (got "-5")',
      'gas_unit_prices[2]: must be a decimal u64 string of digits only (got "abc")',
    ]);
  });

  it("rejects gas_used of a different length", () => {
    expect(issuesOf({ height: 1, epoch: 1, gas_unit_prices: ["1", "2"], gas_used: ["1"] })).toEqual(
      ["gas_used: must have as many entries as gas_unit_prices (2), got 1"],
    );
  });

  it("rejects unknown fields, bad chain ids, fractions out of range and missing prices", () => {
    expect(
      issuesOf({
        height: 1,
        epoch: 1,
        chain_id: 300,
        majority_use_case_fraction: 1.5,
        gas_price: 3,
      }),
    ).toEqual([
      "chain_id: must be a chain id from 0 to 255 (got 300)",
      "gas_unit_prices: required",
      "majority_use_case_fraction: must be a fraction from 0 to 1 (got 1.5)",
      "gas_price: unknown field",
    ]);
  });

  it("takes chain id 255 and refuses 256", () => {
    expect(
      parseBlockSample({ height: 1, epoch: 1, chain_id: 255, gas_unit_prices: [] }).chainId,
    ).toBe(255);
    expect(issuesOf({ height: 1, epoch: 1, chain_id: "256", gas_unit_prices: [] })).toEqual([
      "chain_id: must be a chain id from 0 to 255 (got 256)",
    ]);
  });

  it("round-trips through its NDJSON line, exactly above 2^53", () => {
    const line =
      '{"height":"9","epoch":"2","gas_unit_prices":["9007199254740993"],"block_gas_limit":"5"}';
    const b = parseBlockSample(parseJsonLossless(line));
    expect(serializeBlockSample(b)).toBe(line);
  });
});

describe("a sparse array of prices (a structured clone from a peer)", () => {
  it("is refused at its first hole, at the cost of the entries it has, not of its length", () => {
    // JSON cannot write a hole; postMessage and advanced-serialization IPC carry a length of
    // 2^32 - 1 in 56 bytes. Walking every index took minutes; this takes one step.
    const prices: string[] = [];
    prices.length = 2 ** 32 - 1;
    const block = structuredClone({ height: "2", epoch: "1", gas_unit_prices: prices });
    // At that length the cap on a block's transactions refuses it before any entry is read.
    expect(issuesOf(block)).toEqual([
      "gas_unit_prices: must hold at most 1000000 transactions, got 4294967295",
    ]);
    const holes: string[] = [];
    holes.length = MAX_BLOCK_TRANSACTIONS;
    expect(issuesOf({ height: "2", epoch: "1", gas_unit_prices: holes })).toEqual([
      "gas_unit_prices[0]: must not have holes: a sparse array of length 1000000, no entry here",
    ]);
    const late = ["100", "150"];
    late[9] = "200";
    expect(issuesOf({ height: "2", epoch: "1", gas_unit_prices: ["100"], gas_used: late })).toEqual(
      ["gas_used[2]: must not have holes: a sparse array of length 10, no entry here"],
    );
    // The hole is refused, never read as a missing price of an otherwise good block.
    expect(() =>
      parseBlockSample({ height: "2", epoch: "1", gas_unit_prices: ["100"] }),
    ).not.toThrow();
  });
});

describe("a block's transactions are capped", () => {
  it("refuses more than MAX_BLOCK_TRANSACTIONS prices, from an object or an NDJSON line, naming the count", () => {
    // A peer's valid block of 12 million prices was taken whole (800 MB parsed); 30 of them in a
    // Redis stream took every replica started after them down with the heap.
    const prices = (n: number) => Array.from({ length: n }, () => 100);
    expect(issuesOf({ height: "2", epoch: "1", gas_unit_prices: prices(1_000_001) })).toEqual([
      "gas_unit_prices: must hold at most 1000000 transactions, got 1000001",
    ]);
    expect(
      issuesOf({ height: "2", epoch: "1", gas_unit_prices: [1], gas_used: prices(1_000_001) }),
    ).toEqual(["gas_used: must hold at most 1000000 transactions, got 1000001"]);
    const line = (n: number) =>
      Buffer.from(JSON.stringify({ height: "2", epoch: "1", gas_unit_prices: prices(n) }));
    const over = parseNdjsonLine(line(1_000_001), 7)!;
    expect(over.ok ? [] : over.issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      "gas_unit_prices: must hold at most 1000000 transactions, got 1000001",
    ]);
    // The general parser says the same; the byte scanner makes no number past the cap (the
    // rest are counted, as holes), so such a line is refused without being parsed twice.
    expect(parseNdjsonLine(line(1_000_001), 7, { fastPath: false })).toEqual(over);
    const scanned = scanBlockLine(line(1_000_003))!.gas_unit_prices as bigint[];
    expect(scanned.length).toBe(1_000_003);
    expect([MAX_BLOCK_TRANSACTIONS - 1 in scanned, MAX_BLOCK_TRANSACTIONS in scanned]).toEqual([
      true,
      false,
    ]);
    const at = parseNdjsonLine(line(MAX_BLOCK_TRANSACTIONS), 8)!;
    expect(at.ok && at.block.gasUnitPrices.length).toBe(MAX_BLOCK_TRANSACTIONS);
  });
});

describe("issue codes", () => {
  it("every issue carries one: gasdigest's own rules outside a schema read custom", () => {
    let error: unknown;
    try {
      parseBlockSample(parseJsonLossless('{"height":"1","epoch":1e0,"gas_unit_prices":[1e0]}'));
    } catch (e) {
      error = e;
    }
    const issues = (error as InvalidBlockSampleError).issues;
    expect(issues.map((i) => i.path)).toEqual(["epoch", "gas_unit_prices[0]"]);
    expect(issues.map((i) => i.code)).toEqual(["custom", "custom"]);
  });
});

describe("parseJsonLossless", () => {
  it("keeps integers above 2^53 exact and leaves strings and fractions alone", () => {
    expect(
      parseJsonLossless(
        '{"a":[18446744073709551615,-12345678901234567,1.25],"s":"12345678901234567890"}',
      ),
    ).toEqual({
      a: ["18446744073709551615", "-12345678901234567", 1.25],
      s: "12345678901234567890",
    });
    expect(
      parseJsonLossless('{"q":"say \\"1234567890123456789\\"", "n": 1234567890123456789}'),
    ).toEqual({ q: 'say "1234567890123456789"', n: "1234567890123456789" });
  });
});
