import { concatMap, defer, type Observable, take, timer } from "rxjs";
import type { BlockSample } from "../core/blockSample.js";
import { parseSimulatorOptions, type SimulatorOptions } from "./simulator/options.js";
import { generateBlocks } from "./simulator/simulateBlocks.js";
import { blockLimit } from "./simulator/u64Room.js";

export type { ResolvedSimulatorOptions, SimulatorOptions } from "./simulator/options.js";
export { parseSimulatorOptions } from "./simulator/options.js";
export type { Regime, Scenario } from "./simulator/regimes.js";
export { SCENARIOS } from "./simulator/regimes.js";
export { simulateBlocks } from "./simulator/simulateBlocks.js";

/**
 * Blocks emitted per timer tick when `intervalMs` is 0 (as fast as possible): small enough that
 * a server fed this way answers between ticks within milliseconds (200 held requests up to
 * 0.2 s), large enough for thousands of blocks a second.
 */
export const FAST_CHUNK_BLOCKS = 25;

/**
 * The simulated chain as a source: a cold `Observable<BlockSample>` that paces
 * {@link simulateBlocks} on rxjs timers. Each subscriber gets its own chain from block 0
 * (same seed, same blocks). The first block comes at once, then one every `intervalMs`;
 * with `intervalMs: 0` blocks come in chunks of {@link FAST_CHUNK_BLOCKS} per timer tick,
 * so a long run never blocks the event loop. Completes after `blocks` blocks (when unset, after
 * the last block whose fields fit in u64: see {@link SimulatorOptions.blocks}); unsubscribing
 * stops the timer.
 *
 * @throws {InvalidConfigError} when an option is invalid, or the start values and `blocks` would
 * take a height, version or timestamp past 2^64-1 (at call time).
 * @example
 * import { createEngine, aip34, simulator } from "gasdigest";
 * const engine = createEngine({ strategy: aip34() });
 * engine.connect(simulator({ clock: "wall" })); // one block every 250 ms, scenario "mixed"
 */
export function simulator(options: SimulatorOptions = {}): Observable<BlockSample> {
  const resolved = parseSimulatorOptions(options);
  const perTick = resolved.intervalMs === 0 ? FAST_CHUNK_BLOCKS : 1;
  const ticks = Math.ceil(blockLimit(resolved) / perTick);
  return defer(() => {
    const chain = generateBlocks(resolved);
    return timer(0, resolved.intervalMs).pipe(
      take(ticks),
      concatMap(() => pull(chain, perTick)),
    );
  });
}

function pull(chain: Iterator<BlockSample>, count: number): BlockSample[] {
  const out: BlockSample[] = [];
  for (let k = 0; k < count; k++) {
    const r = chain.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}
