import { constants } from "node:buffer";
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { plainBytes } from "../../src/sources/plainBytes.js";
import { type NdjsonLine, readNdjson } from "../../src/sources/readNdjson.js";
import { block } from "../helpers/blocks.js";

const dir = mkdtempSync(join(tmpdir(), "gasdigest-readndjson-"));
let files = 0;
function write(text: string): string {
  const path = join(dir, `f${files++}.ndjson`);
  writeFileSync(path, text);
  return path;
}
async function collect(path: string, maxLineBytes?: number): Promise<NdjsonLine[]> {
  const out: NdjsonLine[] = [];
  for await (const e of readNdjson(path, { maxLineBytes })) out.push(e);
  return out;
}
const line = (height: number, prices = 0) =>
  JSON.stringify(block(height, { gas_unit_prices: Array(prices).fill("100") }));
const tooLong = (n: number, max: number): NdjsonLine => ({
  line: n,
  ok: false,
  issues: [{ path: "", message: `line longer than ${max} bytes`, code: "too_large" }],
});

describe("readNdjson options", () => {
  it("are checked when it is called, every problem named, before the file is opened", () => {
    const read = () =>
      readNdjson("/no/such/file.ndjson", {
        maxLineBytes: 1.5,
        signal: "stop",
        fastPath: 1,
        onByte: () => {},
      } as never);
    expect(read).toThrow(
      `invalid configuration: maxLineBytes: must be a whole number of bytes from 1 to ${constants.MAX_STRING_LENGTH} (the longest string), got 1.5; signal: must be an AbortSignal; fastPath: must be true or false; onByte: unknown field`,
    );
  });
});

describe("readNdjson signal", () => {
  it("stops at the entry taken when it aborts, not at the end of the chunk", async () => {
    // 100 lines, one chunk: every line of it used to come after the abort, then the error.
    const path = write(`${Array.from({ length: 100 }, (_, i) => line(i + 1)).join("\n")}\n`);
    const stop = new AbortController();
    const got: number[] = [];
    let error: unknown;
    try {
      for await (const e of readNdjson(path, { signal: stop.signal })) {
        got.push(e.line);
        if (e.line === 3) stop.abort();
      }
    } catch (e) {
      error = e;
    }
    expect(got).toEqual([1, 2, 3]);
    expect((error as Error).name).toBe("AbortError");
  });
});

describe("readNdjson maxLineBytes", () => {
  it("rejects a long line inside one chunk with its number, and reads on", async () => {
    const long = line(2, 3000); // ~18 KB, far inside the first 1 MiB chunk
    expect(long.length).toBeGreaterThan(4096 * 4);
    const path = write(`${line(1)}\n${long}\n${line(3)}\n${long}`);
    expect(statSync(path).size).toBeLessThan(1 << 20);
    const got = await collect(path, 4096);
    expect(got.map((e) => [e.line, e.ok])).toEqual([
      [1, true],
      [2, false],
      [3, true],
      [4, false],
    ]);
    expect(got[1]).toEqual(tooLong(2, 4096));
    expect(got[3]).toEqual(tooLong(4, 4096)); // the last line, without a final newline
    // Without the limit the same line is a good block.
    const free = await collect(path);
    expect(free.every((e) => e.ok)).toBe(true);
  });

  it("counts bytes, not characters, and accepts a line of exactly the limit", async () => {
    const good = line(1);
    const size = Buffer.byteLength(good);
    const path = write(`${good}\n${good}\n`);
    expect((await collect(path, size)).every((e) => e.ok)).toBe(true);
    expect(await collect(path, size - 1)).toEqual([tooLong(1, size - 1), tooLong(2, size - 1)]);

    // 1500 "é": about 1550 characters but about 3050 bytes.
    const accented = `{"height":"2","epoch":"1","gas_unit_prices":[],"note":"${"é".repeat(1500)}"}`;
    expect(accented.length).toBeLessThan(2048);
    expect(Buffer.byteLength(accented)).toBeGreaterThan(2048);
    const mixed = write(`${accented}\n${good}\n`);
    expect(await collect(mixed, 2048)).toEqual([
      tooLong(1, 2048),
      { line: 2, ok: true, block: expect.anything() },
    ]);
    // Within a limit that fits its bytes, the line is read and refused for its content instead.
    const roomy = await collect(mixed, 4096);
    expect(roomy[0]).toMatchObject({
      line: 1,
      ok: false,
      issues: [{ path: "note", message: "unknown field" }],
    });
  });
});

describe("readNdjson: a key given twice", () => {
  it("rejects the line naming the key, on the byte scanner's shape and on any other", async () => {
    const canonical = line(2).replace(/}$/, ',"height":"9"}');
    const other = '{"height":"3","height":"7","epoch":"1","gas_unit_prices":["100"]}';
    const entries = await collect(write(`${line(1)}\n${canonical}\n${other}\n${line(4)}\n`));
    expect(entries.map((e) => (e.ok ? e.block.height : e.issues))).toEqual([
      1n,
      [
        {
          path: "height",
          message: "is given twice in the line (only the last would count)",
          code: "duplicate_key",
        },
      ],
      [
        {
          path: "height",
          message: "is given twice in the line (only the last would count)",
          code: "duplicate_key",
        },
      ],
      4n,
    ]);
  });
});

describe("readNdjson: blank lines are JSON whitespace only", () => {
  it("skips spaces, tabs and CRs; reports form feeds, no-break spaces, line separators and a BOM inside the file", async () => {
    const odd = ["\f", "\v", "\u00a0", "\u2028", "\uFEFF", " \t\r"];
    const read = await collect(write(`${line(1)}\n${odd.join("\n")}\n\n${line(2)}\n`));
    expect(read.filter((e) => e.ok).map((e) => e.line)).toEqual([1, 9]);
    const bad = read.filter((e) => !e.ok);
    // Lines 2-6 are text that is not JSON; line 7 (spaces, a tab, a CR) and 8 are blank.
    expect(bad.map((e) => e.line)).toEqual([2, 3, 4, 5, 6]);
    for (const e of bad) expect(e.issues[0]!.code).toBe("invalid_json");
  });
});

describe("readNdjson: a gzip-compressed file", () => {
  const text = `${[1, 2, 3].map((h) => line(h, 2)).join("\n")}\n`;
  const writeBytes = (bytes: Uint8Array) => {
    const path = join(dir, `f${files++}.ndjson.gz`);
    writeFileSync(path, bytes);
    return path;
  };

  it("is read as the plain file is, progress counted in the file's own (compressed) bytes", async () => {
    const path = writeBytes(gzipSync(text));
    const seen: number[] = [];
    const entries: NdjsonLine[] = [];
    for await (const e of readNdjson(path, { onBytes: (n) => seen.push(n) })) entries.push(e);
    expect(entries).toEqual(await collect(write(text)));
    expect(entries.map((e) => e.ok)).toEqual([true, true, true]);
    expect(seen.at(-1)).toBe(statSync(path).size);
  });

  it("several members one after the other (cat a.gz b.gz) are one history", async () => {
    const path = writeBytes(Buffer.concat([gzipSync(text), gzipSync(`${line(4)}\n`)]));
    const entries = await collect(path);
    expect(entries.map((e) => (e.ok ? Number(e.block.height) : e.issues))).toEqual([1, 2, 3, 4]);
  });

  it("cut short: the lines before the cut, then an error that says the gzip data is cut", async () => {
    const whole = gzipSync(
      `${Array.from({ length: 2_000 }, (_, i) => line(i + 1, 3)).join("\n")}\n`,
    );
    const path = writeBytes(whole.subarray(0, Math.floor(whole.length / 2)));
    const heights: number[] = [];
    const read = (async () => {
      for await (const e of readNdjson(path)) if (e.ok) heights.push(Number(e.block.height));
    })();
    await expect(read).rejects.toThrow(/^gzip data cut short or corrupt: unexpected end of file$/);
    expect(heights.length).toBeGreaterThan(0);
    expect(heights).toEqual(Array.from({ length: heights.length }, (_, i) => i + 1));
  });

  it("handed over a byte at a time (a pipe) is still recognised", async () => {
    const bytes = gzipSync(text);
    async function* oneByOne() {
      for (const b of bytes) yield Buffer.from([b]);
    }
    const read = { bytes: 0 };
    const chunks: Buffer[] = [];
    for await (const c of plainBytes(oneByOne(), read)) chunks.push(c);
    expect(Buffer.concat(chunks).toString()).toBe(text);
    expect(read.bytes).toBe(bytes.length);
    // And a plain one-byte file is not taken for gzip.
    const plain: Buffer[] = [];
    for await (const c of plainBytes(
      (async function* () {
        yield Buffer.from("{");
      })(),
      { bytes: 0 },
    ))
      plain.push(c);
    expect(Buffer.concat(plain).toString()).toBe("{");
  });
});
