/**
 * Times of one step of an answer seen lately (to its headers, or from them to the whole body),
 * and the hedge delay they call for.
 */
export interface HedgeDelay {
  /** Record how long a request waited for that step (its response headers), in ms. */
  record(ms: number): void;
  /** How long to wait for headers before hedging a request, in ms. */
  delay(): number;
}

/** Answers remembered for the median. */
const WINDOW = 32;
/** A request this many times slower than the median is a straggler. */
const FACTOR = 4;

/**
 * The hedge delay of the source: `max(floorMs, 4 × median time to headers of the last 32
 * answers)`, so that a slow node (or a long way to it) does not get every request twice, and at
 * most `capMs` (the request timeout: a hedge after it would never start).
 *
 * @example
 * const hedge = createHedgeDelay(500, 10_000);
 * hedge.record(120);
 * hedge.delay(); // 500
 */
export function createHedgeDelay(floorMs: number, capMs: number): HedgeDelay {
  const recent = new Float64Array(WINDOW);
  let count = 0;
  let cached: number | undefined;
  return {
    record(ms) {
      recent[count % WINDOW] = ms;
      count++;
      cached = undefined;
    },
    delay() {
      if (cached !== undefined) return cached;
      const n = Math.min(count, WINDOW);
      let median = 0;
      if (n > 0) {
        const sorted = recent.slice(0, n).sort();
        median = sorted[n >> 1]!;
      }
      cached = Math.min(capMs, Math.max(floorMs, FACTOR * median));
      return cached;
    },
  };
}
