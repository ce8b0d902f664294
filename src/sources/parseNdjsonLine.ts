import {
  type BlockSample,
  MAX_BLOCK_TRANSACTIONS,
  safeParseBlockSample,
} from "../core/blockSample.js";
import { shorten } from "../core/describeValue.js";
import { duplicateKeyIssues } from "../core/duplicateKeys.js";
import { InvalidJsonError, type ValidationIssue } from "../core/errors.js";
import { parseJsonLossless } from "../core/parseJsonLossless.js";
import { scanBlockLine } from "./scanBlockLine.js";

/** One line of an NDJSON block file: the block, or why the line was rejected. */
export type NdjsonLine =
  | { line: number; ok: true; block: BlockSample }
  | { line: number; ok: false; issues: readonly ValidationIssue[] };

/**
 * Most objects and arrays a line may hold before it is parsed (a block sample holds 3: itself
 * and two arrays): a line of millions of `{}`, or nested millions deep, costs one pass over its
 * text instead of millions of objects.
 */
export const MAX_CONTAINERS = 16;

/**
 * Most object members (`key: value` pairs) a line may hold before it is parsed (a block sample
 * has 12 fields): a line of millions of unknown keys costs one pass, not a million-key object.
 */
export const MAX_MEMBERS = 64;

/** Default of `maxLineBytes`: 64 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Options of {@link parseNdjsonLine}. */
export interface ParseNdjsonLineOptions {
  /**
   * Try the byte scanner first ({@link scanBlockLine}); `false` parses with the general parser
   * only (both give the same entries: the fuzz suite and the reader tests compare them).
   * @default true
   */
  fastPath?: boolean;
  /** Whether the line starts the file, where a byte order mark is dropped. @default line === 1 */
  fileStart?: boolean;
}

// A decoder that drops a leading byte order mark, and one that keeps it (inside the file a BOM
// is text, and so a line that starts with one is not JSON).
const dropBom = new TextDecoder("utf-8", { fatal: false });
const keepBom = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/**
 * Parse one NDJSON line from its bytes (without the newline); `undefined` for a blank line.
 * Lines in the plain shape that `serializeBlockSample` writes are read straight from the bytes
 * ({@link scanBlockLine}); any other line is decoded and goes through {@link parseLine}, which
 * gives the block or the exact issues. Cost is one pass over the line whatever it holds.
 *
 * @example
 * parseNdjsonLine(Buffer.from('{"height":"1","epoch":"1","gas_unit_prices":["100"]}'), 1);
 * // { line: 1, ok: true, block: { height: 1n, ... } }
 */
export function parseNdjsonLine(
  bytes: Uint8Array,
  line: number,
  options: ParseNdjsonLineOptions = {},
): NdjsonLine | undefined {
  let end = bytes.length;
  if (end > 0 && bytes[end - 1] === 0x0d) end--;
  if (options.fastPath !== false) {
    const wire = scanBlockLine(end === bytes.length ? bytes : bytes.subarray(0, end));
    if (wire) {
      const r = safeParseBlockSample(wire);
      if (r.ok) return { line, ok: true, block: r.block };
      // Refused for its number of transactions: what the general parser would say too, after
      // parsing the whole line again (1.3 s for 12 million prices).
      if (overCap(wire)) return { line, ok: false, issues: r.issues };
    }
  }
  if (isBlank(bytes, end)) return undefined;
  const text = ((options.fileStart ?? line === 1) ? dropBom : keepBom).decode(bytes);
  return parseLine(text, line);
}

/** Whether a scanned line holds more transactions than a block may (see `scanBlockLine`). */
const overCap = (wire: Record<string, unknown>) =>
  [wire.gas_unit_prices, wire.gas_used].some(
    (a) => Array.isArray(a) && a.length > MAX_BLOCK_TRANSACTIONS,
  );

function isBlank(line: Uint8Array, end: number): boolean {
  for (let i = 0; i < end; i++) {
    const c = line[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

/**
 * The entry of a line rejected for being longer than `max` bytes (code `too_large`).
 *
 * @example
 * tooLong(7, 4096); // { line: 7, ok: false, issues: [{ path: "", message: "line longer than 4096 bytes", code: "too_large" }] }
 */
export function tooLong(line: number, max: number): NdjsonLine {
  return {
    line,
    ok: false,
    issues: [{ path: "", message: `line longer than ${max} bytes`, code: "too_large" }],
  };
}

/** A line of JSON whitespace only (space, tab, CR, LF), or empty. */
const JSON_BLANK = /^[ \t\r\n]*$/;

/**
 * The general path: parse one NDJSON line's text; `undefined` for a blank line. A rejected line
 * lists at most 20 issues (then a count), and its cost is one pass over the line whatever is
 * wrong with it: more than {@link MAX_CONTAINERS} objects or arrays, or more than
 * {@link MAX_MEMBERS} members, are refused before any is made (code `too_large`); text that is
 * not JSON gets code `invalid_json`, and a key given twice in one object `duplicate_key`.
 *
 * @example
 * parseLine("{", 3); // { line: 3, ok: false, issues: [{ path: "", message: "not valid JSON (...)", code: "invalid_json" }] }
 */
export function parseLine(raw: string, line: number): NdjsonLine | undefined {
  const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  // Blank is JSON's whitespace only: a line of form feeds, no-break spaces or a BOM is text that
  // is not JSON, reported as such (`trim()` would skip it silently, and `record --append` would
  // take a file ending in one for an empty file).
  if (JSON_BLANK.test(text)) return undefined;
  let value: unknown;
  try {
    value = parseJsonLossless(text, { maxContainers: MAX_CONTAINERS, maxMembers: MAX_MEMBERS });
  } catch (e) {
    const issue: ValidationIssue =
      e instanceof InvalidJsonError && e.code === "too_large"
        ? {
            path: "",
            message: `${e.message}; a block sample holds 3 objects or arrays and 12 fields, so it is not parsed`,
            code: "too_large",
          }
        : {
            path: "",
            message: `not valid JSON (${shorten((e as Error).message)})`,
            code: "invalid_json",
          };
    return { line, ok: false, issues: [issue] };
  }
  // JSON.parse keeps the last value of a repeated key: `{"height":"1","height":"5"}` would be
  // block 5 and the 1 never read. (The byte scanner takes no repeated key: such lines come here.)
  const repeated = duplicateKeyIssues(
    text,
    "is given twice in the line (only the last would count)",
  );
  if (repeated.length > 0) return { line, ok: false, issues: repeated };
  const r = safeParseBlockSample(value);
  return r.ok ? { line, ok: true, block: r.block } : { line, ok: false, issues: r.issues };
}
