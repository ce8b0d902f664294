import { describeValue, shorten, thrownText } from "./describeValue.js";
import { didYouMean } from "./didYouMean.js";
import type { ValidationIssue } from "./errors.js";

/** Deepest nesting of plain objects and arrays read; deeper values are not read. */
const MAX_DEPTH = 16;

/**
 * Where reading an options value throws, if it does: every own enumerable key of its plain
 * objects and arrays is read once, as validation will read them (class instances, functions,
 * Observables and signals are not looked into). A getter or a proxy trap that throws then gives
 * an issue naming the field, not a raw error from inside validation.
 *
 * @example
 * unreadableOptions({ tiers: { get regular() { throw new Error("boom"); } } }, ["calibrated"]);
 * // { path: "calibrated.tiers.regular", message: "cannot be read: Error: boom", code: "unreadable" }
 * unreadableOptions({ n: 1 }); // undefined
 */
export function unreadableOptions(
  value: unknown,
  prefix: readonly PropertyKey[] = [],
): ValidationIssue | undefined {
  const path: PropertyKey[] = [...prefix];
  try {
    visit(value, path, 0, new Set());
    return undefined;
  } catch (error) {
    return {
      path: formatPath(path),
      message: `cannot be read: ${thrownText(error)}`,
      code: "unreadable",
    };
  }
}

/**
 * The issue for a value whose reading threw (a getter or proxy trap): code `unreadable`, the
 * thrown text cut to 120 characters.
 *
 * @example
 * unreadableIssue("request.headers", new Error("trap")); // { path, message: "cannot be read: Error: trap", code: "unreadable" }
 */
export function unreadableIssue(path: string, cause: unknown): ValidationIssue {
  return {
    path,
    message: `cannot be read: ${shorten(thrownText(cause), 120)}`,
    code: "unreadable",
  };
}

function visit(value: unknown, path: PropertyKey[], depth: number, seen: Set<object>): void {
  if (typeof value !== "object" || value === null || depth >= MAX_DEPTH) return;
  // An object met again (shared, or a cycle) was read the first time.
  if (seen.has(value)) return;
  seen.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      const item = value[i];
      path.pop();
      // A sparse array (a structured clone carries a length of 2^32 − 1 in a few bytes): read
      // the entries it has, not every index up to its length.
      if (item === undefined && !(i in value)) {
        for (const key of Object.keys(value)) {
          const j = Number(key);
          if (!(j > i)) continue;
          path.push(j);
          visit(value[j], path, depth + 1, seen);
          path.pop();
        }
        return;
      }
      path.push(i);
      visit(item, path, depth + 1, seen);
      path.pop();
    }
    return;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return;
  for (const key of Object.keys(value)) {
    path.push(key);
    visit((value as Record<string, unknown>)[key], path, depth + 1, seen);
    path.pop();
  }
}

// A field name shown as is; any other (long, spaces, control characters) is quoted and cut.
const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]{0,63}$/;

/**
 * Render a path as `a.b[3].c`. A key taken from the input that is not a plain name is shown
 * quoted, escaped and cut like a bad value (`a["x y"]`), so a path stays short whatever the
 * input holds.
 */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && PLAIN_KEY.test(key)) out += out ? `.${key}` : key;
    else out += `[${describeValue(typeof key === "symbol" ? String(key) : key)}]`;
  }
  return out;
}

/**
 * Whether `value` has these methods: the check of an engine, a source or a metrics object given
 * as an argument. A getter or proxy trap that throws counts as no, so the caller's named error
 * is what the user sees.
 *
 * @example
 * hasMethods(engine, "snapshot", "counters"); // true for an engine made by createEngine()
 */
export function hasMethods(value: unknown, ...names: string[]): boolean {
  try {
    return names.every(
      (n) => typeof (value as Record<string, unknown> | undefined)?.[n] === "function",
    );
  } catch {
    return false;
  }
}

/**
 * The issue for an unknown key `key` of an options object found at `at`: code
 * `unrecognized_keys`, and named with the field of `known` it likely meant (`unknown field (did
 * you mean port?)`), else with `hint` where given (`unknown field (listen takes host and port)`).
 *
 * @example
 * unknownFieldIssue("prot", ["host", "port"]); // { path: "prot", message: "unknown field (did you mean port?)", code: "unrecognized_keys" }
 */
export function unknownFieldIssue(
  key: string,
  known: Iterable<string>,
  at = "",
  hint?: string,
): ValidationIssue {
  const meant = didYouMean(key, known);
  const tail = meant ? ` (did you mean ${meant}?)` : hint ? ` (${hint})` : "";
  // A key that is no plain name is shown quoted (`["x y"]`), so it needs no dot after `at`.
  const shown = formatPath([key]);
  const path = !at ? shown : shown.startsWith("[") ? `${at}${shown}` : `${at}.${shown}`;
  return { path, message: `unknown field${tail}`, code: "unrecognized_keys" };
}

/**
 * One {@link unknownFieldIssue} for each own key of `options` that is not in `known`, its path
 * under `at` (`strategies[1].nmae`).
 *
 * @example
 * unknownFieldIssues({ prot: 80 }, ["host", "port"]); // [{ path: "prot", message: "unknown field (did you mean port?)", ... }]
 */
export function unknownFieldIssues(
  options: object,
  known: readonly string[],
  at = "",
  hint?: string,
): ValidationIssue[] {
  return Object.keys(options)
    .filter((key) => !known.includes(key))
    .map((key) => unknownFieldIssue(key, known, at, hint));
}

/**
 * The options object a function was given, read as every options reader reads it: `undefined`
 * and `null` are the defaults (`{}`); anything else that is not an object is one issue naming
 * it (`options`, or `at` for an argument with a name of its own), and so is an object whose
 * reading throws (a getter or a proxy trap, named by its field, under `at` when given).
 *
 * @example
 * openOptions(null); // { value: {} }
 * openOptions(5); // { issue: { path: "options", message: "must be an object (got 5)", code: "invalid_type" } }
 */
export function openOptions(
  input: unknown,
  at?: string,
): { value: Record<string, unknown>; issue?: undefined } | { issue: ValidationIssue } {
  if (input === undefined || input === null) return { value: {} };
  if (typeof input !== "object" || Array.isArray(input))
    return {
      issue: {
        path: at ?? "options",
        message: `must be an object (got ${describeValue(input)})`,
        code: "invalid_type",
      },
    };
  const unreadable = unreadableOptions(input, at === undefined ? [] : [at]);
  return unreadable ? { issue: unreadable } : { value: input as Record<string, unknown> };
}

/**
 * The issues of an inner options object that was given every key an outer one does not take
 * (the handler's options inside `createServer`'s or an adapter's): an unknown field the inner
 * object has no suggestion for is named with the outer field it likely meant (`prefx`: `did you
 * mean prefix?`).
 *
 * @example
 * suggestOuterFields(handlerIssues, ["prefix", "closeEngine"]);
 */
export function suggestOuterFields(
  issues: readonly ValidationIssue[],
  outer: readonly string[],
): ValidationIssue[] {
  // Only a top-level key shown as is: a quoted one (`["x y"]`) is kept as the inner check
  // named it, not quoted again.
  return issues.map((issue) =>
    issue.code === "unrecognized_keys" &&
    issue.message === "unknown field" &&
    PLAIN_KEY.test(issue.path)
      ? unknownFieldIssue(issue.path, outer)
      : issue,
  );
}
