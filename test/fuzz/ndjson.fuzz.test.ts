// Fuzzed NDJSON lines through both file readers and the engine. The seed comes from FC_SEED
// when set (to replay a failure), else it is fresh; it is printed either way. A failure also
// prints fast-check's seed and path, and `FC_SEED=<seed> npx vitest run test/fuzz` replays it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { readHistory } from "../../src/backtest/readHistory.js";
import {
  aip34,
  BaseError,
  createEngine,
  serializeBlockSample,
  simulateBlocks,
} from "../../src/index.js";
import { readNdjson } from "../../src/node.js";
import { fcParams } from "../helpers/fcSeed.js";
import { collect } from "../helpers/tempFiles.js";

const dir = mkdtempSync(join(tmpdir(), "gasdigest-fuzz-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** Good lines to mutate and to surround the mutants with (heights 1..60). */
const good = [...simulateBlocks({ scenario: "busy", blocks: 60, seed: 3 })].map(
  serializeBlockSample,
);

const U64_FIELDS = ["height", "epoch", "timestamp_usec", "min_gas_unit_price", "chain_id"];
const junkToken = fc.constantFrom(
  '"x"',
  "-1",
  "1e2",
  "100.0",
  "-0",
  "{}",
  "[]",
  "null",
  "true",
  '"18446744073709551616"',
  "18446744073709551615",
  '"0x10"',
  '"\\u0031"',
  "1.5",
);

/** Mutations of a good line: each returns the mutated text. */
const mutation: fc.Arbitrary<(line: string) => string> = fc.oneof(
  // Random bytes (as latin1 text: any byte but a newline).
  fc
    .uint8Array({ minLength: 1, maxLength: 3000 })
    .map((bytes) => () => Buffer.from(bytes.filter((b) => b !== 10)).toString("latin1")),
  // A huge array of one kind of token in place of the prices.
  fc
    .tuple(junkToken, fc.integer({ min: 1000, max: 300_000 }), fc.boolean())
    .map(([token, n, mixed]) => (line: string) => {
      const items = Array.from({ length: n }, (_, i) => (mixed && i % 3 ? `"${i}"` : token));
      return line.replace(/"gas_unit_prices":\[[^\]]*\]/, `"gas_unit_prices":[${items.join(",")}]`);
    }),
  // A huge digit string, bare or quoted, in a u64 field or a price.
  fc
    .tuple(fc.constantFrom(...U64_FIELDS), fc.integer({ min: 21, max: 2_000_000 }), fc.boolean())
    .map(([field, n, quoted]) => (line: string) => {
      const digits = `1${"0".repeat(n - 1)}`;
      const v = quoted ? `"${digits}"` : digits;
      return line.includes(`"${field}":`)
        ? line.replace(new RegExp(`"${field}":("[^"]*"|[0-9]+)`), `"${field}":${v}`)
        : line.replace('"gas_unit_prices":[', `"gas_unit_prices":[${v},`);
    }),
  // Deep nesting, of arrays or objects, as a field's value.
  fc
    .tuple(fc.integer({ min: 10, max: 500_000 }), fc.boolean(), fc.constantFrom(...U64_FIELDS))
    .map(([depth, arrays, field]) => (line: string) => {
      const [open, close] = arrays ? ["[", "]"] : ['{"a":', "}"];
      const nested = `${open.repeat(depth)}1${close.repeat(depth)}`;
      return line.replace(new RegExp(`"${field}":("[^"]*"|[0-9]+)`), `"${field}":${nested}`);
    }),
  // A number written 1e2 / 100.0 / -0 in a u64 field.
  fc
    .tuple(fc.constantFrom(...U64_FIELDS), fc.constantFrom("1e2", "100.0", "-0", "1E0", "2.50e1"))
    .map(
      ([field, v]) =>
        (line: string) =>
          line.replace(new RegExp(`"${field}":("[^"]*"|[0-9]+)`), `"${field}":${v}`),
    ),
  // Small edits: a character replaced, removed or inserted; a fragment inserted.
  fc
    .tuple(
      fc.nat(),
      fc.constantFrom("replace", "delete", "insert"),
      fc.oneof(fc.string({ maxLength: 4 }), junkToken, fc.constantFrom(",", ":", '"', "\\", "\r")),
    )
    .map(([at, how, text]) => (line: string) => {
      const i = at % (line.length + 1);
      if (how === "delete") return line.slice(0, i) + line.slice(i + 1);
      return line.slice(0, i) + text + line.slice(how === "replace" ? i + 1 : i);
    }),
);

describe("fuzzed NDJSON lines", () => {
  it("never crash a reader or the engine, agree between the fast and the general reader, keep every good line, stay bounded", async () => {
    let peakRss = 0;
    let rejected = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat({ max: good.length - 1 }), mutation), {
          minLength: 1,
          maxLength: 4,
        }),
        async (cases) => {
          // Good lines 1..k, then the mutants, then good lines after them: nothing good lost.
          const before = good.slice(0, 2);
          const mutants = cases.map(([i, mutate]) => mutate(good[i]!));
          const after = good.slice(50, 52);
          const path = join(dir, `f${files++}.ndjson`);
          writeFileSync(path, [...before, ...mutants, ...after].join("\n"), "latin1");
          const fast = await collect(readHistory(path));
          const slow = await collect(readNdjson(path));
          expect(fast).toEqual(slow);
          const byLine = new Map(slow.map((e) => [e.line, e]));
          const lastLine = before.length + mutants.length + after.length;
          for (const n of [1, 2, lastLine - 1, lastLine]) expect(byLine.get(n)?.ok).toBe(true);
          for (const e of slow) {
            if (e.ok) continue;
            rejected++;
            expect(e.issues.length).toBeLessThanOrEqual(21);
            for (const i of e.issues) expect(i.path.length + i.message.length).toBeLessThan(600);
          }
          // The engine takes every accepted block or rejects it with a gasdigest error.
          const engine = createEngine({ strategy: aip34() });
          for (const e of slow) {
            if (!e.ok) continue;
            try {
              engine.ingest(e.block);
            } catch (error) {
              expect(error).toBeInstanceOf(BaseError);
            }
          }
          expect(engine.snapshot()).toBeDefined();
          rmSync(path);
          peakRss = Math.max(peakRss, process.memoryUsage().rss);
          expect(process.memoryUsage().rss).toBeLessThan(768 * 1024 * 1024);
        },
      ),
      fcParams(120),
    );
    console.log(
      `ndjson fuzz: ${rejected} lines rejected, peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MB`,
    );
    expect(rejected).toBeGreaterThan(100);
  }, 120_000);
});
