import {
  type AptosRestEvent,
  aptosRestEventFields,
  describeAptosRestEvent,
} from "../sources/aptosRest.js";
import type { LineLogger } from "./createLogLimiter.js";

/**
 * A logger for the events of the live-node source: retries at debug, an unreachable or
 * rate-limiting node, a tip gone back, a block the node keeps refusing or a gas schedule that
 * does not answer at warn, the rest at info, each with its
 * fields; `also` gets each event first (the metrics). Lines are rate-limited per event type: a node that changes epoch every block
 * costs a few lines every ten seconds, not one per block.
 *
 * @example
 * aptosRest(url, { onEvent: logAptosRestEvent(createLogLimiter(log)) });
 */
export function logAptosRestEvent(log: LineLogger, also?: (event: AptosRestEvent) => void) {
  return (event: AptosRestEvent) => {
    also?.(event);
    const level =
      event.type === "retrying"
        ? "debug"
        : event.type === "unreachable" ||
            event.type === "tip_behind" ||
            event.type === "block_unavailable" ||
            event.type === "rate_limited" ||
            event.type === "min_gas_unit_price_pending"
          ? "warn"
          : "info";
    log[level](
      { event: event.type, ...aptosRestEventFields(event) },
      describeAptosRestEvent(event),
      `source event ${event.type}`,
    );
  };
}
