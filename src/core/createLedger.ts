import type { BlockSample } from "./blockSample.js";
import type { GasConfig } from "./config.js";
import { createHeldBlocks } from "./createHeldBlocks.js";
import type { LedgerState } from "./types.js";

/** The chain state a snapshot reports, kept up to date block by block. */
export interface Ledger {
  /**
   * Take an accepted block: the newest chain id, ledger version and timestamp, and the ring of
   * held blocks.
   */
  record(block: BlockSample): void;
  /** Forget the held blocks (epoch change or resync); the chain id, version and timestamp stay. */
  forget(): void;
  /** The ledger state after `block`, the newest block recorded. */
  state(block: BlockSample): LedgerState;
}

/**
 * The engine's ledger: the chain id, ledger version and timestamp of the newest blocks (a block
 * that does not say one keeps the last one seen), and a ring of the
 * blocks the configured windows can still refer to (`aggressiveBlockHistory`, plus the newest
 * one when `skipLatestBlock` leaves it out of them) for the "oldest" fields.
 *
 * @example
 * const ledger = createLedger(config);
 * ledger.record(block);
 * ledger.state(block).oldestBlockHeight;
 */
export function createLedger(
  config: Pick<GasConfig, "aggressiveBlockHistory" | "skipLatestBlock">,
): Ledger {
  const held = createHeldBlocks(config.aggressiveBlockHistory + (config.skipLatestBlock ? 1 : 0));
  let chainId = 0;
  let ledgerVersion = 0n;
  let timestampUsec = 0n;
  return {
    record(block) {
      held.hold(block);
      if (block.chainId !== undefined) chainId = block.chainId;
      if (block.lastVersion !== undefined) ledgerVersion = block.lastVersion;
      else if (block.firstVersion !== undefined) ledgerVersion = block.firstVersion;
      // The last time given: a block without one does not set it to 0 (a failed health check).
      // Not the highest seen: one far-future timestamp would stay served for good.
      if (block.timestampUsec !== undefined) timestampUsec = block.timestampUsec;
    },
    forget: () => held.clear(),
    state(block) {
      const oldest = held.oldest();
      return Object.freeze({
        chainId,
        epoch: block.epoch,
        ledgerVersion,
        oldestLedgerVersion: oldest.firstVersion ?? oldest.lastVersion ?? ledgerVersion,
        timestampUsec,
        blockHeight: block.height,
        oldestBlockHeight: oldest.height,
      });
    },
  };
}
