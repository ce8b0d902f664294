import type { AptosRestEvent } from "./options.js";

/** How long the next block may be refused before it is told, and then between two tellings. */
export const UNAVAILABLE_WARN_MS = 30_000;

/** Watches the next block to emit while the node refuses it (see {@link createUnavailableWatch}). */
export interface UnavailableWatch {
  /** The node answered `status` for `height` while its ledger info said it was at `tip`. */
  refused(height: bigint, status: 404 | 410, tip: bigint): void;
  /** A block was emitted, or the source moved past the height: the stretch is over. */
  answered(): void;
}

/**
 * Tell (`block_unavailable`) when the node keeps refusing the next block to emit, a 404 while
 * its ledger says it has the height, or a 410 with nothing older to skip to: the source asks
 * again and again (a few requests a second) and nothing moves on. Told once the same height has
 * been refused for {@link UNAVAILABLE_WARN_MS}, then at most once per that long while it lasts,
 * so a stuck source says what it is doing without filling the log.
 *
 * @example
 * const watch = createUnavailableWatch(Date.now, onEvent);
 * watch.refused(1042n, 404, 1100n); // the first refusal starts the clock
 */
export function createUnavailableWatch(
  now: () => number,
  onEvent: (event: AptosRestEvent) => void,
): UnavailableWatch {
  let height: bigint | undefined;
  let since = 0;
  let told: number | undefined;
  return {
    refused(h, status, tip) {
      const t = now();
      if (height !== h) {
        height = h;
        since = t;
        told = undefined;
        return;
      }
      const forMs = t - since;
      if (forMs < UNAVAILABLE_WARN_MS) return;
      if (told !== undefined && t - told < UNAVAILABLE_WARN_MS) return;
      told = t;
      onEvent({ type: "block_unavailable", height: h, status, forMs, tip });
    },
    answered() {
      height = undefined;
    },
  };
}
