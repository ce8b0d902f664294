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
  // When this server last saw a block (its own clock), and whether this stale spell's warning
  // already said that blocks keep coming.
  let seenAt: number | undefined;
  let arrivingSaid = false;
  // When this stale spell began: only blocks seen since say that blocks keep coming. A replica's
  // warm start (old blocks, all seen at once, then nothing: its publisher had stopped) was
  // taken for blocks still arriving, and the warning blamed the publisher's clock.
  let staleSince: number | undefined;
  const check = () => {
    const s = engine.snapshot();
    if (s === undefined) return;
    const t = now();
    const ageMs = t - s.receivedAtMs;
    const isStale = ageMs > maxStalenessMs && !engine.sourcesCompleted;
    const height = s.ledger.blockHeight.toString();
    // Stale by the block's own arrival time (a replica counts from the publisher's clock),
    // though blocks keep reaching this server: say so, once, or the operator looks for an
    // outage that is not there.
    if (isStale) staleSince ??= t;
    else staleSince = undefined;
    const seenMs = seenAt === undefined ? undefined : Math.round(t - seenAt);
    const arriving =
      isStale && seenAt !== undefined && seenAt >= staleSince! && seenMs! <= maxStalenessMs;
    if (isStale && (!stale || (arriving && !arrivingSaid))) {
      const fields = { height, ageMs: Math.round(ageMs), maxStalenessMs };
      log.warn(
        arriving ? { ...fields, seenMs } : fields,
        `stale: the newest block (height ${height}) arrived ${Math.round(ageMs)} ms ago, more than --max-staleness-ms ${maxStalenessMs}: the estimate and the health check answer 503 until a block arrives${arriving ? `. Yet blocks still reach this server (the last ${seenMs} ms ago), stamped that old by their source (received_at_ms): a backlog being read (a replica catching up), a source whose clock is behind this one's, or one that sends old blocks` : ""}`,
      );
      arrivingSaid = arriving;
    } else if (!isStale && stale) {
      log.info({ height }, `fresh again: block ${height} arrived; the estimate is served`);
      arrivingSaid = false;
    }
    stale = isStale;
  };
  const timer = setInterval(check, Math.max(10, intervalMs));
  timer.unref();
  // The snapshot replayed on subscribing (synchronously) is not a block seen now.
  let live = false;
  const blocks = engine.snapshots$.subscribe(() => {
    if (!live) return;
    seenAt = now();
    if (stale) check();
  });
  live = true;
  return () => {
    clearInterval(timer);
    blocks.unsubscribe();
  };
}
