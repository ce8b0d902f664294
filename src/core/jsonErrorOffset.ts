import { jsonValueEnd } from "./afterJsonValue.js";

/**
 * The offset (UTF-16 code units) where `text` stops being JSON (RFC 8259), or `undefined` when
 * it is JSON: for a message that says where, when `JSON.parse`'s does not (V8's
 * `Unexpected token '}', ... is not valid JSON` names no position). An empty text, or one that
 * ends inside a value, stops at its end. One pass, no recursion ({@link jsonValueEnd}).
 *
 * @example
 * jsonErrorOffset('{"a": 1,}'); // 8: a key was expected where "}" is
 * jsonErrorOffset('{"a": 1}'); // undefined
 */
export function jsonErrorOffset(text: string): number | undefined {
  const end = jsonValueEnd(text, 0);
  if (end < 0) return ~end;
  let i = end;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
  }
  return undefined;
}
