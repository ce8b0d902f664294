// The heap an engine holds must not grow with the number of blocks it was given: each built-in
// strategy behind createEngine, fed 110,000 blocks of its own (a fresh object per height, as a
// source hands them over), holds no more after them than after the first 10,000. Only
// calibrated had such a check; tdigest's counts its centroids, which stay within their bound
// even when every block is kept beside them.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const dist = new URL("../../dist/index.js", import.meta.url).href;

/** Heap used after `early` and after `late` blocks, in a fresh process with exact GC. */
function heapGrowth(make: string): { early: number; late: number } {
  const script = `
    import * as g from ${JSON.stringify(dist)};
    const engine = g.createEngine({ strategy: ${make}, config: { fullBlockTxns: 4 } });
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const blockAt = (h) => g.parseBlockSample({
      height: String(h),
      epoch: "1",
      gas_unit_prices: Array.from({ length: 2 + (h % 7) }, () => String(100 + Math.floor(rnd() * 900))),
    });
    const heap = () => { gc(); gc(); return process.memoryUsage().heapUsed; };
    let h = 0;
    while (h < 10000) engine.ingest(blockAt(++h));
    const early = heap();
    while (h < 110000) engine.ingest(blockAt(++h));
    const late = heap();
    if (engine.snapshot() === undefined) throw new Error("nothing served");
    process.stdout.write(JSON.stringify({ early, late }));
  `;
  const r = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], {
    encoding: "utf8",
  });
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout) as { early: number; late: number };
}

describe("every strategy behind the engine: memory does not grow with the blocks given", () => {
  // The first reading comes after 10,000 blocks so that code the JIT compiles and drops early
  // is not counted. One kept pointer per block would be 800 KB over 100,000 blocks, an object far more.
  for (const make of ["g.aip34()", "g.tdigest()", "g.geth()", "g.lastBlock()", "g.calibrated()"])
    it(make, () => {
      const { early, late } = heapGrowth(make);
      expect(late - early).toBeLessThan(512 * 1024);
    }, 120_000);
});
