import { parseGasConfig } from "../core/config.js";
import { describeValue } from "../core/describeValue.js";
import { InvalidConfigError, type ValidationIssue } from "../core/errors.js";
import { unknownFieldIssues, unreadableOptions } from "../core/readOptions.js";

const KNOWN = ["strategies", "config", "calmBlocks", "verify", "verifyEvery", "onBlock"];
const STRATEGY_KNOWN = ["name", "strategy", "config"];

function blocksIssue(path: string, v: unknown): ValidationIssue | undefined {
  return v === undefined || (Number.isSafeInteger(v) && (v as number) >= 1)
    ? undefined
    : { path, message: `must be a whole number of blocks >= 1, got ${describeValue(v)}` };
}

/** `config`'s problems under `path` (`config.lowBlockHistory`, `strategies[1].config...`). */
function configIssues(path: string, config: unknown): ValidationIssue[] {
  if (config === undefined) return [];
  try {
    parseGasConfig(config);
    return [];
  } catch (e) {
    if (!(e instanceof InvalidConfigError)) throw e;
    return e.issues.map((i) => ({ ...i, path: i.path ? `${path}.${i.path}` : path }));
  }
}

function strategyIssues(s: unknown, i: number): ValidationIssue[] {
  const at = `strategies[${i}]`;
  if (typeof s !== "object" || s === null)
    return [
      {
        path: at,
        message: `must be { strategy, name?, config? } such as { strategy: aip34() } (got ${describeValue(s)})`,
      },
    ];
  const o = s as Record<string, unknown>;
  const issues = unknownFieldIssues(o, STRATEGY_KNOWN, at);
  if (typeof o.strategy !== "function")
    issues.push({
      path: `${at}.strategy`,
      message: `must be a strategy such as aip34() (got ${describeValue(o.strategy)})`,
    });
  if (o.name !== undefined && (typeof o.name !== "string" || o.name === ""))
    issues.push({
      path: `${at}.name`,
      message: `must be a non-empty string (got ${describeValue(o.name)})`,
    });
  issues.push(...configIssues(`${at}.config`, o.config));
  return issues;
}

/**
 * Check the options of `createBacktest` as a whole: every problem, with its path.
 *
 * @throws {InvalidConfigError} listing them.
 * @example
 * checkBacktestOptions({ strategies: [{ strategy: aip34() }], calmBlocks: 0 });
 * // InvalidConfigError: calmBlocks: must be a whole number of blocks >= 1, got 0
 */
export function checkBacktestOptions(options: unknown): void {
  if (typeof options !== "object" || options === null || Array.isArray(options))
    throw new InvalidConfigError([
      {
        path: "",
        message: `createBacktest takes an options object such as { strategies: [{ strategy: aip34() }] } (got ${describeValue(options)})`,
      },
    ]);
  const unreadable = unreadableOptions(options);
  if (unreadable) throw new InvalidConfigError([unreadable]);
  const o = options as Record<string, unknown>;
  const issues = unknownFieldIssues(o, KNOWN);
  if (!Array.isArray(o.strategies) || o.strategies.length === 0)
    issues.push({
      path: "strategies",
      message: `must list at least one strategy, such as [{ strategy: aip34() }], got ${describeValue(o.strategies)}`,
    });
  else issues.push(...o.strategies.flatMap((s, i) => strategyIssues(s, i)));
  issues.push(...configIssues("config", o.config));
  for (const key of ["calmBlocks", "verifyEvery"]) {
    const issue = blocksIssue(key, o[key]);
    if (issue) issues.push(issue);
  }
  if (o.verify !== undefined && typeof o.verify !== "boolean")
    issues.push({
      path: "verify",
      message: `must be true or false, got ${describeValue(o.verify)}`,
    });
  if (o.onBlock !== undefined && typeof o.onBlock !== "function")
    issues.push({
      path: "onBlock",
      message: `must be a function of each scored block, got ${describeValue(o.onBlock)}`,
    });
  if (issues.length > 0) throw new InvalidConfigError(issues);
}
