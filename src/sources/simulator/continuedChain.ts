import type { BlockSample } from "../../core/blockSample.js";
import { U64_MAX } from "../../core/u64.js";
import { DEFAULT_EPOCH_LENGTH, type SimulatorOptions } from "./options.js";

/**
 * A start after another chain's last value `after` (a version, a timestamp): `after + step`,
 * or `undefined` (the simulator's default) from half of u64's range on, which no simulated chain
 * reaches and from which a run could not fit.
 */
function after(value: bigint | undefined, step: bigint): bigint | undefined {
  return value === undefined || value >= U64_MAX / 2n ? undefined : value + step;
}

/**
 * The simulator options that make a simulated chain go on after block `b` (the CLI's
 * `record --append --source sim` after a file's last block, `publish --source sim` after a
 * stream's top), so that what it writes reads back as one chain: the next height, `b`'s epoch
 * (the next one starts at a height that is a multiple of the default `epochLength`, 1,000),
 * chain id and minimum price, and versions and synthetic timestamps after `b`'s (each left to
 * the simulator's default from half of u64's range on). No options without a block.
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
    startVersion: after(b.lastVersion, 1n),
    startTimeUsec: after(b.timestampUsec, 250_000n),
    chainId: b.chainId,
    minGasUnitPrice: b.minGasUnitPrice,
  };
}
