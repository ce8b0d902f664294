import { describeValue } from "../../core/describeValue.js";
import { RedisFeedError } from "./errors.js";

/** One stream entry as Redis sends it: its id and its field/value list. */
export type StreamEntry = [id: string, fields: string[]];

/**
 * What is wrong with `entry` as a stream entry (`[id, [field, value, ...]]`, all strings), or
 * `undefined` when it is one.
 */
function entryProblem(entry: unknown): string | undefined {
  if (!Array.isArray(entry) || entry.length !== 2) return `an entry is ${describeValue(entry)}`;
  const [id, fields] = entry as unknown[];
  if (typeof id !== "string") return `an entry id is ${describeValue(id)}`;
  if (!Array.isArray(fields)) return `the fields of entry ${id} are ${describeValue(fields)}`;
  for (const field of fields)
    if (typeof field !== "string") return `entry ${id} has a field ${describeValue(field)}`;
  return undefined;
}

function malformed(url: string, command: string, problem: string): RedisFeedError {
  return new RedisFeedError(url, "reply", {
    message: `Redis at ${url} answered ${command} with something that is not a stream reply`,
    details: problem,
  });
}

/**
 * The entries of an `XRANGE` or `XREVRANGE` reply, checked: a server that is not Redis, or a
 * proxy that mangles replies, fails the call like any other Redis fault (reconnect with
 * backoff) instead of throwing a `TypeError` out of the source.
 *
 * @throws {RedisFeedError} `reply`, naming the command and what was wrong.
 * @example
 * streamEntries(url, "XREVRANGE", await conn.call((c) => c.xrevrange(key, "+", "-", "COUNT", 1)));
 */
export function streamEntries(url: string, command: string, reply: unknown): StreamEntry[] {
  if (!Array.isArray(reply)) throw malformed(url, command, `the reply is ${describeValue(reply)}`);
  for (const entry of reply) {
    const problem = entryProblem(entry);
    if (problem) throw malformed(url, command, problem);
  }
  return reply as StreamEntry[];
}

/**
 * The entries of an `XREAD` reply on one key, checked; `null` when the wait ended with nothing
 * new.
 *
 * @throws {RedisFeedError} `reply`, naming what was wrong.
 * @example
 * xreadEntries(url, await conn.call((c) => c.xread("BLOCK", 5000, "STREAMS", key, "0-0")));
 */
export function xreadEntries(url: string, reply: unknown): StreamEntry[] | null {
  if (reply === null) return null;
  if (!Array.isArray(reply)) throw malformed(url, "XREAD", `the reply is ${describeValue(reply)}`);
  const out: StreamEntry[] = [];
  for (const stream of reply) {
    if (!Array.isArray(stream) || stream.length !== 2 || typeof stream[0] !== "string")
      throw malformed(url, "XREAD", `a stream of the reply is ${describeValue(stream)}`);
    out.push(...streamEntries(url, "XREAD", stream[1]));
  }
  return out;
}
