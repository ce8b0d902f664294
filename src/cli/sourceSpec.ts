import { accessSync, constants, statSync } from "node:fs";
import { BaseError, ValidationError } from "../core/errors.js";
import { refuseBadPort } from "../sources/aptosRest/badPorts.js";
import { parseNodeUrl } from "../sources/aptosRest/nodeUrl.js";
import { showUrl } from "../sources/aptosRest/urlCredentials.js";
import { parseRedisUrl } from "../sources/redis/parseRedisUrl.js";
import { UsageError } from "./io.js";

/**
 * A `--source` value as it may be logged or echoed: a user name and password in its URL (an
 * `aptos:` node URL, a `redis://` URL) shown as `***`, so they reach neither logs nor stderr.
 *
 * @example
 * showSource("aptos:https://user:s3cret@node.example/v1"); // "aptos:https://***@node.example/v1"
 */
export function showSource(value: string): string {
  return value.startsWith("aptos:")
    ? `aptos:${showUrl(value.slice("aptos:".length))}`
    : showUrl(value);
}

/** A parsed `--source` value. */
export type SourceSpec =
  | { kind: "sim" }
  | { kind: "ndjson"; path: string }
  | { kind: "aptos"; url: string }
  | { kind: "redis"; url: string };

/**
 * Parse `--source`: `sim`, `ndjson:PATH`, `aptos:URL` (an http or https base URL of a node, not on
 * a port fetch refuses) or `redis://HOST:PORT[/DB]` (a Redis Stream written by `gasdigest publish`).
 * @throws {UsageError} naming what is wrong.
 */
export function parseSourceSpec(value: string): SourceSpec {
  if (value === "sim") return { kind: "sim" };
  if (value.startsWith("ndjson:")) {
    const path = value.slice("ndjson:".length);
    if (!path) throw new UsageError("--source ndjson:PATH needs a file path after 'ndjson:'");
    // As for every file flag: not stdin, and not a file named "-" either.
    if (path === "-")
      throw new UsageError(
        '--source ndjson:- names no file: "-" is not read as stdin here; name ndjson:/dev/stdin to mean it',
      );
    return { kind: "ndjson", path };
  }
  if (value.startsWith("aptos:")) {
    const url = value.slice("aptos:".length);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UsageError(
        `--source aptos:URL needs an http(s) URL after 'aptos:' (got "${showUrl(url)}")`,
      );
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
      throw new UsageError(`--source aptos:URL needs an http or https URL (got "${showUrl(url)}")`);
    // What the node source would refuse (a query, a ':' in the user name, a port fetch never
    // connects to) is a bad flag too.
    flagValue("source", () => refuseBadPort(parseNodeUrl(url).baseUrl, ""));
    return { kind: "aptos", url };
  }
  // Any case, as the URL parser reads a scheme (publish --to REDIS://... is taken too).
  if (/^rediss?:\/\//i.test(value)) return { kind: "redis", url: redisUrlFlag("source", value) };
  throw new UsageError(
    `--source must be sim, ndjson:PATH, aptos:URL or redis://HOST:PORT[/DB] (got "${showSource(value)}")`,
  );
}

/** Check a `redis://HOST:PORT[/DB]` flag value; returns it unchanged. */
export function redisUrlFlag(name: string, value: string): string {
  flagValue(name, () => parseRedisUrl(value));
  return value;
}

/**
 * Run `check` on the value of flag `--name`; what it refuses (a `ValidationError`) is a usage
 * error naming the flag: `--source: must not carry a query or fragment`.
 *
 * @throws {UsageError} naming the flag, or whatever else `check` threw.
 */
function flagValue(name: string, check: () => unknown): void {
  try {
    check();
  } catch (e) {
    if (e instanceof ValidationError)
      throw new UsageError(`--${name}: ${e.issues.map((i) => i.message).join("; ")}`);
    throw e;
  }
}

/** Parse a whole-number flag value within bounds. */
export function intFlag(
  name: string,
  value: string | undefined,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
) {
  if (value === undefined) return undefined;
  if (!/^[0-9]+$/.test(value) || Number(value) < min || Number(value) > max)
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max} (got "${value}")`);
  return Number(value);
}

/**
 * Throw `cannot read PATH` unless `path` is a readable file (a FIFO or device counts): stat and
 * access, not open, since opening a FIFO waits for its writer.
 */
export function checkReadableFile(path: string): void {
  let problem: string | undefined;
  try {
    if (statSync(path).isDirectory()) problem = "it is a directory";
    else accessSync(path, constants.R_OK);
  } catch (e) {
    problem = (e as Error).message;
  }
  if (problem !== undefined) throw new BaseError(`cannot read ${path}`, { details: problem });
}

/**
 * Parse `--speed`: a positive decimal number (`2`, `0.5`, `10.`), as written: not hex, an
 * exponent or spaces, which `Number()` would take.
 *
 * @throws {UsageError} naming the flag.
 */
export function speedFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const speed = Number(value);
  // Not `\d+\.?\d*`: both runs of digits can take the same digits, which took quadratic time on
  // a long value that is not a number (100,000 digits and a letter: 12 s).
  if (!/^(?:\d+(?:\.\d*)?|\.\d+)$/.test(value) || !(speed > 0 && Number.isFinite(speed)))
    throw new UsageError(
      `--speed must be a positive decimal number in digits, such as 2 or 0.5 (got "${value}")`,
    );
  return speed;
}
