import type { NodeClient } from "./createNodeClient.js";

/** The minimum gas unit price of each epoch, read once per epoch, possibly ahead of time. */
export interface EpochPrices {
  /** Start reading `epoch`'s price at `version` (its first block's), unless started at that version. */
  prefetch(epoch: bigint, version: bigint): void;
  /** `epoch`'s price at `version`: the read {@link prefetch} started there, or one started now. */
  read(epoch: bigint, version: bigint): Promise<bigint | undefined>;
  /** Drop the reads of every epoch not in `epochs`, aborting those still under way. */
  retain(epochs: ReadonlySet<bigint>): void;
  /** Reads held (one per epoch, or more where an epoch was seen starting at other versions). */
  readonly size: number;
}

/** A read and what stops it: its own controller, aborted with the source or when dropped. */
interface HeldRead {
  readonly epoch: bigint;
  readonly read: Promise<bigint | undefined>;
  drop(): void;
}

/**
 * The gas schedule reads of the `aptosRest` source, keyed by epoch and the version read at (the
 * schedule only changes at an epoch change). The version is part of the key: a block that
 * claimed a later epoch out of turn (a node's bad answer, refused downstream) had its read taken
 * for the epoch when it really came, much later, and that epoch was served the bad stretch's
 * minimum for its whole length. Starting a read as soon as a fetched block shows that a new epoch begins
 * there means the emission of that block does not wait for one more request. Each read has its
 * own signal, chained to `signal`: a read dropped by {@link EpochPrices.retain} is aborted, so
 * it stops retrying (a node failing it for good would otherwise be asked forever, and the
 * source would never count the node as back).
 *
 * @example
 * const prices = createEpochPrices(client, signal);
 * prices.prefetch(55n, firstVersionOfEpoch55);
 * const min = await prices.read(55n, firstVersionOfEpoch55); // the same read
 */
export function createEpochPrices(client: NodeClient, signal: AbortSignal): EpochPrices {
  const reads = new Map<string, HeldRead>();
  const keyOf = (epoch: bigint, version: bigint) => `${epoch}@${version}`;
  const prefetch = (epoch: bigint, version: bigint) => {
    const key = keyOf(epoch, version);
    if (reads.has(key)) return;
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener("abort", onAbort, { once: true });
    const detach = () => signal.removeEventListener("abort", onAbort);
    const read = client.minGasUnitPrice(version, controller.signal);
    // Awaited by `read` later, or dropped: either way the source's signal lets go of it.
    read.then(detach, detach);
    reads.set(key, {
      epoch,
      read,
      drop() {
        detach();
        controller.abort(new DOMException("the gas schedule read was dropped", "AbortError"));
      },
    });
  };
  return {
    prefetch,
    read(epoch, version) {
      prefetch(epoch, version);
      return reads.get(keyOf(epoch, version))!.read;
    },
    get size() {
      return reads.size;
    },
    retain(epochs) {
      for (const [key, held] of reads)
        if (!epochs.has(held.epoch)) {
          reads.delete(key);
          held.drop();
        }
    },
  };
}
