import { arrivalOf } from "../../core/blockArrival.js";
import { type BlockSample, serializeBlockSample } from "../../core/blockSample.js";
import { describeValue } from "../../core/describeValue.js";
import type { ValidationIssue } from "../../core/errors.js";
import { parseNdjsonLine } from "../parseNdjsonLine.js";

/** The stream field holding the block: its NDJSON line (the block format). */
export const BLOCK_FIELD = "block";
/**
 * The stream field holding when the publisher got the block (ms since the epoch, its wall
 * clock): a replica's staleness counts from it ({@link noteArrival}).
 */
export const ARRIVAL_FIELD = "received_at_ms";
/** The stream key the Redis source and sink use unless told otherwise. */
export const DEFAULT_STREAM = "gasdigest:blocks";
/** The largest entry sequence number Redis accepts (the `seq` of `ms-seq` ids). */
const MAX_SEQ = "18446744073709551615";

/**
 * The entry id of a height: `<height>-0`.
 * @example
 * entryId(1042n); // "1042-0"
 */
export function entryId(height: bigint): string {
  return `${height}-0`;
}

/**
 * The id just below `id` (for paging backwards without exclusive ranges, absent before Redis
 * 6.2); `undefined` below `0-1`.
 * @example
 * previousId("1042-0"); // "1041-18446744073709551615"
 */
export function previousId(id: string): string | undefined {
  const [ms, seq] = splitId(id) ?? [];
  if (ms === undefined || seq === undefined) return undefined;
  if (seq > 0n) return `${ms}-${seq - 1n}`;
  return ms > 0n ? `${ms - 1n}-${MAX_SEQ}` : undefined;
}

/**
 * The id just above `id` (for paging forwards without exclusive ranges); `undefined` for a text
 * that is not an id.
 * @example
 * nextId("1042-0"); // "1042-1"
 */
export function nextId(id: string): string | undefined {
  const [ms, seq] = splitId(id) ?? [];
  if (ms === undefined || seq === undefined) return undefined;
  return seq < BigInt(MAX_SEQ) ? `${ms}-${seq + 1n}` : `${ms + 1n}-0`;
}

/**
 * The height of an entry id (`<height>-<seq>`), or `undefined` for a text that is not an id.
 *
 * @example
 * idHeight("520-0"); // 520n
 */
export function idHeight(id: string): bigint | undefined {
  return splitId(id)?.[0];
}

/**
 * Whether stream id `a` comes before `b` (ids compare as their two numbers, not as text).
 *
 * @example
 * idBefore("99-0", "100-0"); // true
 */
export function idBefore(a: string, b: string): boolean {
  const x = splitId(a);
  const y = splitId(b);
  if (!x || !y) return false;
  return x[0] < y[0] || (x[0] === y[0] && x[1] < y[1]);
}

const encoder = new TextEncoder();

function splitId(id: string): [bigint, bigint] | undefined {
  const m = /^(\d+)-(\d+)$/.exec(id);
  return m ? [BigInt(m[1]!), BigInt(m[2]!)] : undefined;
}

/**
 * The field/value list of a block's entry: `block` → its NDJSON line, then, when the block's
 * arrival was recorded ({@link noteArrival}), `received_at_ms` → that time.
 * @example
 * await redis.xadd("gasdigest:blocks", entryId(block.height), ...encodeStreamEntry(block));
 */
export function encodeStreamEntry(
  block: BlockSample,
): [typeof BLOCK_FIELD, string] | [typeof BLOCK_FIELD, string, typeof ARRIVAL_FIELD, string] {
  const line = serializeBlockSample(block);
  const at = arrivalOf(block);
  return at === undefined
    ? [BLOCK_FIELD, line]
    : [BLOCK_FIELD, line, ARRIVAL_FIELD, String(Math.floor(at))];
}

/**
 * The entry's arrival time (`received_at_ms`, the last one), or `undefined` when it has none or
 * it is not a whole number of ms that JavaScript holds exactly: an older publisher's entry, or
 * a foreign field, is taken as arriving when it is read.
 */
function arrivalField(fields: readonly string[]): number | undefined {
  let text: string | undefined;
  for (let i = 0; i + 1 < fields.length; i += 2)
    if (fields[i] === ARRIVAL_FIELD) text = fields[i + 1];
  if (text === undefined || !/^[0-9]{1,16}$/.test(text)) return undefined;
  const ms = Number(text);
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/**
 * The value of an entry's `block` field (the last one, as Redis keeps duplicates in order), or
 * `undefined` when it has none.
 *
 * @example
 * blockField(["block", '{"height":"7"}', "note", "x"]); // '{"height":"7"}'
 */
export function blockField(fields: readonly string[]): string | undefined {
  let text: string | undefined;
  for (let i = 0; i + 1 < fields.length; i += 2)
    if (fields[i] === BLOCK_FIELD) text = fields[i + 1];
  return text;
}

/** What {@link decodeStreamEntry} made of an entry. */
export type DecodedStreamEntry =
  | {
      ok: true;
      block: BlockSample;
      /** When the publisher got the block (`received_at_ms`), if the entry says. */
      receivedAtMs: number | undefined;
    }
  | { ok: false; issues: readonly ValidationIssue[] };

/**
 * Validate one stream entry: its id must be `<height>-0` and its `block` field an NDJSON block
 * line of that height; `received_at_ms`, when it is a whole number of ms, is read (and
 * otherwise left out). Other fields are ignored (room for later additions). Issues name the
 * field: `id`, `block`, or `block.<path>` inside the block (`block.gas_unit_prices[3]`).
 *
 * @example
 * decodeStreamEntry("1042-0", ["block", '{"height":"1042","epoch":"7","gas_unit_prices":[]}']);
 */
export function decodeStreamEntry(id: string, fields: readonly string[]): DecodedStreamEntry {
  const parts = splitId(id);
  const height = parts?.[1] === 0n ? parts[0] : undefined;
  if (height === undefined)
    return {
      ok: false,
      issues: [
        { path: "id", message: `must be <height>-0 (got ${describeValue(id)})`, code: "custom" },
      ],
    };
  const text = blockField(fields);
  if (text === undefined)
    return {
      ok: false,
      issues: [
        { path: BLOCK_FIELD, message: "required (the entry has no block field)", code: "custom" },
      ],
    };
  // The NDJSON reader's own path, so an entry costs what the same line in a file does: the
  // byte scanner for the plain shape `encodeStreamEntry` writes (one pass; long integers read
  // as BigInt, the text never copied to quote them), the general parser with its limits for
  // anything else (an entry of millions of `{}` or keys costs one pass, not millions of objects).
  const r = parseNdjsonLine(encoder.encode(text), 1, { fileStart: false }) ?? {
    ok: false,
    issues: [
      { path: "", message: "empty (an NDJSON block line is a JSON object)", code: "invalid_json" },
    ],
  };
  if (!r.ok)
    return {
      ok: false,
      issues: r.issues.map((i) => ({
        path: i.path ? `${BLOCK_FIELD}.${i.path}` : BLOCK_FIELD,
        message: i.message,
        // The line reader's code (`invalid_json`, `duplicate_key`, `too_many_issues`, ...) is
        // kept: a consumer of `rejected` events tells the kinds apart by it.
        code: i.code ?? "custom",
      })),
    };
  if (r.block.height !== height)
    return {
      ok: false,
      issues: [
        {
          path: `${BLOCK_FIELD}.height`,
          message: `must be the entry id's height ${height} (got ${r.block.height})`,
          code: "custom",
        },
      ],
    };
  return { ok: true, block: r.block, receivedAtMs: arrivalField(fields) };
}
