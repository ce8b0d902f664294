import {
  afterJsonString,
  checkJsonShape,
  checkShapeLimits,
  type JsonShapeLimits,
} from "./checkJsonShape.js";
import { describeValue } from "./describeValue.js";
import { InvalidArgumentError, InvalidJsonError } from "./errors.js";

/**
 * Where parsed JSON held an integer written otherwise than as plain digits (`1e2`, `100.0`,
 * `-0`): per object, the keys and how they were written; per array, a mark per index.
 */
const writtenObjects = new WeakMap<object, Map<string, string>>();
const writtenArrays = new WeakMap<object, { marks: Uint8Array; texts: Map<number, string> }>();
/** Parsed values whose text held more such integers than are located: how many it held. */
const overflowing = new WeakMap<object, number>();

/**
 * Integers written oddly that are located in one text. A block sample has one field that
 * takes a fraction and a config file a handful, so past this many some of them sit where an
 * integer belongs whatever the rest are: the text is rejected as a whole (see
 * {@link integersWrittenOddly}) and none is located (that takes a second parse).
 */
export const MAX_LOCATED = 1000;

const NO_OPTIONS: ParseJsonOptions = Object.freeze({});

/**
 * Options of {@link parseJsonLossless}: the counts the text may not exceed, checked in one
 * pass before anything is parsed ({@link checkJsonShape}).
 */
export type ParseJsonOptions = JsonShapeLimits;

/**
 * Parse JSON text, keeping integers that a float64 cannot hold exactly: every bare integer
 * token above 2^53 - 1 in size becomes a decimal string before `JSON.parse`, so u64 values
 * above 2^53 written as JSON numbers arrive exact (integers up to 2^53 - 1 stay numbers).
 * Non-integer numbers are left alone.
 *
 * Integers written with a fraction, an exponent or a minus sign (`100.0`, `1e2`, `-0`) parse
 * to plain numbers too, but are remembered: {@link integerWrittenAs} tells a validator where
 * they are, so u64 fields can reject them as the node's API does while fraction fields take
 * them. Cost: one pass over the text when it holds a run of 16 digits or a `.`, `e`, `E` or
 * `-0` after a digit; a second parse only for text holding such integers.
 *
 * @throws {InvalidJsonError} with code `invalid_json` (and `JSON.parse`'s message) when the text
 * is not JSON; code `too_large` when it exceeds one of the counts of `options`
 * ({@link JsonShapeLimits}). {@link InvalidArgumentError} when `text` is not a string or an
 * option is not a whole number >= 0 (or `Infinity`), or unknown.
 * @example
 * parseJsonLossless('{"p": 18446744073709551615}') // { p: "18446744073709551615" }
 */
export function parseJsonLossless(
  text: string,
  options: ParseJsonOptions | null = NO_OPTIONS,
): unknown {
  if (typeof text !== "string")
    throw new InvalidArgumentError([
      { path: "text", message: `must be a string of JSON text (got ${describeValue(text)})` },
    ]);
  // null, as undefined, means no limits.
  if (options !== NO_OPTIONS && options !== null) {
    checkShapeLimits(options);
    checkJsonShape(text, options);
  }
  // Fast path: nothing can lose precision and no number is written with a fraction or exponent.
  if (!/\d{16}|\d[.eE]|-0/.test(text)) return parseJson(text);
  // The text to parse, in pieces, made only when a long integer must be quoted.
  const parts: string[] = [];
  let partsLength = 0;
  let last = 0;
  // Integers written oddly: where the first MAX_LOCATED are in the text to parse, and how many.
  const odd: { from: number; to: number }[] = [];
  let oddCount = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = afterJsonString(text, i + 1);
    else if ((c >= 0x30 && c <= 0x39) || c === 0x2d) {
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
        if (digits < 16 || exactAsDouble(text, start + (c === 0x2d ? 1 : 0), i)) continue;
        // A leading zero is not JSON: left as it is, for JSON.parse to say so.
        if (text.charCodeAt(start + (c === 0x2d ? 1 : 0)) === 0x30) continue;
        const before = text.slice(last, start);
        parts.push(before, `"${text.slice(start, i)}"`);
        partsLength += before.length + i - start + 2;
        last = i;
      } else if (Number.isInteger(Number(text.slice(start, i))) && oddCount++ < MAX_LOCATED) {
        // Its place in the text to parse: what is built so far, plus the untouched stretch.
        const from = partsLength + start - last;
        odd.push({ from, to: from + i - start });
      }
    } else i++;
  }
  let source = text;
  if (parts.length > 0) {
    parts.push(text.slice(last));
    source = parts.join("");
  }
  const value = parseJson(source);
  if (oddCount > 0 && typeof value === "object" && value !== null) {
    // Too many: the count is enough to reject the text, and a second parse would cost as much
    // memory as the first.
    if (oddCount > MAX_LOCATED) overflowing.set(value, oddCount);
    else locate(value, source, odd);
  }
  return value;
}

/** Whether the digits `text[from..to)` (no sign, no leading zero) are at most 2^53 - 1. */
function exactAsDouble(text: string, from: number, to: number): boolean {
  const digits = to - from;
  if (digits !== 16) return digits < 16;
  return text.slice(from, to) <= "9007199254740991";
}

/** `JSON.parse`, its `SyntaxError` turned into an {@link InvalidJsonError} with the same message. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new InvalidJsonError("invalid_json", (e as Error).message, { cause: e });
  }
}

/**
 * Record where the integers written oddly landed, comparing the parsed value with its twin
 * parsed from the text where each of them was replaced by `[k]`: a number facing an array is
 * one of them, and no other value can face one. The walk is iterative, so nesting depth costs
 * no stack.
 */
function locate(value: object, source: string, odd: readonly { from: number; to: number }[]) {
  const pieces: string[] = [];
  let last = 0;
  for (let k = 0; k < odd.length; k++) {
    pieces.push(source.slice(last, odd[k]!.from), `[${k}]`);
    last = odd[k]!.to;
  }
  pieces.push(source.slice(last));
  const twin: unknown = JSON.parse(pieces.join(""));
  const written = (y: unknown) => {
    const t = odd[(y as number[])[0]!]!;
    return source.slice(t.from, t.to);
  };
  const stack: [unknown, unknown][] = [[value, twin]];
  while (stack.length > 0) {
    const [a, b] = stack.pop()!;
    if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) continue;
    const isArray = Array.isArray(a);
    const keys = isArray ? undefined : Object.keys(a);
    const size = isArray ? a.length : keys!.length;
    let marks: Uint8Array | undefined;
    let texts: Map<number, string> | undefined;
    let byKey: Map<string, string> | undefined;
    for (let j = 0; j < size; j++) {
      const key = isArray ? j : keys![j]!;
      const x = (a as Record<string | number, unknown>)[key];
      const y = (b as Record<string | number, unknown>)[key];
      if (typeof x === "object" && x !== null) stack.push([x, y]);
      else if (typeof x === "number" && Array.isArray(y)) {
        if (isArray) {
          marks ??= new Uint8Array(size);
          texts ??= new Map();
          marks[j] = 1;
          texts.set(j, written(y));
        } else {
          byKey ??= new Map();
          byKey.set(key as string, written(y));
        }
      }
    }
    if (marks && texts) writtenArrays.set(a, { marks, texts });
    if (byKey) writtenObjects.set(a, byKey);
  }
}

/**
 * How the integer at `container[key]` was written, when {@link parseJsonLossless} read it from
 * a token with a fraction, exponent or minus sign (`"1e2"`, `"100.0"`, `"-0"`); `undefined` for
 * a plain integer, any other value, or a value that did not come from `parseJsonLossless`.
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
    return entry.marks[key] === 1 ? entry.texts.get(key) : undefined;
  }
  return writtenObjects.get(container)?.get(key);
}

/** Whether {@link parseJsonLossless} located any integer written oddly in this object or array. */
export function hasIntegersWrittenOddly(container: object): boolean {
  return writtenArrays.has(container) || writtenObjects.has(container);
}

/**
 * How many integers written oddly the text of `root` (a value returned by
 * {@link parseJsonLossless}) held when they were too many to locate (more than
 * {@link MAX_LOCATED}); `undefined` otherwise.
 *
 * @example
 * integersWrittenOddly(parseJsonLossless(`[${Array(2000).fill("1e2")}]`) as object); // 2000
 */
export function integersWrittenOddly(root: object): number | undefined {
  return overflowing.get(root);
}
