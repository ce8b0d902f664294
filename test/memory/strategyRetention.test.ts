// The heap an engine holds must not grow with the number of blocks it was given: each built-in
// strategy behind createEngine, fed 130,000 blocks of its own (a fresh object per height, as a
// source hands them over), holds no more after them than after the first 30,000. Only
// calibrated had such a check; tdigest's counts its centroids, which stay within their bound
// even when every block is kept beside them.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const dist = new URL("../../dist/index.js", import.meta.url).href;

/** Heap used after 30,000, 80,000 and 130,000 blocks, in a fresh process with exact GC. */
function heapGrowth(make: string): { early: number; mid: number; late: number } {
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
    while (h < 30000) engine.ingest(blockAt(++h));
    const early = heap();
    while (h < 80000) engine.ingest(blockAt(++h));
    const mid = heap();
    while (h < 130000) engine.ingest(blockAt(++h));
    const late = heap();
    if (engine.snapshot() === undefined) throw new Error("nothing served");
    process.stdout.write(JSON.stringify({ early, mid, late }));
  `;
  const r = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], {
    encoding: "utf8",
  });
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout) as { early: number; mid: number; late: number };
}

describe("every strategy behind the engine: memory does not grow with the blocks given", () => {
  // What is kept per block grows the heap in both stretches of 50,000 blocks: one pointer per
  // block is 400 KB in each, an object far more. What V8 sets up once as the code warms up grows
  // it in one only: on Node 26 the heap takes a step of about 350 KB, after 10,000 to 20,000
  // blocks on a quiet machine and later on a busy one (read after 10,000 and 110,000 blocks,
  // one CI run failed on it, and one read after 30,000 and 130,000 failed on a busy machine).
  for (const make of ["g.aip34()", "g.tdigest()", "g.geth()", "g.lastBlock()", "g.calibrated()"])
    it(make, () => {
      const { early, mid, late } = heapGrowth(make);
      expect(Math.min(mid - early, late - mid)).toBeLessThan(256 * 1024);
    }, 120_000);

  it("the check sees a strategy that keeps each block's height", () => {
    const leaky = `((make, kept) => (config) => {
      const s = make(config);
      return { name: s.name, estimate: (m) => s.estimate(m), reset: () => s.reset(),
        ingest: (b) => { kept.push(b.height); s.ingest(b); } };
    })(g.lastBlock(), [])`;
    const { early, mid, late } = heapGrowth(leaky);
    expect(Math.min(mid - early, late - mid)).toBeGreaterThan(256 * 1024);
  }, 120_000);
});
