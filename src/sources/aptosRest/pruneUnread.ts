import { afterJsonValue } from "../../core/afterJsonValue.js";
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

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * `text` with the value of every member named in {@link UNREAD_MEMBERS} replaced by `null`, in
 * one pass and without parsing: what is left to parse is what the source reads. Each value
 * dropped is checked to be JSON ({@link afterJsonValue}): where one is not, the text is kept as
 * it is from there, so text that is not JSON stays not JSON (the parse then says so).
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
    const end = afterJsonValue(text, colon + 1);
    // Not a JSON value: the text is left as it is from here, for the parse to say what is wrong.
    if (end < 0) break;
    parts.push(text.slice(kept, colon + 1), "null");
    kept = end;
    i = end;
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(kept));
  return parts.join("");
}
