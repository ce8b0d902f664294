import type { BlockSample } from "../../core/blockSample.js";
import { DEFAULT_EPOCH_LENGTH, type SimulatorOptions } from "./options.js";

/** Microseconds between synthetic timestamps when `intervalMs` is 0 (as record runs it). */
const STEP_USEC = 250_000n;

const next = (value: bigint | undefined, step: bigint) =>
  value === undefined ? undefined : value + step;

/**
 * The simulator options that make a simulated chain go on after block `b` (the CLI's
 * `record --append --source sim` after a file's last block, `publish --source sim` after a
 * stream's top), so that what it writes reads back as one chain: the next height, `b`'s epoch
 * (the next one starts at a height that is a multiple of the default `epochLength`, 1,000),
 * chain id and minimum price, and versions (after `b`'s last one, or its first when it gives
 * no last) and synthetic timestamps after `b`'s. They always go on after `b`'s: the default
 * versions, from 2 × height, would go back, and every block would be refused (by `replay`, by
 * the replicas). A start that leaves no room in u64 for the run (`blocks`, or an endless run's
 * 10^8 blocks) is refused by the simulator's own check; the caller names `b` in its error. No
 * options without a block.
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
    startVersion: next(b.lastVersion ?? b.firstVersion, 1n),
    startTimeUsec: next(b.timestampUsec, STEP_USEC),
    chainId: b.chainId,
    minGasUnitPrice: b.minGasUnitPrice,
  };
}
