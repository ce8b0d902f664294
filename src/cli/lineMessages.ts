import { escapeControls } from "../core/describeValue.js";
import { formatIssues, type ValidationIssue } from "../core/errors.js";

/**
 * The stderr line of one problem with an input line: `line N: <field path>: <problem>`.
 *
 * @example
 * issueLine(7, { path: "height", message: "must be a u64" }); // "line 7: height: must be a u64"
 */
export function issueLine(line: number, issue: ValidationIssue): string {
  return `line ${line}: ${escapeControls(formatIssues([issue]))}`;
}

/**
 * The stderr line of an input line repeating the newest height (the block is ignored).
 *
 * @example
 * duplicateLine(8, 42n); // "line 8: height: duplicate of the newest height 42, ignored"
 */
export function duplicateLine(line: number, height: bigint): string {
  return issueLine(line, {
    path: "height",
    message: `duplicate of the newest height ${height}, ignored`,
  });
}

/** Reports of rejected input lines; see {@link createLineReport}. */
export interface LineReport {
  /**
   * Report input line `line`; `lines` makes its stderr lines, only when they are written.
   * `duplicate`: the line repeats the newest height (ignored, not rejected).
   */
  (line: number, lines: () => readonly string[], duplicate?: boolean): Promise<void>;
  /** Write the summary of the lines not reported one by one, if any (once). */
  finish(): Promise<void>;
}

/**
 * Write the reports of the first `max` rejected or duplicate input lines (0: all of them); count
 * the rest and end with one line naming how many of each, and the first and last of their
 * numbers (then `hint`). A file of random bytes then writes a bounded report, and `max` 0 still
 * lists every line.
 *
 * @example
 * const err = new LineWriter(process.stderr);
 * const report = createLineReport((text) => err.line(text), 1000);
 * await report(7, () => [issueLine(7, issue)]);
 * await report.finish(); // "12 more rejected lines not reported one by one (lines 1003 to 1990)"
 */
export function createLineReport(
  write: (text: string) => void | Promise<void>,
  max: number,
  hint = "",
): LineReport {
  let reported = 0;
  let rejected = 0;
  let duplicates = 0;
  let first = 0;
  let last = 0;
  const report = async (line: number, lines: () => readonly string[], duplicate = false) => {
    if (max === 0 || reported < max) {
      reported++;
      for (const text of lines()) await write(text);
      return;
    }
    if (rejected + duplicates === 0) first = line;
    if (duplicate) duplicates++;
    else rejected++;
    last = line;
  };
  return Object.assign(report, {
    async finish() {
      const unreported = rejected + duplicates;
      if (unreported === 0) return;
      const which = unreported === 1 ? `line ${first}` : `lines ${first} to ${last}`;
      const kinds = [
        ...(rejected > 0 ? [`${rejected} more rejected ${rejected === 1 ? "line" : "lines"}`] : []),
        ...(duplicates > 0
          ? [
              `${duplicates} more ${duplicates === 1 ? "line" : "lines"} repeating the newest height`,
            ]
          : []),
      ];
      await write(`${kinds.join(" and ")} not reported one by one (${which})${hint}`);
      rejected = 0;
      duplicates = 0;
    },
  });
}
