// Peak memory of a whole process fed the probe's hostile inputs (at a size CI can afford), each
// in a fresh child process running the built package. Before the fixes, one NDJSON line of
// 600 000 invalid prices took `replay` to 750 MB; the lines here hold 2 000 000.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { block } from "../helpers/blocks.js";
import { runChild } from "../helpers/child.js";

const LIMIT_MB = 512;
/** The measured peak, for whoever reads the test output. */
const report = (what: string | undefined, mb: number) =>
  console.log(`peak RSS ${mb.toFixed(0)} MB: ${what}`);
const N = 2_000_000;
const dir = mkdtempSync(join(tmpdir(), "gasdigest-memory-"));

/** Good blocks 1, 3 and 4 around line 2: `body` as its gas_unit_prices. */
function fileAround(name: string, body: string): string {
  const path = join(dir, name);
  const good = (h: number) => JSON.stringify(block(h, { gas_unit_prices: ["100", "150"] }));
  writeFileSync(
    path,
    `${good(1)}\n{"height":"2","epoch":"1","gas_unit_prices":${body}}\n${good(3)}\n${good(4)}\n`,
  );
  return path;
}

// As many as a block may hold (10^6): each is checked, and the issues are capped.
const invalidPrices = fileAround(
  "invalid.ndjson",
  `[${Array(N / 2)
    .fill('"x"')
    .join(",")}]`,
);
// Twice that, valid: refused by their count, before any is read as a price.
const tooMany = fileAround("toomany.ndjson", `[${Array(N).fill("100").join(",")}]`);
const deep = fileAround("deep.ndjson", `${"[".repeat(N)}${"]".repeat(N)}`);
const objects = fileAround("objects.ndjson", `[${Array(N).fill("{}").join(",")}]`);
const keys = join(dir, "keys.ndjson");
writeFileSync(
  keys,
  `{"height":"2","epoch":"1","gas_unit_prices":[],${Array.from({ length: N / 2 }, (_, i) => `"k${i}":1`).join(",")}}\n${JSON.stringify(block(3))}\n`,
);
const exponents = fileAround("exponents.ndjson", `[${Array(N).fill("1e2").join(",")}]`);

const replayChild = (path: string) =>
  runChild(`
import { PassThrough } from "node:stream";
const { main } = await import(dist + "cli/main.js");
const out = new PassThrough();
const err = new PassThrough();
let o = "";
let e = "";
out.on("data", (d) => { o += d; });
err.on("data", (d) => { e += d; });
const code = await main(["replay", "--input", ${JSON.stringify(path)}], { stdout: out, stderr: err });
const lines = e.trim().split("\\n");
done({ code, heights: o.trim().split("\\n").map((l) => JSON.parse(l).height), lines: lines.length, first: lines[0], second: lines[1], last: lines.at(-1), bytes: e.length });
`);

describe("one huge bad NDJSON line: clear errors, nothing good lost, bounded memory", () => {
  it("replay: 10^6 invalid prices", async () => {
    const { value, maxRssMB } = await replayChild(invalidPrices);
    expect(value).toMatchObject({
      code: 2,
      heights: ["1", "3", "4"],
      lines: 21,
      first: 'line 2: gas_unit_prices[0]: must be a decimal u64 string of digits only (got "x")',
      last: "line 2: and 999980 more issues (not listed)",
    });
    expect(maxRssMB).toBeLessThan(LIMIT_MB);
    report(expect.getState().currentTestName, maxRssMB);
  });

  it("replay: 2·10^6 valid prices, more than a block may hold", async () => {
    const { value, maxRssMB } = await replayChild(tooMany);
    expect(value).toMatchObject({
      code: 2,
      heights: ["1", "3", "4"],
      lines: 1,
      first: "line 2: gas_unit_prices: must hold at most 1000000 transactions, got 2000000",
    });
    expect(maxRssMB).toBeLessThan(LIMIT_MB);
    report(expect.getState().currentTestName, maxRssMB);
  });

  it("replay: nesting 2·10^6 deep, 2·10^6 objects, 10^6 unknown keys, 2·10^6 prices written 1e2", async () => {
    const cases: [string, string, object][] = [
      ["objects", objects, { code: 2, heights: ["1", "3", "4"], lines: 1 }],
      [
        "keys",
        keys,
        {
          code: 2,
          heights: ["3"],
          first:
            "line 1: holds more than 64 object members (key: value pairs); a block sample holds 3 objects or arrays and 12 fields, so it is not parsed",
        },
      ],
      [
        "nested",
        deep,
        {
          code: 2,
          heights: ["1", "3", "4"],
          lines: 1,
          first:
            "line 2: holds more than 16 objects or arrays; a block sample holds 3 objects or arrays and 12 fields, so it is not parsed",
        },
      ],
      [
        "1e2",
        exponents,
        {
          code: 2,
          heights: ["1", "3", "4"],
          lines: 1,
          first:
            "line 2: holds 2000000 integers written with a fraction, exponent or sign (such as 1e2, 100.0 or -0), more than 1000; integers are written with digits only",
        },
      ],
    ];
    for (const [name, file, expected] of cases) {
      const { value, maxRssMB } = await replayChild(file);
      expect(value, name).toMatchObject(expected);
      expect(maxRssMB, name).toBeLessThan(LIMIT_MB);
      report(`replay, ${name}`, maxRssMB);
    }
  });

  it("serve: the same line is one short log line, and the blocks after it are served", async () => {
    const { value, maxRssMB } = await runChild(`
import { PassThrough } from "node:stream";
const { startServe } = await import(dist + "cli/serve.js");
const out = new PassThrough();
let logs = "";
out.on("data", (d) => { logs += d; });
const h = await startServe(["--port", "0", "--source", "ndjson:" + ${JSON.stringify(invalidPrices)}, "--log-level", "info"], { stdout: out, stderr: new PassThrough() });
while (!h.engine.sourcesCompleted) await new Promise((r) => setTimeout(r, 20));
const res = await fetch(h.url + "/v1/estimate_gas_price");
const height = res.headers.get("x-aptos-block-height");
const counters = h.engine.counters();
await h.close();
const skipped = logs.split("\\n").filter((l) => l.includes('"bad line skipped"'));
done({ status: res.status, height, counters, skipped: skipped.length, longest: Math.max(...skipped.map((l) => l.length)) });
`);
    expect(value).toMatchObject({
      status: 200,
      height: "4",
      counters: { accepted: 3 },
      skipped: 1,
    });
    expect(value.longest).toBeLessThan(4096);
    expect(maxRssMB).toBeLessThan(LIMIT_MB);
    report(expect.getState().currentTestName, maxRssMB);
  });

  it("backtest (the fast reader): the same line, the blocks after it scored", async () => {
    const { value, maxRssMB } = await runChild(`
import { PassThrough } from "node:stream";
const { main } = await import(dist + "cli/main.js");
const out = new PassThrough();
const err = new PassThrough();
let o = "";
let e = "";
out.on("data", (d) => { o += d; });
err.on("data", (d) => { e += d; });
const code = await main(["backtest", "--input", ${JSON.stringify(invalidPrices)}, "--strategies", "aip34", "--json"], { stdout: out, stderr: err });
done({ code, blocks: JSON.parse(o).blocks, lines: e.trim().split("\\n").length });
`);
    expect(value).toEqual({ code: 2, blocks: 3, lines: 21, maxRssKB: expect.any(Number) });
    expect(maxRssMB).toBeLessThan(LIMIT_MB);
    report(expect.getState().currentTestName, maxRssMB);
  });
});

describe("a node answer of millions of bad items: one short error, bounded memory", () => {
  it("a block of 4·10^6 bad transactions, a page of them, and a gas schedule of them", async () => {
    const { value, maxRssMB } = await runChild(`
const { parseBlock, parseTransactionsPage } = await import(dist + "sources/aptosRest/transactions.js");
const { parseMinGasUnitPrice } = await import(dist + "sources/aptosRest/schemas.js");
const n = 4_000_000;
const items = "[" + "1,".repeat(n - 1) + "1]";
const head = '{"block_height":"5","block_hash":"0x1","block_timestamp":"1","first_version":"10","last_version":"20","transactions":';
const block = parseBlock(JSON.parse(head + items + "}"), 5n);
const page = parseTransactionsPage(JSON.parse(items), 10n, { height: 5n, timestampUsec: 1n, firstVersion: 10n, lastVersion: 20n, transactions: [] });
const gas = parseMinGasUnitPrice(JSON.parse('{"data":{"feature_version":"1","entries":' + items + "}}"));
done({ issues: [block.issues.length, page.issues.length, gas.issues.length], last: [block.issues.at(-1).message, gas.issues.at(-1).message] });
`);
    expect(value).toMatchObject({
      issues: [21, 21, 21],
      last: [
        "stopped after 20 issues; 3999980 more transactions not checked",
        "and 3999980 more issues (not listed)",
      ],
    });
    expect(maxRssMB).toBeLessThan(LIMIT_MB);
    report(expect.getState().currentTestName, maxRssMB);
  });
});
