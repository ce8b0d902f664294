import { readFile } from "node:fs/promises";
import * as z from "zod";
import {
  crossCheckGasConfig,
  DEFAULT_GAS_CONFIG,
  type GasConfig,
  gasConfigShape,
  markParsed,
} from "../core/config.js";
import { shorten } from "../core/describeValue.js";
import { BaseError, InvalidConfigError, type ValidationIssue } from "../core/errors.js";
import { parseJsonLossless } from "../core/parseJsonLossless.js";
import { validateShape } from "../core/validate.js";
import { resolveStrategy, type StrategySettings } from "../strategies/registry.js";

/** What a `--config FILE.json` holds: the AIP-34 keys at the top, strategy blocks beside them. */
interface ConfigFile {
  gas: GasConfig;
  /**
   * The strategy blocks (`tdigest`, `calibrated`, `geth`, `last-block`), each validated by its
   * strategy when the file is read, whichever strategy runs.
   */
  strategies: StrategySettings;
}

const STRATEGY_BLOCKS = ["tdigest", "calibrated", "geth", "last-block"] as const;
const fileShape = {
  ...gasConfigShape,
  ...Object.fromEntries(STRATEGY_BLOCKS.map((k) => [k, z.unknown().optional()])),
};

/** Validate a parsed config object (every problem listed). */
function parseConfigObject(input: unknown): ConfigFile {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw new InvalidConfigError([{ path: "", message: "the config must be a JSON object" }]);
  const r = validateShape(fileShape, input, crossCheckGasConfig);
  const issues = [...(r.ok ? [] : r.issues), ...strategyBlockIssues(input)];
  if (!r.ok || issues.length > 0) throw new InvalidConfigError(issues);
  const gas: Record<string, unknown> = { ...r.value };
  const strategies: Record<string, unknown> = {};
  for (const k of STRATEGY_BLOCKS) {
    strategies[k] = gas[k];
    delete gas[k];
  }
  return { gas: markParsed(gas as GasConfig), strategies };
}

/**
 * Every strategy block the file has is checked, whichever strategy runs: a mistake in a block
 * is reported when the file is read, not the day someone selects that strategy.
 */
function strategyBlockIssues(input: object): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const k of STRATEGY_BLOCKS) {
    const block = (input as Record<string, unknown>)[k];
    if (block === undefined) continue;
    try {
      resolveStrategy(k, { [k]: block });
    } catch (e) {
      if (!(e instanceof InvalidConfigError)) throw e;
      issues.push(...e.issues);
    }
  }
  return issues;
}

/**
 * Read and validate a JSON config file (UTF-8, with or without a byte order mark); without a
 * path (an unset or empty `--config`), the default AIP-34 settings and no strategy block.
 * @throws {BaseError} unreadable file or invalid JSON; {@link InvalidConfigError} bad values.
 * @example
 * const { gas, strategies } = await loadConfigFile(values.config);
 */
export async function loadConfigFile(path?: string): Promise<ConfigFile> {
  if (!path) return { gas: DEFAULT_GAS_CONFIG, strategies: {} };
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    throw new BaseError(`cannot read config file ${path}`, {
      details: (e as Error).message,
      cause: e,
    });
  }
  // A byte order mark (editors on Windows write one) is not part of the JSON.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let value: unknown;
  try {
    value = parseJsonLossless(text);
  } catch (e) {
    throw new BaseError(`config file ${path} is not valid JSON`, {
      details: shorten((e as Error).message),
      cause: e,
    });
  }
  return parseConfigObject(value);
}
