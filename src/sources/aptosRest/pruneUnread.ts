import { afterJsonString } from "../../core/checkJsonShape.js";

/**
 * Members of a node's answers the source never reads, at whatever depth: a transaction's write
 * set and events, its signature, an entry function's arguments, a script's code, the block
 * metadata's votes. They are most of an answer's bytes and nearly all of its objects and
 * arrays: a `vector<vector<u64>>` argument is rendered `[[],[],...]`, one array per 3 bytes, so
 * a block of such ordinary transactions would cost millions of objects to parse, and would
 * look like a body built to be expensive.
 */
export const UNREAD_MEMBERS: ReadonlySet<string> = new Set([
  "changes",
  "events",
  "signature",
  "arguments",
  "type_arguments",
  "code",
  "previous_block_votes_bitvec",
  "failed_proposer_indices",
]);

const LENGTHS = new Set([...UNREAD_MEMBERS].map((k) => k.length));

/** Index after the JSON value starting at `i` (whitespace before it skipped). */
function afterValue(text: string, i: number): number {
  const n = text.length;
  while (i < n && isSpace(text.charCodeAt(i))) i++;
  const c = text.charCodeAt(i);
  if (c === 0x22) return afterJsonString(text, i + 1);
  if (c !== 0x7b && c !== 0x5b) {
    while (i < n && !ends(text.charCodeAt(i))) i++;
    return i;
  }
  let depth = 0;
  while (i < n) {
    const d = text.charCodeAt(i++);
    if (d === 0x22) i = afterJsonString(text, i);
    else if (d === 0x7b || d === 0x5b) depth++;
    else if ((d === 0x7d || d === 0x5d) && --depth === 0) return i;
  }
  return n;
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const ends = (c: number) => c === 0x2c || c === 0x7d || c === 0x5d || isSpace(c);

/**
 * `text` with the value of every member named in {@link UNREAD_MEMBERS} replaced by `null`, in
 * one pass and without parsing: what is left to parse is what the source reads. Text that is
 * not JSON stays not JSON (the parse then says so).
 *
 * @example
 * pruneUnread('{"type":"user_transaction","events":[{"a":1}],"gas_used":"7"}');
 * // '{"type":"user_transaction","events":null,"gas_used":"7"}'
 */
export function pruneUnread(text: string): string {
  const n = text.length;
  const parts: string[] = [];
  let kept = 0;
  let i = 0;
  while (i < n) {
    if (text.charCodeAt(i++) !== 0x22) continue;
    const start = i;
    i = afterJsonString(text, i);
    const length = i - 1 - start;
    if (!LENGTHS.has(length)) continue;
    let colon = i;
    while (colon < n && isSpace(text.charCodeAt(colon))) colon++;
    if (text.charCodeAt(colon) !== 0x3a) continue;
    if (!UNREAD_MEMBERS.has(text.slice(start, start + length))) continue;
    const end = afterValue(text, colon + 1);
    parts.push(text.slice(kept, colon + 1), "null");
    kept = end;
    i = end;
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(kept));
  return parts.join("");
}
