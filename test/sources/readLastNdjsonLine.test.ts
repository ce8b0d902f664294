import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readLastNdjsonLine } from "../../src/sources/readLastNdjsonLine.js";
import { block } from "../helpers/blocks.js";

const dir = mkdtempSync(join(tmpdir(), "gasdigest-readlast-"));
let files = 0;
function write(data: string | Buffer): string {
  const path = join(dir, `f${files++}.ndjson`);
  writeFileSync(path, data);
  return path;
}
const line = (height: number) => JSON.stringify(block(height));

describe("readLastNdjsonLine", () => {
  it("finds the last line behind 16 MiB of trailing blank lines (many read steps)", async () => {
    const path = write(Buffer.concat([Buffer.from(`${line(7)}\n`), Buffer.alloc(16 << 20, 0x0a)]));
    const last = await readLastNdjsonLine(path);
    expect(last?.entry.ok && last.entry.block.height).toBe(7n);
    expect(last?.endsWithNewline).toBe(true);
  });

  it("scans at most maxLineBytes of trailing blanks, then refuses the file", async () => {
    const path = write(`${line(1)}\n${line(2)}\n${" \r\n".repeat(400)}`);
    await expect(readLastNdjsonLine(path, 1000)).rejects.toThrow(
      `${path} ends with more than 1000 bytes of blank lines and spaces after its last line`,
    );
    const last = await readLastNdjsonLine(path, 2000);
    expect(last?.entry.ok && last.entry.block.height).toBe(2n);
    // Exactly maxLineBytes of them (1 + 1200 bytes) is still within the bound.
    const atBound = await readLastNdjsonLine(path, 1201);
    expect(atBound?.entry.ok && atBound.entry.block.height).toBe(2n);
    await expect(readLastNdjsonLine(path, 1200)).rejects.toThrow("more than 1200 bytes");
  });

  it("still bounds the last line, and finds one that spans read steps or starts the file", async () => {
    const long = JSON.stringify(block(3, { gas_unit_prices: Array(20_000).fill("100") }));
    const path = write(`${line(1)}\n${long}`);
    await expect(readLastNdjsonLine(path, 1000)).rejects.toThrow(
      `the last line of ${path} is longer than 1000 bytes`,
    );
    const last = await readLastNdjsonLine(path);
    expect(last?.entry.ok && last.entry.block.height).toBe(3n);
    expect(last?.endsWithNewline).toBe(false);
    const only = await readLastNdjsonLine(write(`\uFEFF${line(4)}\n\n`));
    expect(only?.entry.ok && only.entry.block.height).toBe(4n);
    expect(await readLastNdjsonLine(write(" \n\n"))).toBeUndefined();
    expect(await readLastNdjsonLine(join(dir, "missing.ndjson"))).toBeUndefined();
  });
});
