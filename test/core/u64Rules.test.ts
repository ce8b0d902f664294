import { describe, expect, it } from "vitest";
import { readHistory } from "../../src/backtest/readHistory.js";
import { loadConfigFile } from "../../src/cli/loadConfigFile.js";
import { describeValue } from "../../src/core/describeValue.js";
import { parseU64 } from "../../src/core/u64.js";
import {
  aip34,
  createEngine,
  InvalidConfigError,
  parseJsonLossless,
  safeParseBlockSample,
} from "../../src/index.js";
import { readNdjson } from "../../src/node.js";
import { parseLedgerInfo } from "../../src/sources/aptosRest/schemas.js";
import { collect, tempFileWriter } from "../helpers/tempFiles.js";

const write = tempFileWriter("gasdigest-u64-");
/** Each line of `text` through both file readers, which must agree; their messages. */
async function readBoth(text: string): Promise<string[]> {
  const path = write(text);
  const fast = await collect(readHistory(path));
  const slow = await collect(readNdjson(path));
  expect(fast).toEqual(slow);
  return slow.map((e) =>
    e.ok ? "ok" : e.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; "),
  );
}
const shownOf = (message: string) => /\(got (.*)\)$/.exec(message)?.[1] ?? "";

describe("long numbers are rejected before any parsing, and echoed shortened", () => {
  const digits = "7".repeat(20_000_000);

  it("a u64 string of 2·10^7 digits", () => {
    const r = parseU64(digits);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toMatch(
      /^must be a decimal u64 of at most 20 digits \(got "7+…" \(20000000 characters\)\)$/,
    );
    expect(shownOf(r.message).length).toBeLessThanOrEqual(80);
    // 21 digits is one too many, whatever the value.
    expect(parseU64("000000000000000000001")).toEqual({
      ok: false,
      message: 'must be a decimal u64 of at most 20 digits (got "000000000000000000001")',
    });
    expect(parseU64("18446744073709551616")).toEqual({
      ok: false,
      message: "must be at most 2^64-1 (got 18446744073709551616)",
    });
  });

  it("in a block sample, a node answer and a huge BigInt", () => {
    const r = safeParseBlockSample({ height: digits, epoch: "1", gas_unit_prices: [`-${digits}`] });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.issues.map((i) => i.path)).toEqual(["height", "gas_unit_prices[0]"]);
      expect(r.issues[1]!.message).toMatch(
        /^must not be negative \(got "-7+…" \(20000001 characters\)\)$/,
      );
      for (const i of r.issues) expect(shownOf(i.message).length).toBeLessThanOrEqual(80);
    }
    const info = parseLedgerInfo({
      chain_id: 1,
      epoch: digits,
      ledger_version: "1",
      oldest_ledger_version: "1",
      ledger_timestamp: "1",
      block_height: "1",
      oldest_block_height: "1",
    });
    expect(info.ok).toBe(false);
    if (!info.ok) expect(info.issues[0]!.message).toContain("at most 20 digits");
    const huge = parseU64(10n ** 100_000n);
    expect(huge).toEqual({
      ok: false,
      message: "must be at most 2^64-1 (got a BigInt of about 332196 bits)",
    });
  });

  it("as a bare JSON number or a string in an NDJSON line, on both readers", async () => {
    const bare = `{"height":${digits},"epoch":"1","gas_unit_prices":[]}`;
    const quoted = `{"height":"1","epoch":"1","gas_unit_prices":["1","${digits}"]}`;
    const fraction = `{"height":"2","epoch":"1","gas_unit_prices":[],"majority_use_case_fraction":0.${digits}}`;
    const got = await readBoth(`${bare}\n${quoted}\n${fraction}\n`);
    expect(got[0]).toMatch(
      /^height: must be a decimal u64 of at most 20 digits \(got "7+…" \(20000000 characters\)\)$/,
    );
    expect(got[1]).toMatch(/^gas_unit_prices\[1\]: must be a decimal u64 of at most 20 digits/);
    // A fraction of 2·10^7 digits is a number like any other.
    expect(got[2]).toBe("ok");
  });
});

describe("integers written with a fraction, exponent or minus sign are not u64", () => {
  const line = (fields: string) =>
    `{"height":"1","epoch":"1","gas_unit_prices":["100"],${fields}}`.replace(",}", "}");

  it("1e2, 100.0 and -0 are rejected in every u64 field, on both readers", async () => {
    const got = await readBoth(
      [
        `{"height":1e2,"epoch":"1","gas_unit_prices":[]}`,
        `{"height":"1","epoch":100.0,"gas_unit_prices":[]}`,
        line(`"min_gas_unit_price":-0`),
        line(`"chain_id":4.0`),
        `{"height":"1","epoch":"1","gas_unit_prices":[100, 1E2, 100.00, -0, 2.5e1]}`,
        line(`"gas_used":[1.0]`),
        line(`"timestamp_usec":17e14,"block_gas_limit":-0.0`),
      ].join("\n"),
    );
    const digitsOnly = "must be written with digits only, without a fraction, exponent or sign";
    expect(got).toEqual([
      `height: ${digitsOnly} (got 1e2)`,
      `epoch: ${digitsOnly} (got 100.0)`,
      `min_gas_unit_price: ${digitsOnly} (got -0)`,
      `chain_id: ${digitsOnly} (got 4.0)`,
      [1, 2, 3, 4]
        .map(
          (i) =>
            `gas_unit_prices[${i}]: ${digitsOnly} (got ${["1E2", "100.00", "-0", "2.5e1"][i - 1]})`,
        )
        .join("; "),
      `gas_used[0]: ${digitsOnly} (got 1.0)`,
      `timestamp_usec: ${digitsOnly} (got 17e14); block_gas_limit: ${digitsOnly} (got -0.0)`,
    ]);
  });

  it("while the fraction field takes 1.0, 0.0, -0 and 1e0", async () => {
    const got = await readBoth(
      ["1.0", "0.0", "-0", "1e0", "5e-1"]
        .map((f) => line(`"majority_use_case_fraction":${f}`))
        .join("\n"),
    );
    expect(got).toEqual(["ok", "ok", "ok", "ok", "ok"]);
  });

  it("the plain forms stay accepted, in JSON text and from code", () => {
    const v = parseJsonLossless(
      `{"height":100,"epoch":"1","gas_unit_prices":[0, 18446744073709551615]}`,
    );
    expect(safeParseBlockSample(v).ok).toBe(true);
    // From code, 1e2 and 100 are the same number: only JSON text tells them apart.
    const engine = createEngine({ strategy: aip34() });
    expect(engine.ingest({ height: 1e2, epoch: 1, gas_unit_prices: [] })).toBe("accepted");
  });

  it("up to 1000 such numbers are each located; past that, the text is rejected as a whole", () => {
    const line = (n: number) =>
      `{"height":"1","epoch":"1","gas_unit_prices":[${Array(n).fill("1.0").join(",")}]}`;
    const r = safeParseBlockSample(parseJsonLossless(line(1000)));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toHaveLength(21);
    expect(r.issues[19]!.path).toBe("gas_unit_prices[19]");
    expect(r.issues.at(-1)!.message).toBe("and 980 more issues (not listed)");
    const many = safeParseBlockSample(parseJsonLossless(line(1001)));
    expect(many.ok || many.issues).toEqual([
      {
        path: "",
        message:
          "holds 1001 integers written with a fraction, exponent or sign (such as 1e2, 100.0 or -0), more than 1000; integers are written with digits only",
        code: "custom",
      },
    ]);
  });

  it("every issue safeParseBlockSample returns has a code, as errors.md says", () => {
    const issuesOf = (input: unknown) => {
      const r = safeParseBlockSample(input);
      return r.ok ? [] : r.issues;
    };
    const odd = issuesOf(parseJsonLossless(`{"height":1e2,"epoch":"1","gas_unit_prices":[]}`));
    expect(odd).toEqual([
      {
        path: "height",
        message: "must be written with digits only, without a fraction, exponent or sign (got 1e2)",
        code: "custom",
      },
    ]);
    const many = `{"height":"1","epoch":"1","gas_unit_prices":[${Array(1001).fill("1.0").join(",")}]}`;
    const copy = { height: 1n, epoch: 1n, gasUnitPrices: [] };
    for (const issues of [odd, issuesOf(parseJsonLossless(many)), issuesOf(copy)]) {
      expect(issues.length).toBeGreaterThan(0);
      for (const issue of issues) expect(issue.code).toBeTypeOf("string");
    }
  });
});

describe("lines that would be costly to parse are refused first", () => {
  it("more than 16 objects or arrays, or 64 members, on both readers", async () => {
    const nested = `{"height":"1","epoch":"1","gas_unit_prices":[],"x":${"[".repeat(20)}${"]".repeat(20)}}`;
    const members = `{"height":"1","epoch":"1","gas_unit_prices":[],${Array.from({ length: 70 }, (_, i) => `"k${i}":1`).join(",")}}`;
    // Braces inside strings are not counted.
    const inStrings = `{"height":"1","epoch":"1","gas_unit_prices":[],"x":"${"[{:".repeat(100)}"}`;
    expect(await readBoth([nested, members, inStrings].join("\n"))).toEqual([
      "holds more than 16 objects or arrays; a block sample holds 3 objects or arrays and 12 fields, so it is not parsed",
      "holds more than 64 object members (key: value pairs); a block sample holds 3 objects or arrays and 12 fields, so it is not parsed",
      "x: unknown field",
    ]);
  });
});

describe("config files", () => {
  it("are read with or without a UTF-8 byte order mark", async () => {
    const text = `{ "lowBlockHistory": 5, "minGasUnitPrice": "150" }`;
    const plain = await loadConfigFile(write(text));
    const bom = await loadConfigFile(write(`\ufeff${text}`));
    expect(bom.gas).toEqual(plain.gas);
    expect(bom.gas.lowBlockHistory).toBe(5);
    expect(bom.gas.minGasUnitPrice).toBe(150n);
  });

  it("reject 1e2, 100.0 and -0 in integer settings, and take fractions in tdigest's", async () => {
    const path = write(
      `{"minGasUnitPrice":1e2,"lowBlockHistory":5.0,"buckets":[0,1.5e2],"staticOverride":{"low":-0,"market":1,"aggressive":2},"tdigest":{"compression":500.0,"tiers":{"deprioritized":{"quantile":0.0}}}}`,
    );
    const error = await loadConfigFile(path).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidConfigError);
    const digitsOnly = "must be written with digits only, without a fraction, exponent or sign";
    expect((error as InvalidConfigError).issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      // The bucket array checks its entries itself; the other fields are checked after.
      `buckets[1]: ${digitsOnly} (got 1.5e2)`,
      `lowBlockHistory: ${digitsOnly} (got 5.0)`,
      `minGasUnitPrice: ${digitsOnly} (got 1e2)`,
      `staticOverride.low: ${digitsOnly} (got -0)`,
    ]);
    const fine = await loadConfigFile(
      write(`{"tdigest":{"compression":500.0,"tiers":{"deprioritized":{"quantile":0.0}}}}`),
    );
    expect(fine.strategies.tdigest).toEqual({
      compression: 500,
      tiers: { deprioritized: { quantile: 0 } },
    });
  });
});

describe("describeValue", () => {
  it("shows any value in at most 80 characters", () => {
    expect(describeValue("0x10")).toBe('"0x10"');
    expect(describeValue('"'.repeat(1000))).toMatch(/^"(\\")+…" \(1000 characters\)$/);
    for (const v of ["a".repeat(79), "é".repeat(5000), '\\"'.repeat(5000), "\u0001".repeat(500)])
      expect(describeValue(v).length).toBeLessThanOrEqual(80);
    expect(describeValue([1, 2])).toBe("an array of 2 items");
    expect(describeValue(null)).toBe("null");
    expect(describeValue(undefined)).toBe("nothing");
    expect(describeValue(-(10n ** 300n))).toBe("a negative BigInt of about 1000 bits");
    expect(describeValue(2n ** 64n)).toBe("18446744073709551616");
  });
});
