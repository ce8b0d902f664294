import type { NodeClient } from "./createNodeClient.js";

/** What {@link EpochPrices.readOrGiveUp} found: the price, or how often the read failed. */
export type PriceWait = { value: bigint | undefined } | { failures: number };

/** The minimum gas unit price of each epoch, read once per epoch, possibly ahead of time. */
export interface EpochPrices {
  /** Start reading `epoch`'s price at `version` (its first block's), unless started at that version. */
  prefetch(epoch: bigint, version: bigint): void;
  /** `epoch`'s price at `version`: the read {@link prefetch} started there, or one started now. */
  read(epoch: bigint, version: bigint): Promise<bigint | undefined>;
  /**
   * The read of `epoch` at `version` (started if it was not): its answer, or, once it has failed
   * `failures` times and `ms` went by, or `2 × ms` went by, how often it failed. The read is
   * then given up (aborted: a request failing for good must not keep the source counted as
   * failing); {@link probe} asks again, once at a time.
   */
  readOrGiveUp(epoch: bigint, version: bigint, failures: number, ms: number): Promise<PriceWait>;
  /**
   * For a read given up: ask once more (a single attempt, not counted as a failing request),
   * unless an attempt is under way or the last began less than `everyMs` ago.
   */
  probe(epoch: bigint, version: bigint, everyMs: number): void;
  /** The price read of `epoch` at `version` answered (a probe's included), if it has. */
  answered(epoch: bigint, version: bigint): { value: bigint | undefined } | undefined;
  /** Drop the reads of every epoch not in `epochs`, aborting those still under way. */
  retain(epochs: ReadonlySet<bigint>): void;
  /** Reads held (one per epoch, or more where an epoch was seen starting at other versions). */
  readonly size: number;
}

/** A read and what stops it: its own controller, aborted with the source or when dropped. */
interface HeldRead {
  readonly epoch: bigint;
  readonly version: bigint;
  read: Promise<bigint | undefined>;
  controller: AbortController;
  /** What the read (or a probe) answered, once it has. */
  answer?: { value: bigint | undefined };
  /** Failed attempts of the read so far. */
  failures: number;
  /** Called after each failed attempt. */
  readonly onFailure: Set<() => void>;
  /** Given up: no read retries; probes ask. */
  gaveUp: boolean;
  /** When the last probe began (`-Infinity`: none), and whether one is under way. */
  probedAt: number;
  probing: boolean;
}

const dropped = () => new DOMException("the gas schedule read was dropped", "AbortError");

/**
 * The gas schedule reads of the `aptosRest` source, keyed by epoch and the version read at (the
 * schedule only changes at an epoch change). The version is part of the key: a block that
 * claimed a later epoch out of turn (a node's bad answer, refused downstream) had its read taken
 * for the epoch when it really came, much later, and that epoch was served the bad stretch's
 * minimum for its whole length. Starting a read as soon as a fetched block shows that a new epoch begins
 * there means the emission of that block does not wait for one more request. Each read has its
 * own signal, chained to `signal`: a read dropped by {@link EpochPrices.retain} or given up is
 * aborted, so it stops retrying (a node failing it for good would otherwise be asked forever,
 * and the source would never count the node as back).
 *
 * @example
 * const prices = createEpochPrices(client, signal);
 * prices.prefetch(55n, firstVersionOfEpoch55);
 * const min = await prices.read(55n, firstVersionOfEpoch55); // the same read
 */
export function createEpochPrices(
  client: NodeClient,
  signal: AbortSignal,
  now: () => number = () => performance.now(),
): EpochPrices {
  const reads = new Map<string, HeldRead>();
  const keyOf = (epoch: bigint, version: bigint) => `${epoch}@${version}`;
  // The controllers of the reads under way, aborted with the source by one listener: one
  // listener per read put as many on the source's signal as epochs begin in the lookahead (a
  // chain changing epoch every few blocks), and node printed a "possible memory leak" warning.
  const live = new Set<AbortController>();
  const abortAll = () => {
    for (const c of live) c.abort(signal.reason);
    live.clear();
  };
  if (!signal.aborted) signal.addEventListener("abort", abortAll, { once: true });
  /** An abort controller chained to the source's signal, and its release. */
  const chained = () => {
    const controller = new AbortController();
    if (signal.aborted) controller.abort(signal.reason);
    else live.add(controller);
    return { controller, detach: () => live.delete(controller) };
  };
  const prefetch = (epoch: bigint, version: bigint) => {
    const key = keyOf(epoch, version);
    if (reads.has(key)) return;
    const { controller, detach } = chained();
    const held: HeldRead = {
      epoch,
      version,
      read: Promise.resolve(undefined),
      controller,
      failures: 0,
      onFailure: new Set(),
      gaveUp: false,
      probedAt: Number.NEGATIVE_INFINITY,
      probing: false,
    };
    held.read = client.minGasUnitPrice(version, controller.signal, {
      onFailure: () => {
        held.failures++;
        for (const f of held.onFailure) f();
      },
    });
    // Awaited by `read` later, or dropped: either way the source's signal lets go of it.
    held.read.then((value) => {
      held.answer ??= { value };
      detach();
    }, detach);
    reads.set(key, held);
  };
  const held = (epoch: bigint, version: bigint) => {
    prefetch(epoch, version);
    return reads.get(keyOf(epoch, version))!;
  };
  return {
    prefetch,
    read: (epoch, version) => held(epoch, version).read,
    readOrGiveUp(epoch, version, failures, ms) {
      const h = held(epoch, version);
      if (h.answer) return Promise.resolve(h.answer);
      // Given up already (an epoch start seen again): its probes ask, nothing waits.
      if (h.gaveUp) return Promise.resolve({ failures: h.failures });
      return new Promise<PriceWait>((resolve, reject) => {
        // Set by the timers themselves: a timer may fire a fraction of a millisecond before
        // a clock read would say its time had come, and nothing would check again.
        let soonPassed = false;
        let latePassed = false;
        const done = () => {
          clearTimeout(soon);
          clearTimeout(late);
          h.onFailure.delete(check);
        };
        const check = () => {
          if (!latePassed && (!soonPassed || h.failures < failures)) return;
          done();
          h.gaveUp = true;
          h.controller.abort(dropped());
          resolve({ failures: h.failures });
        };
        const soon = setTimeout(() => {
          soonPassed = true;
          check();
        }, ms);
        const late = setTimeout(() => {
          latePassed = true;
          check();
        }, 2 * ms);
        h.onFailure.add(check);
        h.read.then(
          (value) => {
            done();
            resolve({ value });
          },
          (error: unknown) => {
            done();
            // Aborted by the give-up above: resolved already.
            if (!h.gaveUp) reject(error);
          },
        );
      });
    },
    probe(epoch, version, everyMs) {
      const h = reads.get(keyOf(epoch, version));
      if (!h?.gaveUp || h.answer || h.probing || now() - h.probedAt < everyMs) return;
      h.probing = true;
      h.probedAt = now();
      const { controller, detach } = chained();
      h.controller = controller;
      client
        .minGasUnitPrice(version, controller.signal, { once: true })
        .then(
          (value) => {
            h.answer ??= { value };
          },
          () => undefined, // asked again after everyMs
        )
        .finally(() => {
          h.probing = false;
          detach();
        });
    },
    answered: (epoch, version) => reads.get(keyOf(epoch, version))?.answer,
    get size() {
      return reads.size;
    },
    retain(epochs) {
      for (const [key, h] of reads)
        if (!epochs.has(h.epoch)) {
          reads.delete(key);
          h.controller.abort(dropped());
        }
    },
  };
}
