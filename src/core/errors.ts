import { capIssues } from "./createIssueList.js";

/** One problem found while validating input: where it is and what is wrong. */
export interface ValidationIssue {
  /** Field path such as `gas_unit_prices[3]` or `lowBlockHistory`; empty for the whole value. */
  readonly path: string;
  /** What is wrong, for a person: what was expected and what was found. */
  readonly message: string;
  /**
   * Machine-readable kind, when there is one: zod's issue code for what a schema found
   * (`invalid_type`, `too_small`, `too_big`, `invalid_value`, `unrecognized_keys`, `custom` for
   * gasdigest's own rules inside a schema, ...), `"too_many_issues"` for the last issue of a list
   * cut at 20 issues (its message says how many more were found), or one of gasdigest's
   * own codes (`invalid_json`, `too_large`, `duplicate_key`, `unreadable`, `out_of_order` for
   * a block the ordering rules refuse) where a check outside a schema found it; any other rule
   * of gasdigest's is `custom`. A {@link ValidationError} gives every issue a code.
   */
  readonly code?: string;
}

/** Most issues a validation error lists; the rest are counted in one last issue. */
export const MAX_ISSUES = 20;

/** Options of {@link BaseError} and every error class derived from it. */
export interface BaseErrorOptions {
  /** Extra human-readable detail (never a stack trace). */
  details?: string | undefined;
  /** The underlying error, kept as the standard `Error.cause`. */
  cause?: unknown | undefined;
}

/**
 * Root of every error gasdigest throws on purpose. `shortMessage` is one line fit for a user;
 * `details` adds context; `message` combines both.
 *
 * @example
 * try { engine.ingest(line) } catch (e) { if (e instanceof BaseError) console.error(e.shortMessage) }
 */
export class BaseError extends Error {
  override name = "BaseError";
  readonly shortMessage: string;
  readonly details: string | undefined;

  constructor(shortMessage: string, options: BaseErrorOptions = {}) {
    super(options.details ? `${shortMessage}\n\nDetails: ${options.details}` : shortMessage, {
      cause: options.cause,
    });
    this.shortMessage = shortMessage;
    this.details = options.details;
  }
}

/** Format a list of issues as `path: message` lines (or one `; `-joined line). */
export function formatIssues(issues: readonly ValidationIssue[], separator = "\n"): string {
  return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join(separator);
}

/**
 * Input failed validation; `issues` lists the problems found (not just the first), at most
 * 20 of them plus one `too_many_issues` issue counting the rest.
 */
export class ValidationError extends BaseError {
  override name = "ValidationError";
  /** What failed validation, e.g. `invalid configuration` or `invalid response from URL`. */
  readonly subject: string;
  readonly issues: readonly ValidationIssue[];

  constructor(subject: string, given: readonly ValidationIssue[]) {
    // At most 20 issues, whoever built the list (a check of its own appending one issue per
    // unknown key or per bad entry too): a list already cut (20 and a summary) is kept as it is.
    const listed = given.filter((i) => i.code !== "too_many_issues").length;
    const issues = listed > MAX_ISSUES ? capIssues(given) : given;
    super(`${subject}: ${formatIssues(issues, "; ")}`);
    this.subject = subject;
    // Every issue carries a code: one found by a rule of gasdigest's own that named none is
    // `custom`, as such a rule inside a schema is.
    this.issues = issues.every((i) => i.code !== undefined)
      ? issues
      : issues.map((i) => (i.code !== undefined ? i : { ...i, code: "custom" }));
  }
}

/** A block sample does not match the block format. */
export class InvalidBlockSampleError extends ValidationError {
  override name = "InvalidBlockSampleError";
  constructor(issues: readonly ValidationIssue[]) {
    super("invalid block sample", issues);
  }
}

/** A configuration object or file does not match the configuration schema. */
export class InvalidConfigError extends ValidationError {
  override name = "InvalidConfigError";
  constructor(issues: readonly ValidationIssue[]) {
    super("invalid configuration", issues);
  }
}

/**
 * A function of the library was called with an argument it cannot use (for example a request
 * that is not an object); `issues` names the argument and the problem.
 */
export class InvalidArgumentError extends ValidationError {
  override name = "InvalidArgumentError";
  constructor(issues: readonly ValidationIssue[]) {
    super("invalid argument", issues);
  }
}

/**
 * A block arrived out of order (lower height, lower epoch at a higher height, another chain,
 * versions going back, ...).
 */
export class BlockOrderError extends BaseError {
  override name = "BlockOrderError";
  readonly issue: ValidationIssue;
  constructor(issue: ValidationIssue) {
    super(`${issue.path}: ${issue.message}`);
    this.issue = issue;
  }
}

/** A strategy threw or returned an estimate that breaks the estimate invariants. */
export class StrategyError extends BaseError {
  override name = "StrategyError";
}

/**
 * `parseJsonLossless` got text that is not JSON (`code` `invalid_json`, the message is
 * `JSON.parse`'s, the `SyntaxError` its `cause`), or that holds more objects, arrays or members
 * than its limits allow (`code` `too_large`).
 *
 * @example
 * try { parseJsonLossless("{") } catch (e) { if (e instanceof InvalidJsonError) e.code; } // "invalid_json"
 */
export class InvalidJsonError extends BaseError {
  override name = "InvalidJsonError";
  readonly code: "invalid_json" | "too_large";
  constructor(code: "invalid_json" | "too_large", message: string, options: BaseErrorOptions = {}) {
    super(message, options);
    this.code = code;
  }
}
