import { formatIssues } from "../core/errors.js";
import type { InvalidLineError, WaitCutEvent } from "../sources/ndjsonFile.js";

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

/**
 * The `onWaitCut` of a paced NDJSON file source in `serve` and `publish`: warns `wait cut` with
 * the line, the height and the wait its timestamp asked for. Told when the cut wait starts, so
 * the line says what is coming, not what was.
 *
 * @example
 * ndjsonFile(path, { speed: 10, onWaitCut: logWaitCut(log) });
 */
export function logWaitCut(log: {
  warn(fields: object, message: string): void;
}): (event: WaitCutEvent) => void {
  return (e) =>
    log.warn(
      {
        line: e.line,
        height: e.height.toString(),
        askedMs: Math.round(e.gapMs),
        waitedMs: e.waitedMs,
      },
      `wait cut: line ${e.line}'s timestamp asked for ${describeWait(e.gapMs)} after the block before it; it comes ${e.waitedMs} ms after it instead (the longest wait of a paced replay)`,
    );
}

/** A wait in the unit that reads best: ms, s, h or years. */
function describeWait(ms: number): string {
  if (ms < 10_000) return `${Math.round(ms)} ms`;
  if (ms < 3_600_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3.2e10) return `${Math.round(ms / 3_600_000)} h`;
  return `${Math.round(ms / 3.15576e10)} years`;
}
