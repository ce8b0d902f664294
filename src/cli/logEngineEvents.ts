import type { Logger } from "pino";
import type { Engine } from "../core/createEngine.js";
import { BaseError } from "../core/errors.js";

/** Log what the engine reports: one line per event worth an operator's attention. */
export function logEngineEvents(engine: Engine, log: Logger) {
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
        log.warn({ err: e.error.shortMessage }, "block rejected");
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
      case "strategy_failed":
        log.error({ err: e.error, details: e.error.details }, "strategy failed");
        break;
      case "source_error":
        log.error(
          {
            err:
              e.error instanceof BaseError
                ? e.error.shortMessage
                : String((e.error as Error)?.message ?? e.error),
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
