import type { Logger } from "pino";
import {
  type AptosRestEvent,
  aptosRestEventFields,
  describeAptosRestEvent,
} from "../sources/aptosRest.js";

/**
 * A logger for the events of the live-node source: retries at debug, an unreachable node at
 * warn, the rest at info, each with its fields; `also` gets each event first (the metrics).
 *
 * @example
 * aptosRest(url, { onEvent: logAptosRestEvent(log) });
 */
export function logAptosRestEvent(log: Logger, also?: (event: AptosRestEvent) => void) {
  return (event: AptosRestEvent) => {
    also?.(event);
    const level =
      event.type === "retrying" ? "debug" : event.type === "unreachable" ? "warn" : "info";
    log[level](
      { event: event.type, ...aptosRestEventFields(event) },
      describeAptosRestEvent(event),
    );
  };
}
