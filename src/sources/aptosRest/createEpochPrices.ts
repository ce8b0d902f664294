import type { NodeClient } from "./createNodeClient.js";

/** The minimum gas unit price of each epoch, read once per epoch, possibly ahead of time. */
export interface EpochPrices {
  /** Start reading `epoch`'s price at `version` (its first block's), unless started at that version. */
  prefetch(epoch: bigint, version: bigint): void;
  /** `epoch`'s price at `version`: the read {@link prefetch} started there, or one started now. */
  read(epoch: bigint, version: bigint): Promise<bigint | undefined>;
  /** The price the read of `epoch` at `version` answered, if it has (`undefined`: not yet). */
  answered(epoch: bigint, version: bigint): { value: bigint | undefined } | undefined;
  /**
   * The read of `epoch` at `version` (started if it was not): its answer, or `undefined` once it
   * has failed `failures` times without one and `ms` have passed (it goes on: see
   * {@link answered}).
   */
  readOrGiveUp(
    epoch: bigint,
    version: bigint,
    failures: number,
    ms: number,
  ): Promise<{ value: bigint | undefined } | undefined>;
  /** Drop the reads of every epoch not in `epochs`, aborting those still under way. */
  retain(epochs: ReadonlySet<bigint>): void;
  /** Reads held (one per epoch, or more where an epoch was seen starting at other versions). */
  readonly size: number;
}

/** A read and what stops it: its own controller, aborted with the source or when dropped. */
interface HeldRead {
  readonly epoch: bigint;
  readonly read: Promise<bigint | undefined>;
  /** What the read answered, once it has. */
  answer?: { value: bigint | undefined };
  /** Its failed attempts so far. */
  failures: number;
  /** Called after each failed attempt. */
  readonly onFailure: Set<() => void>;
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
    const onFailure = new Set<() => void>();
    const read = client.minGasUnitPrice(version, controller.signal, () => {
      held.failures++;
      for (const f of onFailure) f();
    });
    const held: HeldRead = {
      epoch,
      read,
      failures: 0,
      onFailure,
      drop() {
        detach();
        controller.abort(new DOMException("the gas schedule read was dropped", "AbortError"));
      },
    };
    // Awaited by `read` later, or dropped: either way the source's signal lets go of it.
    read.then((value) => {
      held.answer = { value };
      detach();
    }, detach);
    reads.set(key, held);
  };
  return {
    prefetch,
    read(epoch, version) {
      prefetch(epoch, version);
      return reads.get(keyOf(epoch, version))!.read;
    },
    answered(epoch, version) {
      return reads.get(keyOf(epoch, version))?.answer;
    },
    readOrGiveUp(epoch, version, failures, ms) {
      prefetch(epoch, version);
      const held = reads.get(keyOf(epoch, version))!;
      if (held.answer) return Promise.resolve(held.answer);
      return new Promise((resolve, reject) => {
        let waited = false;
        const done = () => {
          clearTimeout(timer);
          held.onFailure.delete(check);
        };
        const check = () => {
          if (!waited || held.failures < failures) return;
          done();
          resolve(undefined);
        };
        const timer = setTimeout(() => {
          waited = true;
          check();
        }, ms);
        held.onFailure.add(check);
        held.read.then(
          (value) => {
            done();
            resolve({ value });
          },
          (error: unknown) => {
            done();
            reject(error);
          },
        );
      });
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
