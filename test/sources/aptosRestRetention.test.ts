import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import {
  MAX_IDENTIFIER_LENGTH,
  normaliseAddress,
} from "../../src/sources/aptosRest/entryFunction.js";
import { parseBlock } from "../../src/sources/aptosRest/transactions.js";

/** A full garbage collection (test-only: V8's `gc`, exposed at run time). */
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const MB = 1_000_000;
/** Heap still used, after a full collection, by what `make` returns (and only by it). */
function retained(make: () => unknown): { bytes: number; kept: unknown } {
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = make();
  // V8 keeps the subject of the last pattern match (RegExp.input): a match elsewhere drops it.
  /x/.exec("x");
  gc();
  return { bytes: process.memoryUsage().heapUsed - before, kept };
}

const ADDRESS = `0x00${"ab".repeat(31)}`;
const answer = (fn: string) => ({
  block_height: "5",
  block_hash: "0x1",
  block_timestamp: "1",
  first_version: "10",
  last_version: "11",
  transactions: [
    { type: "block_metadata_transaction", version: "10", epoch: "1" },
    {
      type: "user_transaction",
      version: "11",
      gas_unit_price: "100",
      gas_used: "1",
      payload: { type: "entry_function_payload", function: fn },
    },
  ],
});

describe("strings kept from a node's answers", () => {
  it("a normalised address is a string of its own, not a slice of the text it came from", () => {
    const { bytes, kept } = retained(() => {
      // The way a pattern's capture is taken out of a long function name: a slice of it.
      const text = `${ADDRESS}::${"m".repeat(20 * MB)}::f`;
      return normaliseAddress(/^(0x[0-9a-f]+)::/.exec(text)![1]!);
    });
    expect(kept).toBe(`0x${"ab".repeat(31)}`);
    expect(bytes).toBeLessThan(5 * MB);
  });

  it("refuses a module name longer than a Move identifier, keeping nothing of it", () => {
    const { bytes, kept } = retained(() =>
      // Parsed from text, as the source does: the name is one 20 MB string of the answer.
      parseBlock(JSON.parse(JSON.stringify(answer(`${ADDRESS}::${"m".repeat(20 * MB)}::f`))), 5n),
    );
    expect(bytes).toBeLessThan(5 * MB);
    expect(kept).toEqual({
      ok: false,
      issues: [
        {
          path: "transactions[1].payload.function",
          message: `must be an entry function "<address>::<module>::<function>" with names of at most 65535 characters (got "0x00abababababababababababababababababababababababababa…" (20000071 characters))`,
        },
      ],
    });
  });

  it("takes names up to the limit and refuses one character more", () => {
    const name = "m".repeat(MAX_IDENTIFIER_LENGTH);
    const ok = parseBlock(answer(`${ADDRESS}::${name}::${name}`), 5n);
    expect(ok.ok && ok.value.transactions[1]).toMatchObject({ contract: `0x${"ab".repeat(31)}` });
    const long = parseBlock(answer(`${ADDRESS}::${name}m::f`), 5n);
    expect(long.ok ? [] : long.issues.map((i) => i.path)).toEqual([
      "transactions[1].payload.function",
    ]);
  });
});
