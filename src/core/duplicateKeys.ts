import { afterJsonString } from "./checkJsonShape.js";
import type { ValidationIssue } from "./errors.js";
import { formatPath } from "./readOptions.js";

/** The most duplicate keys {@link duplicateKeys} reports. */
const MAX_REPORTED = 20;

interface Frame {
  /** Keys seen so far (objects), or `undefined` (arrays). */
  readonly keys: Set<string> | undefined;
  /** The container this one is a value of, and its key or index there. */
  readonly parent: Frame | undefined;
  readonly slot: PropertyKey;
  /** Objects: the next string is a key. Arrays: unused. */
  expectKey: boolean;
  /** Objects: the key whose value comes next. Arrays: the index of the next element. */
  at: string | number;
}

/**
 * The paths of the members of `text` (JSON text that `JSON.parse` accepted) whose key its
 * object already had, in order (at most 20): `JSON.parse` keeps the last value of a repeated
 * key and drops the first without a word, so `{"lowBlockHistory": 200000, "lowBlockHistory": 2}`
 * would read as 2 and the bad first value would never be reported. Keys are compared as
 * `JSON.parse` decodes them (`"a"` and `"\u0061"` are the same key). One pass, no nesting
 * limit (no recursion).
 *
 * @example
 * duplicateKeys('{"a": {"b": 1, "b": 2}}'); // [["a", "b"]]
 */
export function duplicateKeys(text: string): PropertyKey[][] {
  const found: PropertyKey[][] = [];
  const stack: Frame[] = [];
  // A path is built only for a duplicate, by walking up: deep nesting costs no copies.
  const pathOf = (frame: Frame | undefined, last: PropertyKey) => {
    const path = [last];
    for (let f = frame; f?.parent !== undefined; f = f.parent) path.push(f.slot);
    return path.reverse();
  };
  const n = text.length;
  let i = 0;
  while (i < n && found.length < MAX_REPORTED) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = afterJsonString(text, i + 1);
      const top = stack.at(-1);
      if (top?.keys !== undefined && top.expectKey) {
        // Without a backslash a key is its characters as written (JSON.parse accepted them).
        const raw = text.slice(i + 1, end - 1);
        const key = raw.includes("\\") ? (JSON.parse(text.slice(i, end)) as string) : raw;
        if (top.keys.has(key)) found.push(pathOf(top, key));
        else top.keys.add(key);
        top.at = key;
        top.expectKey = false;
      }
      i = end;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      const parent = stack.at(-1);
      const slot = parent?.at ?? "";
      stack.push(
        c === 0x7b
          ? { keys: new Set(), parent, slot, expectKey: true, at: "" }
          : { keys: undefined, parent, slot, expectKey: false, at: 0 },
      );
    } else if (c === 0x7d || c === 0x5d) stack.pop();
    else if (c === 0x2c) {
      const top = stack.at(-1);
      if (top?.keys !== undefined) top.expectKey = true;
      else if (top !== undefined) top.at = (top.at as number) + 1;
    }
    i++;
  }
  return found;
}

/**
 * {@link duplicateKeys} as validation issues: each repeated key's path, `message`, and the code
 * `duplicate_key`, the same wherever JSON text is read (a config file, an NDJSON line).
 *
 * @example
 * duplicateKeyIssues('{"a": 1, "a": 2}', "is given twice"); // [{ path: "a", message: "is given twice", code: "duplicate_key" }]
 */
export function duplicateKeyIssues(text: string, message: string): ValidationIssue[] {
  return duplicateKeys(text).map((path) => ({
    path: formatPath(path),
    message,
    code: "duplicate_key",
  }));
}
