import { shorten, thrownText } from "./describeValue.js";
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
      path: showPath(path),
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

/** `a.b[3].c`, as validation issues name paths (the sketches use this file without zod). */
function showPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path)
    out += typeof key === "number" ? `[${key}]` : out ? `.${String(key)}` : String(key);
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
