import type { NodeClient } from "./createNodeClient.js";

/** The minimum gas unit price of each epoch, read once per epoch, possibly ahead of time. */
export interface EpochPrices {
  /** Start reading `epoch`'s price at `version` (its first block's), unless already started. */
  prefetch(epoch: bigint, version: bigint): void;
  /** `epoch`'s price: the read started by {@link prefetch}, or one started now at `version`. */
  read(epoch: bigint, version: bigint): Promise<bigint | undefined>;
  /** Drop the reads of every epoch not in `epochs`. */
  retain(epochs: ReadonlySet<bigint>): void;
  /** Epochs whose read is held. */
  readonly size: number;
}

/**
 * The gas schedule reads of the `aptosRest` source, keyed by epoch (the schedule only changes
 * at an epoch change). Starting a read as soon as a fetched block shows that a new epoch begins
 * there means the emission of that block does not wait for one more request.
 *
 * @example
 * const prices = createEpochPrices(client, signal);
 * prices.prefetch(55n, firstVersionOfEpoch55);
 * const min = await prices.read(55n, firstVersionOfEpoch55); // the same read
 */
export function createEpochPrices(client: NodeClient, signal: AbortSignal): EpochPrices {
  const reads = new Map<bigint, Promise<bigint | undefined>>();
  const prefetch = (epoch: bigint, version: bigint) => {
    if (reads.has(epoch)) return;
    const read = client.minGasUnitPrice(version, signal);
    read.catch(() => undefined); // awaited by `read` later, or dropped when the source stops
    reads.set(epoch, read);
  };
  return {
    prefetch,
    read(epoch, version) {
      prefetch(epoch, version);
      return reads.get(epoch)!;
    },
    get size() {
      return reads.size;
    },
    retain(epochs) {
      for (const e of reads.keys()) if (!epochs.has(e)) reads.delete(e);
    },
  };
}
