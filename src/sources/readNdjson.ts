import { createReadStream } from "node:fs";
import { type BlockSample, safeParseBlockSample } from "../core/blockSample.js";
import type { ValidationIssue } from "../core/errors.js";
import { parseJsonLossless } from "../core/parseJsonLossless.js";
import { shorten } from "../core/showValue.js";

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

/** Options of {@link readNdjson}. */
export interface ReadNdjsonOptions {
  /** Longest accepted line in bytes; longer lines are rejected without being held. @default 64 MiB */
  maxLineBytes?: number;
  /** Stop reading (and close the file) when this signal aborts. */
  signal?: AbortSignal;
}

/**
 * Read an NDJSON block file as a stream (never whole), yielding one entry per non-blank line
 * with its 1-based line number. Bad lines are yielded with their issues; reading goes on.
 *
 * @throws the file system error when the file cannot be opened or read.
 * @example
 * for await (const entry of readNdjson("history.ndjson")) if (!entry.ok) console.error(entry.line, entry.issues);
 */
export async function* readNdjson(
  path: string,
  options: ReadNdjsonOptions = {},
): AsyncGenerator<NdjsonLine> {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const stream = createReadStream(path, { highWaterMark: 1 << 20, signal: options.signal });
  const decoder = new TextDecoder("utf-8", { fatal: false });
  // The start of the current line, in pieces: only new text is searched for a newline, and a
  // long line is joined once, so a line costs time in proportion to its length.
  let parts: string[] = [];
  let partsLength = 0;
  let lineNo = 0;
  let oversized = false;
  const take = (piece: string): string => {
    if (parts.length === 0) return piece;
    parts.push(piece);
    const text = parts.join("");
    parts = [];
    partsLength = 0;
    return text;
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const text = decoder.decode(chunk, { stream: true });
      let start = 0;
      let nl = text.indexOf("\n");
      while (nl !== -1) {
        lineNo++;
        const line = take(text.slice(start, nl));
        start = nl + 1;
        if (oversized || exceeds(line, maxLineBytes)) {
          oversized = false;
          yield tooLong(lineNo, maxLineBytes);
        } else {
          const entry = parseLine(line, lineNo);
          if (entry) yield entry;
        }
        nl = text.indexOf("\n", start);
      }
      if (start < text.length && !oversized) {
        parts.push(text.slice(start));
        partsLength += text.length - start;
        if (partsLength > maxLineBytes) {
          // Too long already: forget it, and reject the line when it ends.
          oversized = true;
          parts = [];
          partsLength = 0;
        }
      }
    }
    const rest = take(decoder.decode());
    if (oversized || exceeds(rest, maxLineBytes)) yield tooLong(++lineNo, maxLineBytes);
    else if (rest.length > 0) {
      const entry = parseLine(rest, ++lineNo);
      if (entry) yield entry;
    }
  } finally {
    stream.destroy();
  }
}

/**
 * Whether a line's text is longer than `max` bytes in UTF-8. A UTF-16 code unit is 1 to 3 bytes,
 * so the byte count is only computed when the length alone does not settle it.
 */
function exceeds(text: string, max: number): boolean {
  if (text.length > max) return true;
  return text.length * 3 > max && Buffer.byteLength(text, "utf8") > max;
}

/**
 * The entry of a line rejected for being longer than `max` bytes.
 *
 * @example
 * tooLong(7, 4096); // { line: 7, ok: false, issues: [{ path: "", message: "line longer than 4096 bytes" }] }
 */
export function tooLong(line: number, max: number): NdjsonLine {
  return { line, ok: false, issues: [{ path: "", message: `line longer than ${max} bytes` }] };
}

/**
 * Parse one NDJSON line; `undefined` for a blank line. A rejected line lists at most 20 issues
 * (then a count), and its cost is one pass over the line whatever is wrong with it.
 */
export function parseLine(raw: string, line: number): NdjsonLine | undefined {
  const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  if (text.trim() === "") return undefined;
  let value: unknown;
  try {
    value = parseJsonLossless(text, { maxContainers: MAX_CONTAINERS, maxMembers: MAX_MEMBERS });
  } catch (e) {
    const message =
      e instanceof RangeError
        ? `${e.message}; a block sample holds 3 objects or arrays and 12 fields, so it is not parsed`
        : `not valid JSON (${shorten((e as Error).message)})`;
    return { line, ok: false, issues: [{ path: "", message }] };
  }
  const r = safeParseBlockSample(value);
  return r.ok ? { line, ok: true, block: r.block } : { line, ok: false, issues: r.issues };
}
