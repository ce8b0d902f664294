/**
 * Parse JSON text, keeping integers that a float64 cannot hold exactly: every bare integer
 * token longer than 15 digits becomes a decimal string before `JSON.parse`, so u64 values
 * above 2^53 written as JSON numbers arrive exact. Non-integer numbers are left alone.
 *
 * @throws {SyntaxError} when the text is not JSON.
 * @example
 * parseJsonLossless('{"p": 18446744073709551615}') // { p: "18446744073709551615" }
 */
export function parseJsonLossless(text: string): unknown {
  // Fast path: no run of 16 digits anywhere means nothing can lose precision.
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  let out = "";
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
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (
          (d >= 0x30 && d <= 0x39) ||
          d === 0x2e ||
          d === 0x65 ||
          d === 0x45 ||
          d === 0x2b ||
          d === 0x2d
        )
          i++;
        else break;
      }
      const token = text.slice(start, i);
      if (/^-?\d{16,}$/.test(token)) {
        out += `${text.slice(last, start)}"${token}"`;
        last = i;
      }
    } else i++;
  }
  return JSON.parse(out + text.slice(last));
}
