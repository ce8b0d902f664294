/**
 * Where parsed JSON held an integer written otherwise than as plain digits (`1e2`, `100.0`,
 * `-0`): per object, the keys and how they were written; per array, a mark per index.
 */
const writtenObjects = new WeakMap<object, Map<string, string | undefined>>();
const writtenArrays = new WeakMap<object, { marks: Uint8Array; texts: Map<number, string> }>();

/** Number tokens whose text is quoted for the message (the rest are only marked). */
const KEPT_TEXTS = 64;

/**
 * Parse JSON text, keeping integers that a float64 cannot hold exactly: every bare integer
 * token longer than 15 digits becomes a decimal string before `JSON.parse`, so u64 values
 * above 2^53 written as JSON numbers arrive exact. Non-integer numbers are left alone.
 *
 * Integers written with a fraction, an exponent or a minus sign (`100.0`, `1e2`, `-0`) parse
 * to plain numbers too, but are remembered: {@link integerWrittenAs} tells a validator where
 * they are, so u64 fields can reject them as the node's API does while fraction fields take
 * them. Cost: one pass over the text when it holds a run of 16 digits or a `.`, `e`, `E` or
 * `-0` after a digit; a second parse only for text holding such integers.
 *
 * @throws {SyntaxError} when the text is not JSON.
 * @example
 * parseJsonLossless('{"p": 18446744073709551615}') // { p: "18446744073709551615" }
 */
export function parseJsonLossless(text: string): unknown {
  // Fast path: nothing can lose precision and no number is written with a fraction or exponent.
  if (!/\d{16}|\d[.eE]|-0/.test(text)) return JSON.parse(text);
  // `out` is the text to parse; `marked`, made at the first integer written oddly, is the same
  // text with each such integer replaced by a marker (see markWritten).
  let out = "";
  let marked: string | undefined;
  const shown: string[] = [];
  let odd = 0;
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip a string literal, honouring escapes.
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i += 2;
        else if (d === 0x22) break;
        else i++;
      }
      i++;
    } else if ((c >= 0x30 && c <= 0x39) || c === 0x2d) {
      const start = i;
      let plain = true;
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d >= 0x30 && d <= 0x39) i++;
        else if (d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d) {
          plain = false;
          i++;
        } else break;
      }
      const digits = i - start - (c === 0x2d ? 1 : 0);
      const minusZero = c === 0x2d && digits === 1 && text.charCodeAt(start + 1) === 0x30;
      if (plain && !minusZero) {
        if (digits < 16) continue;
        const piece = `${text.slice(last, start)}"${text.slice(start, i)}"`;
        out += piece;
        if (marked !== undefined) marked += piece;
        last = i;
      } else if (Number.isInteger(Number(text.slice(start, i)))) {
        const before = text.slice(last, start);
        marked = (marked ?? out) + before + (odd < KEPT_TEXTS ? `[${odd}]` : "null");
        out += before + text.slice(start, i);
        if (odd < KEPT_TEXTS) shown.push(text.slice(start, i));
        odd++;
        last = i;
      }
    } else i++;
  }
  out += text.slice(last);
  const value = JSON.parse(out);
  if (marked !== undefined) markWritten(value, JSON.parse(marked + text.slice(last)), shown);
  return value;
}

/**
 * Record where the integers written oddly landed, comparing the parsed value with its twin
 * parsed from the text where each of them was replaced by `[k]` (the first 64) or `null`: a
 * number facing an array or null is one of them, and no other value can face one. The walk is
 * iterative, so nesting depth costs no stack.
 */
function markWritten(value: unknown, twin: unknown, shown: readonly string[]) {
  const text = (y: unknown) => (Array.isArray(y) ? shown[y[0] as number] : undefined);
  const stack: [unknown, unknown][] = [[value, twin]];
  while (stack.length > 0) {
    const [a, b] = stack.pop()!;
    if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) continue;
    if (Array.isArray(a)) {
      const twinArray = b as unknown[];
      let entry: { marks: Uint8Array; texts: Map<number, string> } | undefined;
      for (let j = 0; j < a.length; j++) {
        const x = a[j];
        const y = twinArray[j];
        if (typeof x === "number") {
          if (y === null || Array.isArray(y)) {
            entry ??= { marks: new Uint8Array(a.length), texts: new Map() };
            entry.marks[j] = 1;
            const t = text(y);
            if (t !== undefined) entry.texts.set(j, t);
          }
        } else if (typeof x === "object" && x !== null) stack.push([x, y]);
      }
      if (entry) writtenArrays.set(a, entry);
    } else {
      const twinObject = b as Record<string, unknown>;
      let keys: Map<string, string | undefined> | undefined;
      for (const key of Object.keys(a)) {
        const x = (a as Record<string, unknown>)[key];
        const y = twinObject[key];
        if (typeof x === "number") {
          if (y === null || Array.isArray(y)) {
            keys ??= new Map();
            keys.set(key, text(y));
          }
        } else if (typeof x === "object" && x !== null) stack.push([x, y]);
      }
      if (keys) writtenObjects.set(a, keys);
    }
  }
}

/**
 * How the integer at `container[key]` was written, when {@link parseJsonLossless} read it
 * from a token with a fraction, exponent or minus sign (`"1e2"`, `"100.0"`, `"-0"`; `"a number
 * with a fraction or exponent"` past the first 64 such tokens of a text); `undefined` for a
 * plain integer, any other value, or a value that did not come from `parseJsonLossless`.
 *
 * @example
 * const v = parseJsonLossless('{"a": 1e2, "b": 100}') as object;
 * integerWrittenAs(v, "a"); // "1e2"
 * integerWrittenAs(v, "b"); // undefined
 */
export function integerWrittenAs(container: object, key: string | number): string | undefined {
  if (typeof key === "number") {
    const entry = writtenArrays.get(container);
    if (entry === undefined) return undefined;
    return entry.marks[key] === 1 ? (entry.texts.get(key) ?? UNSHOWN) : undefined;
  }
  const keys = writtenObjects.get(container);
  if (!keys?.has(key)) return undefined;
  return keys.get(key) ?? UNSHOWN;
}

const UNSHOWN = "a number with a fraction or exponent";

/** Whether {@link parseJsonLossless} marked any integer in this object or array. */
export function hasIntegersWrittenOddly(container: object): boolean {
  return writtenArrays.has(container) || writtenObjects.has(container);
}
