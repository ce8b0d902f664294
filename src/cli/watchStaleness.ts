import type { Engine } from "../core/createEngine.js";

/** What {@link watchStaleness} logs through. */
interface TransitionLogger {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

/**
 * Log when `serve` goes stale and when it is fresh again: by the handler's own rule (the newest
 * block arrived more than `maxStalenessMs` ago and the source has not completed), the estimate
 * and the health check answer 503 from then on. Without this a replica behind a load balancer
 * dropped out of rotation with nothing in its own log to say why. Checked every
 * `intervalMs` (at most a second) and at each block while stale, so recovery is logged at once.
 * Returns the stop.
 *
 * @example
 * const stop = watchStaleness(engine, log, 30_000);
 */
export function watchStaleness(
  engine: Pick<Engine, "snapshot" | "snapshots$" | "sourcesCompleted">,
  log: TransitionLogger,
  maxStalenessMs: number | false,
  now: () => number = Date.now,
  intervalMs: number = maxStalenessMs === false ? 0 : Math.min(1_000, maxStalenessMs / 4),
): () => void {
  if (maxStalenessMs === false) return () => undefined;
  let stale = false;
  const check = () => {
    const s = engine.snapshot();
    if (s === undefined) return;
    const ageMs = now() - s.receivedAtMs;
    const isStale = ageMs > maxStalenessMs && !engine.sourcesCompleted;
    const height = s.ledger.blockHeight.toString();
    if (isStale && !stale)
      log.warn(
        { height, ageMs: Math.round(ageMs), maxStalenessMs },
        `stale: the newest block (height ${height}) arrived ${Math.round(ageMs)} ms ago, more than --max-staleness-ms ${maxStalenessMs}: the estimate and the health check answer 503 until a block arrives`,
      );
    else if (!isStale && stale)
      log.info({ height }, `fresh again: block ${height} arrived; the estimate is served`);
    stale = isStale;
  };
  const timer = setInterval(check, Math.max(10, intervalMs));
  timer.unref();
  const blocks = engine.snapshots$.subscribe(() => {
    if (stale) check();
  });
  return () => {
    clearInterval(timer);
    blocks.unsubscribe();
  };
}
