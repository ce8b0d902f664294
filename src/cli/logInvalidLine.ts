import { formatIssues } from "../core/errors.js";
import type { InvalidLineError } from "../sources/ndjsonFile.js";

/**
 * The `onInvalidLine` of an NDJSON file source in `serve` and `publish`: tells `also` of a
 * `rejected` event (the metrics), then warns `bad line skipped` with the line number and its
 * problems on one line.
 *
 * @example
 * ndjsonFile(path, { onInvalidLine: logInvalidLine(log, flags.onEvent) });
 */
export function logInvalidLine(
  log: { warn(fields: object, message: string): void },
  also?: (event: { readonly type: string }) => void,
): (error: InvalidLineError) => void {
  return (e) => {
    also?.({ type: "rejected" });
    log.warn({ line: e.line, problems: formatIssues(e.issues, "; ") }, "bad line skipped");
  };
}
