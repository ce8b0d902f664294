import { MAX_ISSUES, type ValidationIssue } from "./errors.js";

/** How many issues each `too_many_issues` summary stands for (kept off the public shape). */
const summarised = new WeakMap<ValidationIssue, number>();

/**
 * The last issue of a list cut short: `and N more issues (not listed)`, code `too_many_issues`.
 *
 * @example
 * moreIssues(5_999_980); // { path: "", code: "too_many_issues", message: "and 5999980 more issues (not listed)" }
 */
export function moreIssues(count: number): ValidationIssue {
  const issue = Object.freeze({
    path: "",
    code: "too_many_issues",
    message: `and ${count} more ${count === 1 ? "issue" : "issues"} (not listed)`,
  });
  summarised.set(issue, count);
  return issue;
}

/**
 * The last issue of a check that stopped early: `stopped after N issues; M more <what> not
 * checked`, code `too_many_issues`. For lists whose entries are costly to check (each a
 * transaction parsed by a schema), where counting the bad ones would cost as much as listing them.
 *
 * @example
 * notChecked(7_999_980, "transactions");
 */
export function notChecked(count: number, what: string, max = MAX_ISSUES): ValidationIssue {
  return Object.freeze({
    path: "",
    code: "too_many_issues",
    message: `stopped after ${max} issues; ${count} more ${what} not checked`,
  });
}

/** How many problems an issue stands for: 1, or the count of a {@link moreIssues} summary. */
export function issueWeight(issue: ValidationIssue): number {
  return summarised.get(issue) ?? 1;
}

/** Issues collected up to a limit; past it they are only counted. */
export interface IssueList {
  /** The limit is reached: {@link IssueList.report} only counts from now on. */
  readonly full: boolean;
  /** Problems found so far, listed or not. */
  readonly found: number;
  /** Record one problem; `make` runs only while the list is not full (no message is built past it). */
  report(make: () => ValidationIssue): void;
  /** Record issues found elsewhere (a summary counts for what it stands for). */
  add(issues: readonly ValidationIssue[]): void;
  /** The listed issues, plus one {@link moreIssues} summary when some were only counted. */
  issues(): ValidationIssue[];
}

/**
 * Collect validation issues at a bounded cost: the first `max` are kept, the rest counted, so a
 * value with millions of problems costs one counter, not millions of messages.
 *
 * @example
 * const list = createIssueList();
 * for (let i = 0; i < items.length; i++)
 *   if (!valid(items[i])) list.report(() => ({ path: `items[${i}]`, message: "is not valid" }));
 * if (list.found > 0) throw new ValidationError("invalid items", list.issues());
 */
export function createIssueList(max = MAX_ISSUES): IssueList {
  const listed: ValidationIssue[] = [];
  let found = 0;
  return {
    get full() {
      return listed.length >= max;
    },
    get found() {
      return found;
    },
    report(make) {
      found++;
      if (listed.length < max) listed.push(make());
    },
    add(issues) {
      for (const issue of issues) {
        const weight = issueWeight(issue);
        found += weight;
        if (listed.length < max && weight === 1 && !summarised.has(issue)) listed.push(issue);
      }
    },
    issues() {
      const more = found - listed.length;
      return more > 0 ? [...listed, moreIssues(more)] : [...listed];
    },
  };
}

/**
 * A list of issues cut to `max`, the rest counted in one last `too_many_issues` issue
 * (summaries already in the list are merged into it).
 *
 * @example
 * capIssues(manyIssues).length; // 21 at most
 */
export function capIssues(issues: readonly ValidationIssue[], max = MAX_ISSUES): ValidationIssue[] {
  if (issues.length <= max && !issues.some((i) => summarised.has(i))) return [...issues];
  const list = createIssueList(max);
  list.add(issues);
  return list.issues();
}
