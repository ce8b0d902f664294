import { describe, expect, it } from "vitest";
import { wholeRange } from "../../src/core/rangeOptions.js";
import { issuesFromZod } from "../../src/core/zodIssues.js";
import {
  DEFAULT_GAS_CONFIG,
  type GasConfigInput,
  geth,
  InvalidConfigError,
  parseGasConfig,
  simulator,
} from "../../src/index.js";

function problems(input: unknown): string[] {
  try {
    parseGasConfig(input);
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidConfigError);
    return (e as InvalidConfigError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  throw new Error("expected the config to be rejected");
}

describe("config", () => {
  it("has the AIP-34 defaults", () => {
    expect(DEFAULT_GAS_CONFIG).toEqual({
      fullBlockTxns: 250,
      lowBlockHistory: 10,
      marketBlockHistory: 30,
      aggressiveBlockHistory: 120,
      buckets: [0n, 150n, 300n, 500n, 1000n, 3000n, 5000n, 10000n, 100000n, 1000000n],
      minGasUnitPrice: 100n,
      skipLatestBlock: true,
      incorporateReorderingEffects: true,
      enabled: true,
      maxHeightJump: 1_000_000,
      resyncAfterBlocks: 10,
    });
  });

  it("accepts u64 as numbers or decimal strings", () => {
    const c = parseGasConfig({
      minGasUnitPrice: "150",
      buckets: [0, "200"],
      staticOverride: { low: 1, market: 2, aggressive: "3" },
    });
    expect(c.minGasUnitPrice).toBe(150n);
    expect(c.buckets).toEqual([0n, 200n]);
    expect(c.staticOverride).toEqual({ deprioritized: 1n, regular: 2n, prioritized: 3n });
  });

  it("an out-of-range count says its bound, once", () => {
    expect(problems({ maxHeightJump: 2 ** 53 })).toEqual([
      "maxHeightJump: must be at most 9007199254740991",
    ]);
    expect(problems({ fullBlockTxns: 2e6, resyncAfterBlocks: 1.5 })).toEqual([
      "fullBlockTxns: must be at most 1000000",
      "resyncAfterBlocks: must be a whole number of blocks, got 1.5",
    ]);
    // Past 2^53 - 1 the integer type's own bound is not said beside the field's range.
    expect(problems({ lowBlockHistory: 2 ** 60, fullBlockTxns: -1e300 })).toEqual([
      "fullBlockTxns: must be at least 1",
      "lowBlockHistory: must be at most 100000",
    ]);
    for (const [make, message] of [
      [() => geth({ blocks: 2 ** 60 }), "blocks: must be at most 100000"],
      [() => simulator({ blockCapacity: -(2 ** 60) }), "blockCapacity: must be at least 1"],
    ] as const) {
      const error = (() => {
        try {
          make();
        } catch (e) {
          return e as InvalidConfigError;
        }
        throw new Error(`expected ${message}`);
      })();
      expect(error.issues.map((i) => `${i.path}: ${i.message}`)).toEqual([message]);
    }
  });

  it("types the u64 settings as a user writes them (checked by npm run typecheck)", () => {
    const input: GasConfigInput = {
      minGasUnitPrice: "150",
      buckets: [0, "150", 300n],
      staticOverride: { low: 150, market: "200", aggressive: 300n },
    };
    expect(parseGasConfig(input).minGasUnitPrice).toBe(150n);
    const wrong: GasConfigInput = {
      // @ts-expect-error a u64 is a number, a decimal string or a BigInt
      minGasUnitPrice: { nope: true },
      // @ts-expect-error buckets are u64s
      buckets: [[1]],
    };
    expect(() => parseGasConfig(wrong)).toThrow("minGasUnitPrice");
  });

  it("returns a config it already parsed as it is, staticOverride included", () => {
    const c = parseGasConfig({ staticOverride: { low: 1, market: 2, aggressive: 3 } });
    expect(parseGasConfig(c)).toBe(c);
    expect(Object.isFrozen(c)).toBe(true);
    // The override is served as the snapshots' estimate: it cannot be changed through one.
    expect(Object.isFrozen(c.staticOverride)).toBe(true);
    // Its buckets too: a splice would change what a running engine serves.
    expect(Object.isFrozen(c.buckets)).toBe(true);
    expect(() => (c.buckets as bigint[]).splice(0, 1)).toThrow(TypeError);
    // A copy (edited or not) is validated as user input, and is valid: the override in the
    // tiers' names, as the validated config holds it, is accepted.
    const copy = parseGasConfig({ ...c, lowBlockHistory: 5 });
    expect(copy.staticOverride).toEqual({ deprioritized: 1n, regular: 2n, prioritized: 3n });
    expect(copy.lowBlockHistory).toBe(5);
    // One naming or the other, whole.
    expect(() => parseGasConfig({ staticOverride: { low: 1, market: 2, prioritized: 3 } })).toThrow(
      /staticOverride.aggressive: required[\s\S]*staticOverride.prioritized: not with low\/market\/aggressive/,
    );
    expect(() => parseGasConfig({ staticOverride: { regular: 2 } })).toThrow(
      /staticOverride.deprioritized: required[\s\S]*staticOverride.prioritized: required/,
    );
    expect(() => parseGasConfig({ staticOverride: {} })).toThrow(/staticOverride.low: required/);
    expect(() =>
      parseGasConfig({ staticOverride: { deprioritized: -1, regular: 2, prioritized: 3 } }),
    ).toThrow(/staticOverride.deprioritized: must not be negative/);
  });

  it("lists every problem, per field and across fields", () => {
    expect(
      problems({
        lowBlockHistory: 0,
        marketBlockHistory: 200,
        aggressiveBlockHistory: 100,
        buckets: [0, 300, 150, 150],
        minGasUnitPrice: -1,
        skipLatestBlock: "yes",
        staticOverride: { low: 5, market: 4, aggressive: 6 },
        extra: 1,
      }),
    ).toEqual([
      "lowBlockHistory: must be at least 1",
      "minGasUnitPrice: must not be negative (got -1)",
      'skipLatestBlock: must be true or false, got "yes"',
      "extra: unknown field",
      "marketBlockHistory: must not exceed aggressiveBlockHistory (100), got 200",
      "buckets[2]: buckets must be strictly ascending: 150 follows 300",
      "buckets[3]: buckets must be strictly ascending: 150 follows 150",
      "staticOverride: must satisfy low <= market <= aggressive, got 5/4/6",
    ]);
  });

  it("rejects a zero history, fractions and a low history above the aggressive one", () => {
    expect(problems({ aggressiveBlockHistory: 0 })).toContain(
      "aggressiveBlockHistory: must be at least 1",
    );
    expect(problems({ fullBlockTxns: 2.5 })).toEqual([
      "fullBlockTxns: must be a whole number of transactions, got 2.5",
    ]);
    // The default marketBlockHistory (30) is checked too.
    expect(problems({ lowBlockHistory: 20, aggressiveBlockHistory: 10 })).toEqual([
      "lowBlockHistory: must not exceed aggressiveBlockHistory (10), got 20",
      "marketBlockHistory: must not exceed aggressiveBlockHistory (10), got 30",
    ]);
  });
});

describe("whole-number options of sources and sinks", () => {
  it("an option out of range says the range and echoes the value, whatever check failed", () => {
    const shape = wholeRange("requests", 1, 64);
    const said = (v: unknown) => {
      const r = shape.safeParse(v);
      return r.success ? [] : issuesFromZod(r.error).map((i) => i.message);
    };
    const range = "must be a whole number of requests from 1 to 64, got";
    expect(said(65)).toEqual([`${range} 65`]);
    expect(said(0)).toEqual([`${range} 0`]);
    expect(said(2.5)).toEqual([`${range} 2.5`]);
    expect(said(2 ** 60)).toEqual([`${range} 1152921504606847000`]);
    expect(said(8)).toEqual([]);
  });
});
