import { describeValue } from "./describeValue.js";
import { InvalidArgumentError, InvalidJsonError } from "./errors.js";
import { openOptions, unknownFieldIssues } from "./readOptions.js";

/**
 * Counts JSON text may not exceed, checked before it is parsed: a reader that knows how its
 * values are built refuses text built to be expensive (millions of `{}`, one object of millions
 * of keys, an array of millions of numbers, a nesting millions deep) at the cost of one pass
 * over it, instead of building it. Each is unlimited when left out.
 */
export interface JsonShapeLimits {
  /** Most objects and arrays (`{` and `[` outside strings). */
  maxContainers?: number | undefined;
  /** Most object members (`key: value` pairs, counted as `:` outside strings). */
  maxMembers?: number | undefined;
  /** Most members one object may hold (nested objects count apart). */
  maxObjectMembers?: number | undefined;
  /**
   * Most values after the first of each object or array (`,` outside strings): bounds the
   * elements of arrays of numbers or strings, which hold no container.
   */
  maxValues?: number | undefined;
}

const KEYS = ["maxContainers", "maxMembers", "maxObjectMembers", "maxValues"] as const;

/** The limits checked (an object of the known keys, each a whole number >= 0 or Infinity). */
export function checkShapeLimits(limits: unknown): void {
  const opened = openOptions(limits);
  if (opened.issue) throw new InvalidArgumentError([opened.issue]);
  const issues = unknownFieldIssues(opened.value, KEYS, "", `takes ${KEYS.join(", ")}`);
  for (const key of KEYS) {
    const v = opened.value[key];
    if (
      v !== undefined &&
      !(typeof v === "number" && v >= 0 && (Number.isInteger(v) || v === Number.POSITIVE_INFINITY))
    )
      issues.push({
        path: key,
        message: `must be a whole number >= 0 or Infinity (got ${describeValue(v)})`,
      });
  }
  if (issues.length > 0) throw new InvalidArgumentError(issues);
}

const tooLarge = (what: string) => new InvalidJsonError("too_large", what);

/**
 * The index after the JSON string literal whose opening quote is at `i - 1` (escapes honoured;
 * the text's length when it is not closed).
 *
 * @example
 * afterJsonString('"a\\"b" x', 1); // 6
 */
export function afterJsonString(text: string, i: number): number {
  const n = text.length;
  while (i < n) {
    const d = text.charCodeAt(i);
    if (d === 0x5c) i += 2;
    else {
      i++;
      if (d === 0x22) return i;
    }
  }
  return n;
}

/**
 * Check JSON text against `limits` in one pass over it (strings are skipped, escapes
 * honoured), without parsing it. Text that is not JSON passes if its counts do: the parse says
 * what is wrong with it.
 *
 * @throws {InvalidJsonError} with code `too_large` naming the first count exceeded; the limits
 * themselves are trusted (see {@link checkShapeLimits}).
 * @example
 * checkJsonShape("[{},{},{}]", { maxContainers: 2 }); // throws: holds more than 2 objects or arrays
 */
export function checkJsonShape(text: string, limits: JsonShapeLimits): void {
  const maxContainers = limits.maxContainers ?? Number.POSITIVE_INFINITY;
  const maxMembers = limits.maxMembers ?? Number.POSITIVE_INFINITY;
  const maxObjectMembers = limits.maxObjectMembers ?? Number.POSITIVE_INFINITY;
  const maxValues = limits.maxValues ?? Number.POSITIVE_INFINITY;
  const perObject = maxObjectMembers !== Number.POSITIVE_INFINITY;
  let containers = 0;
  let members = 0;
  let values = 0;
  // Members of the innermost open container so far, and those of the enclosing ones.
  let here = 0;
  const enclosing: number[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i++);
    if (c === 0x22) i = afterJsonString(text, i);
    else if (c === 0x2c) {
      if (++values > maxValues) throw tooLarge(`holds more than ${maxValues} values`);
    } else if (c === 0x3a) {
      if (++members > maxMembers)
        throw tooLarge(`holds more than ${maxMembers} object members (key: value pairs)`);
      if (++here > maxObjectMembers)
        throw tooLarge(
          `holds an object of more than ${maxObjectMembers} members (key: value pairs)`,
        );
    } else if (c === 0x5b || c === 0x7b) {
      if (++containers > maxContainers)
        throw tooLarge(`holds more than ${maxContainers} objects or arrays`);
      if (perObject) {
        enclosing.push(here);
        here = 0;
      }
    } else if (perObject && (c === 0x5d || c === 0x7d)) here = enclosing.pop() ?? 0;
  }
}
