import { eventFields } from "../eventFields.js";
import { InvalidResponseError } from "./errors.js";
import type { AptosRestEvent } from "./options.js";

/**
 * An {@link AptosRestEvent} as plain JSON-safe log fields: u64 values as decimal strings and
 * the error as `{ name, message, url, kind?, status?, limit?, issues? }` (loggers print an `Error`
 * nested in an object as `{}`).
 *
 * @example
 * aptosRest(url, { onEvent: (e) => logger.info(aptosRestEventFields(e), describeAptosRestEvent(e)) });
 */
export function aptosRestEventFields(event: AptosRestEvent): Record<string, unknown> {
  return eventFields(event, (e: Extract<AptosRestEvent, { type: "retrying" }>["error"]) =>
    e instanceof InvalidResponseError
      ? { name: e.name, message: e.shortMessage, url: e.url, issues: e.issues }
      : {
          name: e.name,
          message: e.shortMessage,
          details: e.details,
          url: e.url,
          kind: e.kind,
          status: e.status,
          limit: e.limit,
        },
  );
}
