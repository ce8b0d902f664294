import { BLOCK_FIELDS, type BlockField, MAX_BLOCK_TRANSACTIONS } from "../core/blockSample.js";
import { U64_MAX_DIGITS } from "../core/u64.js";

/** Longest number token the scanner reads as a fraction (longer ones take the general path). */
const MAX_FRACTION_LENGTH = 64;

/** BigInts of small values, made once: most prices and gas amounts repeat. */
const SMALL = new Array<bigint | undefined>(1 << 16);
const small = (v: number): bigint => {
  let b = SMALL[v];
  if (b === undefined) {
    b = BigInt(v);
    SMALL[v] = b;
  }
  return b;
};

// The field names as bytes, grouped by length, to recognise a key without making a string.
// The table is the block schema's own (BLOCK_FIELDS), so a field added there is known here.
const BY_LENGTH: (BlockField & { bytes: Uint8Array })[][] = [];
for (const f of BLOCK_FIELDS) {
  const bytes = Uint8Array.from(f.name, (c) => c.charCodeAt(0));
  const group = BY_LENGTH[f.name.length] ?? [];
  group.push({ ...f, bytes });
  BY_LENGTH[f.name.length] = group;
}

function field(buf: Uint8Array, from: number, to: number) {
  const candidates = BY_LENGTH[to - from];
  if (!candidates) return undefined;
  next: for (const f of candidates) {
    for (let k = 0; k < f.bytes.length; k++) if (buf[from + k] !== f.bytes[k]) continue next;
    return f;
  }
  return undefined;
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const ZERO = 0x30;
const NINE = 0x39;

/**
 * Fast path of the NDJSON reader (`parseNdjsonLine`): recognise one line in the plain shape
 * `serializeBlockSample` writes (ASCII, known keys, u64 as digit strings or bare integers) and
 * return a wire object that `parseBlockSample` turns into the same block as the general path
 * (`parseJsonLossless`, then `parseBlockSample`) would: u64 values as exact numbers (digit
 * strings beyond 15 digits), the price and gas arrays already as BigInt. Returns `undefined`
 * for anything else (escapes, unknown or repeated keys, negative or fractional u64, other
 * types, u64 values of more than 20 digits, fractions of more than 64 characters...): the
 * caller then takes the general path, which gives the block or the exact error. Work is one
 * pass over the bytes, and no text longer than 64 characters is ever made from them.
 *
 * @example
 * scanBlockLine(Buffer.from('{"height":"1","epoch":"1","gas_unit_prices":["100"]}'));
 * // { height: 1, epoch: 1, gas_unit_prices: [100n] }
 */
export function scanBlockLine(buf: Uint8Array): Record<string, unknown> | undefined {
  // Reads past the end give `undefined`, which matches no expected byte.
  const end = buf.length;
  let i = 0;
  const skip = () => {
    while (i < end) {
      const c = buf[i]!;
      if (c !== 0x20 && c !== 0x09 && c !== 0x0d) break;
      i++;
    }
  };
  // Digits at i: their count (0 when none); the value is left in `value` (exact up to 15 digits).
  let value = 0;
  const digits = (): number => {
    const from = i;
    i = scanDigits(buf, i);
    value = digitsValue;
    return i - from;
  };
  const text = (from: number, to: number) => ascii(buf, from, to);

  // A u64 as a digit string or a bare integer: a number when exact, else its digits.
  const scalar = (): unknown => {
    const quoted = buf[i] === QUOTE;
    if (quoted) i++;
    const from = i;
    const n = digits();
    if (n === 0 || n > U64_MAX_DIGITS) return undefined;
    if (quoted) {
      if (buf[i] !== QUOTE) return undefined;
      i++;
    } else if ((n > 1 && buf[from] === ZERO) || !endsNumber(buf[i])) return undefined;
    return n > 15 ? text(from, from + n) : value;
  };
  const word = (w: string): boolean => {
    for (let k = 0; k < w.length; k++) if (buf[i + k] !== w.charCodeAt(k)) return false;
    if (i + w.length < end && isWordChar(buf[i + w.length]!)) return false;
    i += w.length;
    return true;
  };
  const fraction = (): number | undefined => {
    const from = i;
    if (buf[i] === 0x2d) i++;
    const n = digits();
    if (n === 0 || (n > 1 && buf[i - n] === ZERO)) return undefined;
    if (buf[i] === 0x2e) {
      i++;
      if (digits() === 0) return undefined;
    }
    if (buf[i] === 0x65 || buf[i] === 0x45) {
      i++;
      if (buf[i] === 0x2b || buf[i] === 0x2d) i++;
      if (digits() === 0) return undefined;
    }
    if (!endsNumber(buf[i]) || i - from > MAX_FRACTION_LENGTH) return undefined;
    return Number(text(from, i));
  };

  skip();
  if (buf[i] !== 0x7b) return undefined;
  i++;
  skip();
  const out: Record<string, unknown> = {};
  if (buf[i] === 0x7d) i++;
  else
    for (;;) {
      skip();
      if (buf[i] !== QUOTE) return undefined;
      const keyStart = ++i;
      while (i < end && isKeyChar(buf[i]!)) i++;
      if (buf[i] !== QUOTE) return undefined;
      const f = field(buf, keyStart, i);
      i++;
      if (f === undefined || f.name in out) return undefined;
      const { name: key, kind, nullable } = f;
      skip();
      if (buf[i] !== COLON) return undefined;
      i++;
      skip();
      let v: unknown;
      // A null where the schema takes none is an error: leave it to the general path.
      if (word("null")) v = nullable ? null : undefined;
      else if (kind === "u64") v = scalar();
      else if (kind === "u64s") {
        const items: bigint[] = [];
        const next = scanArray(buf, i, items);
        if (next < 0) return undefined;
        i = next;
        v = items;
      } else if (kind === "flag") v = word("true") ? true : word("false") ? false : undefined;
      else v = fraction();
      if (v === undefined) return undefined;
      out[key] = v;
      skip();
      const c = buf[i];
      i++;
      if (c === 0x7d) break;
      if (c !== COMMA) return undefined;
    }
  skip();
  return i === end ? out : undefined;
}

// Only ever called on short runs (at most 64 bytes): the spread stays far from the stack limit.
const ascii = (buf: Uint8Array, from: number, to: number) =>
  String.fromCharCode(...buf.subarray(from, to));
const isSpace = (c: number | undefined) => c === 0x20 || c === 0x09 || c === 0x0d;

/** The value of the digits `scanDigits` read last (exact up to 15 digits). */
let digitsValue = 0;

/** Read the decimal digits at `buf[i]`; returns the index after them, their value in `digitsValue`. */
function scanDigits(buf: Uint8Array, i: number): number {
  const end = buf.length;
  let v = 0;
  while (i < end) {
    const d = buf[i]! - ZERO;
    if (d < 0 || d > 9) break;
    v = v * 10 + d;
    i++;
  }
  digitsValue = v;
  return i;
}

/**
 * The hot loop: a u64 array at `buf[i]` (`[`), its elements as BigInt pushed to `out`; returns
 * the index after `]`, or -1 when it is not a plain array of digit strings / bare integers.
 * Written with local variables only (no closures), as it runs for every transaction.
 *
 * Past `MAX_BLOCK_TRANSACTIONS` elements no BigInt is made: the rest are only checked and
 * counted, and `out` gets their number as its length (holes), which the block schema refuses
 * by its length before reading any entry, as it refuses the general parser's array. A line of
 * 12 million prices cost 1.6 s of parsing before being refused; counting is a tenth of that.
 */
function scanArray(buf: Uint8Array, start: number, out: bigint[]): number {
  let over = 0;
  let i = start;
  if (buf[i] !== 0x5b) return -1;
  i++;
  while (isSpace(buf[i])) i++;
  if (buf[i] === 0x5d) return i + 1;
  for (;;) {
    while (isSpace(buf[i])) i++;
    const quoted = buf[i] === QUOTE;
    if (quoted) i++;
    const from = i;
    i = scanDigits(buf, i);
    const v = digitsValue;
    const n = i - from;
    if (n === 0 || n > U64_MAX_DIGITS) return -1;
    if (quoted) {
      if (buf[i] !== QUOTE) return -1;
      i++;
    } else if ((n > 1 && buf[from] === ZERO) || !endsNumber(buf[i])) return -1;
    if (out.length < MAX_BLOCK_TRANSACTIONS)
      out.push(n > 15 ? BigInt(ascii(buf, from, from + n)) : v < 65536 ? small(v) : BigInt(v));
    else over++;
    while (isSpace(buf[i])) i++;
    const c = buf[i];
    i++;
    if (c === 0x5d) {
      if (over > 0) out.length = MAX_BLOCK_TRANSACTIONS + over;
      return i;
    }
    if (c !== COMMA) return -1;
  }
}

const isKeyChar = (c: number) => (c >= 0x61 && c <= 0x7a) || c === 0x5f;
const isWordChar = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= ZERO && c <= NINE);
// What may follow a number token in JSON: a separator, whitespace or the end of the line.
const endsNumber = (c: number | undefined) =>
  c === undefined ||
  c === COMMA ||
  c === 0x5d ||
  c === 0x7d ||
  c === 0x20 ||
  c === 0x09 ||
  c === 0x0d;
