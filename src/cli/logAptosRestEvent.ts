import type { Logger } from "pino";
import {
  type AptosRestEvent,
  aptosRestEventFields,
  describeAptosRestEvent,
} from "../sources/aptosRest.js";

/**
 * A logger for the events of the live-node source: retries at debug, an unreachable node at
 * warn, the rest at info, each with its fields.
 *
 * @example
 * aptosRest(url, { onEvent: logAptosRestEvent(log) });
 */
export function logAptosRestEvent(log: Logger) {
  return (event: AptosRestEvent) => {
    const level =
      event.type === "retrying" ? "debug" : event.type === "unreachable" ? "warn" : "info";
    log[level](
      { event: event.type, ...aptosRestEventFields(event) },
      describeAptosRestEvent(event),
    );
  };
}
