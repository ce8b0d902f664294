/** Longest echo of a bad value in a message, in characters. */
export const MAX_ECHO = 80;

/**
 * A value as an error message shows it, never longer than {@link MAX_ECHO} characters: strings
 * quoted (cut with `…` and their length when long), numbers and small BigInts as written,
 * containers by kind. Cost is bounded too: a long string or a huge BigInt is never copied whole.
 *
 * @example
 * describeValue("0x10"); // '"0x10"'
 * describeValue("7".repeat(1e6)); // '"7777777777…" (1000000 characters)' (cut to fit 80 characters)
 * describeValue([1, 2]); // "an array of 2 items"
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case "string":
      return showString(value);
    case "number":
    case "boolean":
      return String(value);
    case "bigint":
      return showBigInt(value);
    case "undefined":
      return "nothing";
    case "function":
      return "a function";
    case "symbol":
      return "a symbol";
    default:
      if (value === null) return "null";
      if (isArray(value))
        return `an array of ${value.length} ${value.length === 1 ? "item" : "items"}`;
      return "an object";
  }
}

/** `Array.isArray`, false for a revoked proxy (which it throws on): an object that cannot be read. */
function isArray(value: unknown): value is unknown[] {
  try {
    return Array.isArray(value);
  } catch {
    return false;
  }
}

/** `s` quoted as JSON, with what JSON leaves as is but a terminal would not show escaped too. */
const quote = (s: string) => escapeControls(JSON.stringify(s));

function showString(s: string): string {
  if (s.length <= MAX_ECHO - 2) {
    const quoted = quote(s);
    if (quoted.length <= MAX_ECHO) return quoted;
  }
  const suffix = ` (${s.length} characters)`;
  // Escapes can make the quoted form longer than the characters kept: cut until it fits.
  let keep = MAX_ECHO - suffix.length - 3;
  let head = quote(headOf(s, keep)).slice(0, -1);
  while (head.length + 2 + suffix.length > MAX_ECHO && keep > 0) {
    keep = Math.floor(keep / 2);
    head = quote(headOf(s, keep)).slice(0, -1);
  }
  return `${head}…"${suffix}`;
}

// 2^200 has 61 decimal digits: anything longer is shown by size (its decimal form is costly).
const BIG = 1n << 200n;

function showBigInt(v: bigint): string {
  if (v < BIG && v > -BIG) return v.toString();
  const bits = (v < 0n ? -v : v).toString(16).length * 4;
  return `a${v < 0n ? " negative" : ""} BigInt of about ${bits} bits`;
}

/**
 * The first `n` UTF-16 code units of `text`, one fewer when the `n`-th is the first half of a
 * surrogate pair: a cut never leaves half a character (an emoji cut in two is a lone surrogate,
 * which strict JSON and UTF-8 encoders refuse).
 *
 * @example
 * headOf("ab😀", 3); // "ab"
 */
export function headOf(text: string, n: number): string {
  const unit = text.charCodeAt(n - 1);
  return text.slice(0, unit >= 0xd800 && unit <= 0xdbff ? n - 1 : n);
}

/**
 * Cut a text to `max` characters with `…` (for messages quoting other messages or input).
 *
 * @example
 * shorten("a".repeat(500), 10); // "aaaaaaaaa…"
 */
export function shorten(text: string, max = 200): string {
  return escapeControls(text.length <= max ? text : `${headOf(text, max - 1)}…`);
}

/**
 * `text` (a thrown error's message, say) as one line of at most `max` characters plus the cut
 * mark: whitespace runs (newlines included) become one space, control characters are escaped,
 * and a longer text is cut with `…` and its length.
 *
 * @example
 * oneLine("boom\n\nDetails: Error: x"); // "boom Details: Error: x"
 */
export function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const cut = flat.length > max ? `${headOf(flat, max)}… (${flat.length} characters)` : flat;
  return escapeControls(cut);
}

// Every character that shows nothing or changes how what follows is shown: the control
// characters (C0, C1, DEL), the format characters (zero-width ones, the byte order mark, the
// soft hyphen, the bidirectional marks, overrides and isolates, the tag characters), the line
// and paragraph separators, and a lone surrogate (which an output stream would turn into U+FFFD,
// hiding what the input held). A message quoting input must read as the input is: a
// right-to-left override reorders everything a terminal shows after it.
const CONTROLS = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;

/** `\uXXXX`, or `\u{XXXXX}` above the Basic Multilingual Plane (a tag character). */
function escapeOne(c: string): string {
  const code = c.codePointAt(0)!;
  const hex = code.toString(16);
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, "0")}`;
}

/**
 * `text` with its invisible characters written as `\uXXXX`, so that text taken from an input
 * (a field name, a JSON parser's quote of a bad line) never moves a terminal's cursor, sets its
 * title, starts a new log line, hides in a message (a byte order mark, a zero-width space, a
 * soft hyphen) or reorders what is shown after it (the bidirectional overrides). Letters, marks
 * and symbols of every script are left as they are, and so are emoji, except that a sequence
 * joined by a zero-width joiner shows it (`\u200d`).
 *
 * @example
 * escapeControls("a\u001b[2Jb\nc"); // "a\\u001b[2Jb\\u000ac"
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, escapeOne);
}

/**
 * Text of a thrown value, whatever it is: `String(value)` when that works, else a description
 * (a strategy may throw `Object.create(null)`, or an object whose `toString` throws, and the
 * error that reports it must not throw in turn).
 *
 * @example
 * thrownText(new Error("boom")); // "Error: boom"
 * thrownText(Object.create(null)); // "a thrown object that cannot be shown as text"
 */
export function thrownText(value: unknown): string {
  try {
    return String(value);
  } catch {
    return `a thrown ${value === null ? "null" : typeof value} that cannot be shown as text`;
  }
}

/**
 * What was thrown, for a message of one line: an Error's message flattened by {@link oneLine}
 * (control characters escaped, cut to 200 characters), any other value described (`throw "no"`
 * reads `"no"`). Never throws, whatever the value's getters do.
 *
 * @example
 * thrownMessage(new Error("boom\nagain")); // "boom again"
 */
export function thrownMessage(value: unknown): string {
  try {
    return value instanceof Error ? oneLine(String(value.message)) : describeValue(value);
  } catch {
    return thrownText(value);
  }
}
