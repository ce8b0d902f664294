// Shared helpers for bench suites: a seeded PRNG, reference data and a benchmark.js runner.
import Benchmark from "benchmark";
import { parseBlockSample } from "../dist/core/blockSample.js";

/**
 * The reference price distribution of the benches: 80 % at 100, 15 % uniform 100..1000,
 * 5 % log-normal around 1000 capped at 10^6.
 */
export function referencePrice(rand) {
  const u = rand();
  if (u < 0.8) return 100;
  if (u < 0.95) return 100 + Math.floor(rand() * 901);
  // Box-Muller: a standard normal from two uniforms.
  const z = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  return Math.min(1e6, Math.max(100, Math.round(Math.exp(Math.log(1000) + 1.5 * z))));
}

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

/** `count` validated 250-transaction blocks of reference prices with random gas_used. */
export function makeBlocks(count, seed) {
  const rand = prng(seed);
  const blocks = [];
  for (let h = 1; h <= count; h++) {
    const prices = new Array(250);
    const gas = new Array(250);
    for (let i = 0; i < 250; i++) {
      prices[i] = String(referencePrice(rand));
      gas[i] = String(1 + Math.floor(rand() * 5000));
    }
    blocks.push(
      parseBlockSample({ height: String(h), epoch: "1", gas_unit_prices: prices, gas_used: gas }),
    );
  }
  return blocks;
}

/** Samples per second of `step` over `blocks`, by process CPU time (best of `rounds`). */
export function cpuRate(blocks, step, rounds = 3) {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    const c0 = process.cpuUsage();
    for (const b of blocks) step(b);
    const c = process.cpuUsage(c0);
    best = Math.min(best, c.user + c.system);
  }
  return (blocks.length * 250) / (best / 1e6);
}
