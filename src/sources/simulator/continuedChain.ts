import type { BlockSample } from "../../core/blockSample.js";
import { U64_MAX } from "../../core/u64.js";
import { DEFAULT_EPOCH_LENGTH, type SimulatorOptions } from "./options.js";
import { ENDLESS_ROOM_BLOCKS } from "./u64Room.js";

/** Versions a simulated block may take with the default `blockCapacity` (250, plus 2). */
const VERSIONS_PER_BLOCK = 252n;
/** Microseconds between synthetic timestamps when `intervalMs` is 0 (as record runs it). */
const STEP_USEC = 250_000n;

/**
 * A start after another chain's last value `after` (a version, a timestamp): `after + step`,
 * or `undefined` (the simulator's default) where that leaves no room for an endless run (`room`
 * a block, for {@link ENDLESS_ROOM_BLOCKS} blocks), which no simulated chain reaches: a start
 * there would be refused. Anywhere below, the chain goes on after it (its versions must
 * increase: the default, from 2 × height, would go back and every block would be refused).
 */
function after(value: bigint | undefined, step: bigint, room: bigint): bigint | undefined {
  return value === undefined || value + step > U64_MAX - BigInt(ENDLESS_ROOM_BLOCKS) * room
    ? undefined
    : value + step;
}

/**
 * The simulator options that make a simulated chain go on after block `b` (the CLI's
 * `record --append --source sim` after a file's last block, `publish --source sim` after a
 * stream's top), so that what it writes reads back as one chain: the next height, `b`'s epoch
 * (the next one starts at a height that is a multiple of the default `epochLength`, 1,000),
 * chain id and minimum price, and versions and synthetic timestamps after `b`'s (each left to
 * the simulator's default where an endless run would have no room left in u64). No options
 * without a block.
 *
 * @example
 * simulator({ seed: 1, blocks: 10, ...continuedChain(last) });
 */
export function continuedChain(b: BlockSample | undefined): SimulatorOptions {
  if (!b) return {};
  const height = b.height + 1n;
  return {
    startHeight: height,
    // The next height opens an epoch when it is a multiple of the (default) epoch length.
    startEpoch: height % BigInt(DEFAULT_EPOCH_LENGTH) === 0n ? b.epoch + 1n : b.epoch,
    startVersion: after(b.lastVersion, 1n, VERSIONS_PER_BLOCK),
    startTimeUsec: after(b.timestampUsec, STEP_USEC, STEP_USEC),
    chainId: b.chainId,
    minGasUnitPrice: b.minGasUnitPrice,
  };
}
