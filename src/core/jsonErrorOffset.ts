const OBJECT = 0x7b; // {
const ARRAY = 0x5b; // [
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const HEX4 = /[0-9a-fA-F]{4}/y;
/** The characters that may follow a backslash in a JSON string, but `u`. */
const ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

/**
 * The offset (UTF-16 code units) where `text` stops being JSON (RFC 8259), or `undefined` when
 * it is JSON: for a message that says where, when `JSON.parse`'s does not (V8's
 * `Unexpected token '}', ... is not valid JSON` names no position). An empty text, or one that
 * ends inside a value, stops at its end. One pass, no recursion: nesting depth costs no stack.
 *
 * @example
 * jsonErrorOffset('{"a": 1,}'); // 8: a key was expected where "}" is
 * jsonErrorOffset('{"a": 1}'); // undefined
 */
export function jsonErrorOffset(text: string): number | undefined {
  const n = text.length;
  const open: number[] = [];
  let i = 0;

  const skipSpace = () => {
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
    }
  };
  /** A string from its opening quote at `i`; the offset of what is wrong, if anything. */
  const string = (): number | undefined => {
    for (i++; i < n; ) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return undefined;
      }
      if (c < 0x20) return i;
      if (c !== 0x5c) {
        i++;
        continue;
      }
      const escaped = text.charCodeAt(i + 1);
      if (escaped === 0x75) {
        HEX4.lastIndex = i + 2;
        if (!HEX4.test(text)) return i;
        i += 6;
      } else if (ESCAPES.has(escaped)) i += 2;
      else return i;
    }
    return n;
  };
  /** A member's key and its colon, from `i`. */
  const key = (): number | undefined => {
    skipSpace();
    if (text.charCodeAt(i) !== 0x22) return i;
    const bad = string();
    if (bad !== undefined) return bad;
    skipSpace();
    if (text.charCodeAt(i) !== 0x3a) return i;
    i++;
    return undefined;
  };

  for (;;) {
    // A value.
    skipSpace();
    if (i >= n) return n;
    const c = text.charCodeAt(i);
    if (c === OBJECT || c === ARRAY) {
      i++;
      skipSpace();
      if (text.charCodeAt(i) === (c === OBJECT ? 0x7d : 0x5d)) i++;
      else {
        open.push(c);
        if (c === ARRAY) continue;
        const bad = key();
        if (bad !== undefined) return bad;
        continue;
      }
    } else if (c === 0x22) {
      const bad = string();
      if (bad !== undefined) return bad;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = i;
      if (!NUMBER.test(text)) return i;
      i = NUMBER.lastIndex;
    } else if (text.startsWith("true", i) || text.startsWith("null", i)) i += 4;
    else if (text.startsWith("false", i)) i += 5;
    else return i;
    // What follows a value: the end, a comma, or the end of its container.
    for (;;) {
      skipSpace();
      const container = open.at(-1);
      if (container === undefined) return i < n ? i : undefined;
      const d = text.charCodeAt(i);
      if (d === 0x2c) {
        i++;
        if (container === OBJECT) {
          const bad = key();
          if (bad !== undefined) return bad;
        }
        break;
      }
      if (d !== (container === OBJECT ? 0x7d : 0x5d)) return i < n ? i : n;
      i++;
      open.pop();
    }
  }
}
