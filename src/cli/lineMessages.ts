import { formatIssues, type ValidationIssue } from "../core/errors.js";

/**
 * The stderr line of one problem with an input line: `line N: <field path>: <problem>`.
 *
 * @example
 * issueLine(7, { path: "height", message: "must be a u64" }); // "line 7: height: must be a u64"
 */
export function issueLine(line: number, issue: ValidationIssue): string {
  return `line ${line}: ${formatIssues([issue])}`;
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
