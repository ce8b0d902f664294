import type { Engine } from "../core/createEngine.js";
import { shorten } from "../core/describeValue.js";
import { BaseError } from "../core/errors.js";
import type { LimitedLogger } from "./createLogLimiter.js";

/**
 * Log what the engine reports: one line per event worth an operator's attention, through a
 * rate-limited logger (repeated rejections or strategy failures are counted, not each written).
 *
 * @example
 * const stop = logEngineEvents(engine, createLogLimiter(pino()));
 */
export function logEngineEvents(engine: Engine, log: LimitedLogger) {
  let first = true;
  const snapshots = engine.snapshots$.subscribe((s) => {
    if (first) {
      first = false;
      log.info(
        { height: s.ledger.blockHeight.toString(), epoch: s.ledger.epoch.toString() },
        "first block ingested",
      );
    }
  });
  const events = engine.events$.subscribe((e) => {
    switch (e.type) {
      case "rejected":
        // The height, when the block was valid, names the entry to look at (a Redis entry's
        // id is `<height>-0`); an invalid block's error names its own field. One message for
        // all, so a flood of them is rate-limited as one.
        log.warn(
          e.height === undefined
            ? { err: e.error.shortMessage }
            : { err: e.error.shortMessage, height: e.height.toString() },
          "block rejected",
        );
        break;
      case "duplicate":
        log.debug({ height: e.height.toString() }, "duplicate block ignored");
        break;
      case "epoch_changed":
        log.info(
          { from: e.from.toString(), to: e.to.toString(), height: e.height.toString() },
          "epoch changed",
        );
        break;
      case "resynced":
        log.warn(
          {
            from: e.from.toString(),
            to: e.to.toString(),
            epoch: e.epoch.toString(),
            rejected: e.rejected,
          },
          "blocks in order after the newest one were rejected in a row; following them from their height",
        );
        break;
      case "strategy_failed":
        log.error({ err: e.error, details: e.error.details }, "strategy failed");
        break;
      case "source_error":
        log.error(
          {
            err:
              e.error instanceof BaseError
                ? e.error.shortMessage
                : shorten(String((e.error as Error)?.message ?? e.error), 500),
          },
          "source failed; serving the last estimate until it goes stale",
        );
        break;
      case "source_completed":
        log.info({ counters: engine.counters() }, "source completed; the estimate stays served");
        break;
    }
  });
  return () => {
    snapshots.unsubscribe();
    events.unsubscribe();
  };
}
