// Shared helpers for bench suites: a seeded PRNG and a benchmark.js runner.
import Benchmark from "benchmark";

/** mulberry32: small seeded PRNG, returns floats in [0, 1). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Run benchmark.js cases side by side (same process, same run) and return ops/s by name.
 * @param {Record<string, () => void>} cases
 */
export function runCases(cases, { quick = false } = {}) {
  return new Promise((resolve) => {
    const suite = new Benchmark.Suite();
    for (const [name, fn] of Object.entries(cases))
      suite.add(name, fn, { minSamples: quick ? 5 : 40, maxTime: quick ? 0.5 : 3, initCount: 1 });
    const hz = {};
    suite.on("cycle", (e) => {
      hz[e.target.name] = { hz: e.target.hz, rme: e.target.stats.rme };
    });
    suite.on("complete", () => resolve(hz));
    suite.run({ async: true });
  });
}

/** `global.gc` when node runs with --expose-gc, else the same function obtained at run time. */
export async function getGc() {
  if (typeof globalThis.gc === "function") return globalThis.gc;
  const { setFlagsFromString } = await import("node:v8");
  const { runInNewContext } = await import("node:vm");
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc");
}

/** Heap plus array buffers after forced GCs (freed buffers are accounted a little later). */
export async function settledMemory(gc) {
  await new Promise((resolve) => setTimeout(resolve, 20));
  for (let i = 0; i < 3; i++) gc();
  await new Promise((resolve) => setTimeout(resolve, 20));
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/**
 * Bytes retained by what `build()` returns: memory after it ran minus memory before, both
 * after forced GCs. Run a warm-up first so compiled code is not counted.
 */
export async function retainedBytes(build) {
  const gc = await getGc();
  const before = await settledMemory(gc);
  const kept = build();
  const after = await settledMemory(gc);
  return { bytes: after - before, kept };
}
