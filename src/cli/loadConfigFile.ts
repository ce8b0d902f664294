import type { Stats } from "node:fs";
import { constants } from "node:fs";
import { open, stat } from "node:fs/promises";
import * as z from "zod";
import {
  crossCheckGasConfig,
  DEFAULT_GAS_CONFIG,
  type GasConfig,
  gasConfigShape,
  markParsed,
} from "../core/config.js";
import { capIssues } from "../core/createIssueList.js";
import { describeValue, shorten } from "../core/describeValue.js";
import { duplicateKeyIssues } from "../core/duplicateKeys.js";
import {
  BaseError,
  InvalidConfigError,
  InvalidJsonError,
  type ValidationIssue,
} from "../core/errors.js";
import { jsonErrorOffset } from "../core/jsonErrorOffset.js";
import { parseJsonLossless } from "../core/parseJsonLossless.js";
import { validateShape } from "../core/validate.js";
import { isStdinSocket } from "../sources/stdinSocket.js";
import {
  resolveStrategy,
  STRATEGY_BLOCKS,
  type StrategySettings,
  underPath,
} from "../strategies/registry.js";
import { fileFlag } from "./outputFile.js";

/** What a `--config FILE.json` holds: the AIP-34 keys at the top, strategy blocks beside them. */
interface ConfigFile {
  gas: GasConfig;
  /**
   * The strategy blocks (`tdigest`, `calibrated`, `geth`, `last-block`), each validated by its
   * strategy when the file is read, whichever strategy runs.
   */
  strategies: StrategySettings;
}

const fileShape = {
  ...gasConfigShape,
  ...Object.fromEntries(STRATEGY_BLOCKS.map((k) => [k, z.unknown().optional()])),
};

/** Largest config file read: 16 MiB (a config is a few hundred bytes). */
export const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

/**
 * Most objects and arrays a config file may hold, counted before it is parsed. A config holds a
 * few dozen (a long `buckets` list is one array); millions nested, within the byte cap, took
 * 5 s and 1.3 GB to parse and refuse.
 */
export const MAX_CONFIG_CONTAINERS = 10_000;

/** What a file that is not a regular file is, for the message. */
function fileKind(info: Stats): string {
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a FIFO (named pipe)";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  if (info.isSocket()) return "a socket";
  return "something other than a regular file";
}

/**
 * The text of the config file at `path`: a regular file or a pipe (`--config /dev/stdin` under
 * `cat c.json |`, `--config <(jq ...)`, a FIFO; standard input that is a socket, as a Node parent
 * gives it, is read from `process.stdin`), of at most {@link MAX_CONFIG_BYTES}, checked by
 * its size before reading and again while reading (it may grow; a pipe has no size). A device,
 * socket or directory is refused before it is opened: reading `/dev/urandom` never ends.
 */
async function readConfigText(path: string): Promise<string> {
  const tooLarge = (bytes: string) =>
    new BaseError(`config file ${path} is larger than ${MAX_CONFIG_BYTES} bytes (16 MiB)`, {
      details: `${bytes}; a config file is a few hundred bytes`,
    });
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  try {
    // Standard input given by a Node parent is a socket, which cannot be opened by its path.
    if (isStdinSocket(path)) {
      const parts: Buffer[] = [];
      let total = 0;
      for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
        parts.push(chunk);
        total += chunk.length;
        if (total > MAX_CONFIG_BYTES) {
          process.stdin.destroy();
          throw tooLarge("it grew past that while it was read");
        }
      }
      return Buffer.concat(parts).toString("utf8");
    }
    const info = await stat(path);
    if (!info.isFile() && !info.isFIFO())
      throw new BaseError(`config file ${path} is not a regular file or a pipe`, {
        details: `it is ${fileKind(info)}`,
      });
    if (info.size > MAX_CONFIG_BYTES) throw tooLarge(`it has ${info.size} bytes`);
    // A pipe is read as it comes (its open waits for a writer); a file without blocking, so a
    // FIFO put in its place since the check is not waited on.
    fh = await open(path, constants.O_RDONLY | (info.isFIFO() ? 0 : constants.O_NONBLOCK));
    const opened = await fh.stat();
    if (!opened.isFile() && !opened.isFIFO())
      throw new BaseError(`config file ${path} is not a regular file or a pipe`, {
        details: `it is ${fileKind(opened)}`,
      });
    const parts: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(65_536);
      const { bytesRead } = await fh.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      parts.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > MAX_CONFIG_BYTES) throw tooLarge("it grew past that while it was read");
    }
    return Buffer.concat(parts).toString("utf8");
  } catch (e) {
    if (e instanceof BaseError) throw e;
    throw new BaseError(`cannot read config file ${path}`, {
      details: (e as Error).message,
      cause: e,
    });
  } finally {
    await fh?.close();
  }
}

/** Validate a parsed config object (every problem listed). */
function parseConfigObject(input: unknown): ConfigFile {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw new InvalidConfigError([{ path: "", message: "the config must be a JSON object" }]);
  const r = validateShape(fileShape, input, crossCheckGasConfig);
  const gas: Record<string, unknown> | undefined = r.ok ? { ...r.value } : undefined;
  const strategies: Record<string, unknown> = {};
  for (const k of STRATEGY_BLOCKS) {
    strategies[k] = gas?.[k];
    delete gas?.[k];
  }
  // Each part is cut to 20 issues on its own: the whole list is cut again, so that the file's
  // problems are listed as every other list is, 20 and then one count of the others.
  const issues = capIssues([
    ...(r.ok ? [] : r.issues.map((i) => strategyOptionHint(input, i))),
    ...strategyBlockIssues(input, gas as GasConfig | undefined),
  ]);
  if (!gas || issues.length > 0) throw new InvalidConfigError(issues);
  return { gas: markParsed(gas as GasConfig), strategies };
}

/**
 * `issue`, an unknown top-level field that is an option of a strategy block, named with that
 * block (`multiplier: unknown field (an option of the "last-block" block: {"last-block":
 * {"multiplier": ...}})`): a strategy's option written at the top level read as a typo.
 */
function strategyOptionHint(input: object, issue: ValidationIssue): ValidationIssue {
  const key = issue.path;
  if (issue.code !== "unrecognized_keys" || issue.message !== "unknown field") return issue;
  if (!Object.hasOwn(input, key)) return issue;
  const value = (input as Record<string, unknown>)[key];
  const blocks = STRATEGY_BLOCKS.filter((block) => {
    try {
      resolveStrategy(block, { [block]: { [key]: value } });
      return true;
    } catch (e) {
      // Refused for its value (or another rule), not as unknown: the block has that option.
      return (
        e instanceof InvalidConfigError &&
        !e.issues.some((i) => i.code === "unrecognized_keys" && i.path === `${block}.${key}`)
      );
    }
  });
  if (blocks.length === 0) return issue;
  const hint =
    blocks.length === 1
      ? `an option of the "${blocks[0]}" block: {"${blocks[0]}": {"${key}": ...}}`
      : `an option of the ${blocks.map((b) => `"${b}"`).join(" and ")} blocks`;
  return { ...issue, message: `unknown field (${hint})` };
}

/**
 * Every strategy block the file has is checked, whichever strategy runs: a mistake in a block
 * is reported when the file is read, not the day someone selects that strategy. With the file's
 * settings valid (`gas`), the block's strategy is also made from them once: a rule that needs
 * both (a `tdigest` window, whose default length is a history setting, holding too many
 * centroids) is checked too, and named with its block.
 */
function strategyBlockIssues(input: object, gas: GasConfig | undefined): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const k of STRATEGY_BLOCKS) {
    const block = (input as Record<string, unknown>)[k];
    if (block === undefined) continue;
    // `null` would read as the defaults, and an array or a number as zod's bare "expected
    // object": a block is an object of the strategy's options, or left out.
    if (typeof block !== "object" || block === null || Array.isArray(block)) {
      issues.push({
        path: k,
        message: `must be an object of ${k} options ({} for the defaults), got ${describeValue(block)}`,
        code: "invalid_type",
      });
      continue;
    }
    let factory: ReturnType<typeof resolveStrategy>;
    try {
      factory = resolveStrategy(k, { [k]: block });
    } catch (e) {
      if (!(e instanceof InvalidConfigError)) throw e;
      issues.push(...e.issues);
      continue;
    }
    if (gas === undefined) continue;
    try {
      factory(gas);
    } catch (e) {
      if (!(e instanceof InvalidConfigError)) throw e;
      issues.push(...e.issues.map((i) => underPath(k, i)));
    }
  }
  return issues;
}

/**
 * Read and validate a JSON config file (UTF-8, with or without a byte order mark; a regular
 * file of at most {@link MAX_CONFIG_BYTES}); without a path (no `--config`), the default AIP-34
 * settings and no strategy block.
 * @throws {UsageError} an empty path (`--config "$UNSET"`).
 * @throws {BaseError} unreadable, too large or not a regular file, or invalid JSON;
 *   {@link InvalidConfigError} bad values.
 * @example
 * const { gas, strategies } = await loadConfigFile(values.config);
 */
export async function loadConfigFile(flag?: string): Promise<ConfigFile> {
  const path = fileFlag("config", flag);
  if (path === undefined) return { gas: DEFAULT_GAS_CONFIG, strategies: {} };
  let text = await readConfigText(path);
  // A byte order mark (editors on Windows write one) is not part of the JSON.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let value: unknown;
  try {
    value = parseJsonLossless(text, { maxContainers: MAX_CONFIG_CONTAINERS });
  } catch (e) {
    if (e instanceof InvalidJsonError && e.code === "too_large")
      throw new BaseError(`config file ${path} ${e.message} (a config holds a few dozen)`, {
        cause: e,
      });
    throw new BaseError(`config file ${path} is not valid JSON`, {
      details: withLineAndColumn((e as Error).message, text),
      cause: e,
    });
  }
  // JSON.parse keeps the last value of a repeated key: the first would go unread, unchecked.
  // Listed with the file's other problems, all at once.
  const repeated = duplicateKeyIssues(
    text,
    "is given twice in the file (only the last would count); give it once",
  );
  let config: ConfigFile;
  try {
    config = parseConfigObject(value);
  } catch (e) {
    if (repeated.length > 0 && e instanceof InvalidConfigError)
      throw new InvalidConfigError(capIssues([...repeated, ...e.issues]));
    throw e;
  }
  if (repeated.length > 0) throw new InvalidConfigError(repeated);
  return config;
}

/**
 * A JSON parser's message with the line and column where the text stops being JSON, for a file
 * a person edits: of the `position N` it names (`... at position 12` becomes `... at position
 * 12 (line 3, column 1)`), or, where it names none (V8's `Unexpected token '}', ...`), of
 * {@link jsonErrorOffset}.
 */
function withLineAndColumn(parserMessage: string, text: string): string {
  // V8 of Node 22 and later adds its own `(line 3 column 1)`, without the comma: one form on
  // every Node.
  const message = parserMessage.replace(/ \(line \d+ column \d+\)$/, "");
  if (/\bline \d+/.test(message)) return shorten(message);
  const m = /\bposition (\d+)\b/.exec(message);
  const offset = m === null ? jsonErrorOffset(text) : Number(m[1]);
  if (offset === undefined) return shorten(message);
  const at = Math.min(offset, text.length);
  const before = text.slice(0, at);
  const line = before.split("\n").length;
  const column = at - before.lastIndexOf("\n");
  // Shortened before, so that the place is never what is cut off.
  return `${shorten(message)} (line ${line}, column ${column})`;
}
