import { statSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readHistory } from "../../src/backtest/readHistory.js";
import { serializeBlockSample } from "../../src/index.js";
import { readNdjson } from "../../src/node.js";
import { simulateBlocks } from "../../src/sources/simulator.js";
import { fcParams } from "../helpers/fcSeed.js";
import { collect, tempFileWriter } from "../helpers/tempFiles.js";

const fixture = (name: string) => join(import.meta.dirname, "..", "fixtures", name);
const write = tempFileWriter("gasdigest-history-", ".ndjson");
/** Both readers on one file: the fast one must give exactly what readNdjson gives. */
async function both(path: string, maxLineBytes?: number) {
  const fast = await collect(readHistory(path, { maxLineBytes }));
  const slow = await collect(readNdjson(path, { maxLineBytes }));
  return { fast, slow };
}

describe("readHistory gives exactly what readNdjson gives", () => {
  it.each([
    "scenario-spike-500.ndjson",
    "scenario-mixed-500.ndjson",
    "hand.ndjson",
    "bad-lines.ndjson",
  ])("on %s", async (name) => {
    const { fast, slow } = await both(fixture(name));
    expect(fast.length).toBeGreaterThan(3);
    expect(fast).toEqual(slow);
  });

  it("across 1 MiB chunk boundaries, with a CRLF, a byte order mark, blank lines and no final newline", async () => {
    const lines = [...simulateBlocks({ scenario: "busy", blocks: 900, seed: 5 })].map(
      serializeBlockSample,
    );
    const text = `\ufeff${lines.slice(0, 300).join("\n")}\r\n\n  \n${lines.slice(300).join("\n")}`;
    const path = write(text);
    expect(statSync(path).size).toBeGreaterThan(2 << 20);
    const { fast, slow } = await both(path);
    expect(fast).toHaveLength(900);
    expect(fast.every((e) => e.ok)).toBe(true);
    expect(fast).toEqual(slow);
  });

  it("rejects an over-long line with its number and goes on, as readNdjson does", async () => {
    const good = serializeBlockSample([...simulateBlocks({ blocks: 1 })][0]!);
    const long = `{"height":"2","epoch":"1","gas_unit_prices":[${Array(3000).fill('"100"').join(",")}]}`;
    const path = write(`${good}\n${long}\n${good.replace('"height":"1"', '"height":"3"')}\n`);
    const fast = await collect(readHistory(path, { maxLineBytes: 4096 }));
    expect(fast.map((e) => [e.line, e.ok])).toEqual([
      [1, true],
      [2, false],
      [3, true],
    ]);
    expect(fast[1]).toEqual({
      line: 2,
      ok: false,
      issues: [{ path: "", message: "line longer than 4096 bytes", code: "too_large" }],
    });
    expect(await collect(readNdjson(path, { maxLineBytes: 4096 }))).toEqual(fast);
  });

  it("reports the bytes read, up to the file's size", async () => {
    const path = fixture("scenario-spike-500.ndjson");
    const seen: number[] = [];
    await collect(readHistory(path, { onBytes: (n) => seen.push(n) }));
    expect(seen.at(-1)).toBe(statSync(path).size);
  });

  // Lines written in every way JSON allows, each valid but for at most one odd value: both
  // readers must agree on every one (the block, or the exact error).
  const digits = fc.oneof(
    fc.nat({ max: 1000 }),
    fc.nat(),
    fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  );
  const u64Text = fc.oneof(
    digits.map((n) => `"${n}"`),
    digits.map(String),
    fc.constantFrom(
      "18446744073709551615",
      '"18446744073709551615"',
      "1700000000000000",
      '"1700000000000000"',
      '"007"',
      "0",
    ),
  );
  const odd = fc.constantFrom(
    "18446744073709551616",
    '"99999999999999999999"',
    "9007199254740993",
    "-1",
    '"-1"',
    "1.5",
    "1e3",
    "007",
    "00",
    '""',
    '"1 "',
    "null",
    "true",
    '"\\u0031"',
    "[]",
    "{}",
  );
  const list = (items: readonly string[], ws: string) => `[${ws}${items.join(`${ws},${ws}`)}${ws}]`;
  const arrayText = (bad: boolean) =>
    fc
      .tuple(fc.array(u64Text, { maxLength: 6 }), odd, fc.nat(), fc.constantFrom("", " "))
      .map(([items, o, at, ws]) => {
        const a = [...items];
        if (bad) a.splice(a.length ? at % (a.length + 1) : 0, 0, o);
        return list(a, ws);
      });
  // Prices and gas of the same length, versions in order: a valid pair of arrays and versions.
  const pricesAndGas = fc
    .tuple(fc.nat({ max: 6 }), fc.constantFrom("", " "), fc.boolean())
    .chain(([n, ws, withGas]) =>
      fc
        .tuple(
          fc.array(u64Text, { minLength: n, maxLength: n }),
          fc.array(u64Text, { minLength: n, maxLength: n }),
        )
        .map(([p, g]) => ({ prices: list(p, ws), gas: withGas ? list(g, ws) : undefined })),
    );
  const valid = {
    height: u64Text,
    epoch: u64Text,
    timestamp_usec: u64Text,
    chain_id: fc.constantFrom("4", "255", '"4"', "0"),
    min_gas_unit_price: u64Text,
    block_gas_limit_reached: fc.constantFrom("true", "false", "null"),
    block_gas_limit: u64Text,
    majority_use_case_fraction: fc.constantFrom(
      "0.5",
      "0",
      "1",
      "2e-1",
      "null",
      "0.30000000000000004",
      "1E0",
    ),
  };
  const oddField = fc.constantFrom(
    ["gas_unit_prices", null],
    ["gas_used", null],
    ["majority_use_case_fraction", fc.constantFrom("1.5", "-0.1", ".5", '"0.5"', "01", "1.")],
    ["block_gas_limit_reached", fc.constantFrom('"true"', "1", "tru")],
    ["height", odd],
    ["epoch", odd],
    ["timestamp_usec", odd],
    ["chain_id", fc.constantFrom("256", '"300"', "-4")],
    ["extra", fc.constant("1")],
  ) as fc.Arbitrary<[string, fc.Arbitrary<string> | null]>;
  const lineText = fc
    .tuple(
      fc.record(valid, { requiredKeys: ["height", "epoch"] }),
      pricesAndGas,
      fc.option(fc.tuple(fc.nat(), fc.nat({ max: 300 })), { nil: undefined }),
      fc.oneof(
        { weight: 3, arbitrary: fc.constant(null) },
        {
          weight: 2,
          arbitrary: oddField.chain(([k, a]) => (a ?? arrayText(true)).map((v) => [k, v] as const)),
        },
      ),
      fc.constantFrom("", " ", "\t"),
      fc.boolean(),
      fc.nat(),
    )
    .map(([f, arrays, versions, bad, ws, dup, rot]) => {
      const all: Record<string, string> = { ...f, gas_unit_prices: arrays.prices };
      if (arrays.gas) all.gas_used = arrays.gas;
      if (versions) {
        all.first_version = `"${versions[0]}"`;
        all.last_version = String(versions[0] + versions[1]);
      }
      if (bad) all[bad[0]] = bad[1];
      const entries = Object.entries(all).map(([k, v]) => `"${k}"${ws}:${ws}${v}`);
      if (dup && rot % 5 === 0) entries.push(entries[0]!);
      const r = rot % entries.length;
      const ordered = [...entries.slice(r), ...entries.slice(0, r)];
      return `${ws}{${ws}${ordered.join(`,${ws}`)}${ws}}${ws}`;
    });

  it("on any line (property)", async () => {
    let accepted = 0;
    let rejected = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(lineText, { minLength: 1, maxLength: 12 }), async (lines) => {
        const { fast, slow } = await both(write(`${lines.join("\n")}\n`));
        expect(fast).toEqual(slow);
        accepted += fast.filter((e) => e.ok).length;
        rejected += fast.filter((e) => !e.ok).length;
      }),
      fcParams(200),
    );
    // Not vacuous: plenty of both.
    expect(accepted).toBeGreaterThan(300);
    expect(rejected).toBeGreaterThan(300);
  });
});
