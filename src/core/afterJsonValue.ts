// A validating skip over one JSON value (RFC 8259), building nothing: what the aptosRest
// source's pruneUnread needs to drop the members it never reads without letting text that is not
// JSON pass, and what says where a config file stops being JSON (jsonErrorOffset).

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/**
 * Index after the string whose opening quote is at `i - 1`, or, when it is not a JSON string,
 * `~at` (negative) for the offset `at` of what is wrong: a control character, an escape (its
 * backslash), or the end of the text.
 */
function afterString(text: string, i: number): number {
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i++);
    if (c === 0x22) return i;
    if (c < 0x20) return ~(i - 1);
    if (c !== 0x5c) continue;
    const escapeAt = i - 1;
    const e = text.charCodeAt(i++);
    if (e === 0x75) {
      for (let k = 0; k < 4; k++) if (!isHex(text.charCodeAt(i++))) return ~escapeAt;
    } else if (
      e !== 0x22 &&
      e !== 0x5c &&
      e !== 0x2f &&
      e !== 0x62 &&
      e !== 0x66 &&
      e !== 0x6e &&
      e !== 0x72 &&
      e !== 0x74
    )
      return ~escapeAt;
  }
  return ~n;
}

/** Index after the number, `true`, `false` or `null` at `i`, or `~i` (negative) when there is none. */
function afterScalar(text: string, start: number): number {
  const c = text.charCodeAt(start);
  const none = ~start;
  let i = start;
  if (c === 0x74) return text.startsWith("true", i) ? i + 4 : none;
  if (c === 0x66) return text.startsWith("false", i) ? i + 5 : none;
  if (c === 0x6e) return text.startsWith("null", i) ? i + 4 : none;
  if (c === 0x2d) i++;
  const first = text.charCodeAt(i);
  if (first === 0x30) i++;
  else if (isDigit(first)) while (isDigit(text.charCodeAt(i))) i++;
  else return none;
  if (text.charCodeAt(i) === 0x2e) {
    i++;
    if (!isDigit(text.charCodeAt(i))) return none;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  const e = text.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    i++;
    const sign = text.charCodeAt(i);
    if (sign === 0x2b || sign === 0x2d) i++;
    if (!isDigit(text.charCodeAt(i))) return none;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  return i;
}

/**
 * Index after the JSON value that starts at `i` (whitespace before it skipped), or -1 when the
 * text there is not one JSON value. Nesting costs one byte of memory per level, no stack.
 *
 * @example
 * afterJsonValue('{"events": [1, {"a": null}], "x": 1}', 10); // 27
 * afterJsonValue('{"events": undefined}', 10); // -1
 */
export function afterJsonValue(text: string, i: number): number {
  const end = jsonValueEnd(text, i);
  return end < 0 ? -1 : end;
}

/**
 * {@link afterJsonValue}, but where the text is not one JSON value, `~at` (negative: `at` is
 * `~result`) for the offset `at` where it stops being one: the first character that cannot
 * continue it (the backslash of a bad escape, the start of a bad number or word), or the end of
 * the text.
 *
 * @example
 * ~jsonValueEnd('{"a": 1,}', 0); // 8: a key was expected where "}" is
 */
export function jsonValueEnd(text: string, i: number): number {
  // Open containers, innermost last: 1 an object, 2 an array.
  let open = new Uint8Array(64);
  let depth = 0;
  // What comes next: a value (0), a value or `]` (1), a key or `}` (2), a key (3), `:` (4),
  // `,` or the end of the container (5).
  let want = 0;
  for (;;) {
    if (want === 5 && depth === 0) return i;
    let c = text.charCodeAt(i);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++i);
    switch (c) {
      case 0x5b: // [
      case 0x7b: // {
        if (want > 1) return ~i;
        if (depth === open.length) {
          const grown = new Uint8Array(open.length * 2);
          grown.set(open);
          open = grown;
        }
        open[depth++] = c === 0x7b ? 1 : 2;
        want = c === 0x7b ? 2 : 1;
        i++;
        break;
      case 0x5d: // ]
        if (want !== 1 && !(want === 5 && open[depth - 1] === 2)) return ~i;
        depth--;
        want = 5;
        i++;
        break;
      case 0x7d: // }
        if (want !== 2 && !(want === 5 && open[depth - 1] === 1)) return ~i;
        depth--;
        want = 5;
        i++;
        break;
      case 0x2c: // ,
        if (want !== 5) return ~i;
        want = open[depth - 1] === 1 ? 3 : 0;
        i++;
        break;
      case 0x3a: // :
        if (want !== 4) return ~i;
        want = 0;
        i++;
        break;
      case 0x22: // "
        if (want === 4 || want === 5) return ~i;
        i = afterString(text, i + 1);
        if (i < 0) return i;
        want = want <= 1 ? 5 : 4;
        break;
      default:
        if (want > 1) return ~i;
        i = afterScalar(text, i);
        if (i < 0) return i;
        want = 5;
    }
  }
}
