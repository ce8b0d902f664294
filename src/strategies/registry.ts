import { describeValue, thrownMessage } from "../core/describeValue.js";
import { didYouMean } from "../core/didYouMean.js";
import { InvalidArgumentError, InvalidConfigError, type ValidationIssue } from "../core/errors.js";
import { unknownFieldIssues, unreadableOptions } from "../core/readOptions.js";
import type { StrategyFactory } from "../core/types.js";
import { aip34 } from "./aip34.js";
import type { CalibratedOptions } from "./calibrated/options.js";
import { calibrated } from "./calibrated.js";
import { type GethOptions, geth } from "./geth.js";
import { type LastBlockOptions, lastBlock } from "./lastBlock.js";
import { tdigest } from "./tdigest.js";
import type { TDigestStrategyOptions } from "./tdigestOptions.js";

/** Settings a strategy may read from the config file besides the AIP-34 keys. */
export interface StrategySettings {
  /** The config file's `tdigest` block (validated by the tdigest strategy). */
  tdigest?: unknown;
  /** The config file's `calibrated` block (validated by the calibrated strategy). */
  calibrated?: unknown;
  /** The config file's `geth` block (validated by the geth strategy). */
  geth?: unknown;
  /** The config file's `last-block` block (validated by the last-block strategy). */
  "last-block"?: unknown;
  /**
   * The block of a strategy made known with {@link registerStrategy}, under its name (read by
   * its maker); a key that names no strategy is refused when the settings are resolved.
   */
  [registered: string]: unknown;
}

/** The strategy blocks of a config file, the keys of {@link StrategySettings}. */
export const STRATEGY_BLOCKS = ["tdigest", "calibrated", "geth", "last-block"] as const;
const BLOCKS: ReadonlySet<string> = new Set(STRATEGY_BLOCKS);

/** Makes a strategy factory from the settings of a config file (see {@link registerStrategy}). */
export type StrategyMaker = (settings: StrategySettings) => StrategyFactory;

const makers = new Map<string, StrategyMaker>([
  ["aip34", () => aip34()],
  ["tdigest", (s) => underBlock("tdigest", () => tdigest(s.tdigest as TDigestStrategyOptions))],
  ["geth", (s) => underBlock("geth", () => geth(s.geth as GethOptions))],
  [
    "calibrated",
    (s) => underBlock("calibrated", () => calibrated(s.calibrated as CalibratedOptions)),
  ],
  [
    "last-block",
    (s) => underBlock("last-block", () => lastBlock(s["last-block"] as LastBlockOptions)),
  ],
]);
/** The names gasdigest ships: not to be replaced (the CLI and config files name them). */
const BUILT_IN: ReadonlySet<string> = new Set(makers.keys());
/** The built-in names in lower case: "AIP34" would read as aip34 to anyone, so it is refused too. */
const BUILT_IN_LOWER: ReadonlySet<string> = new Set([...BUILT_IN].map((n) => n.toLowerCase()));

/**
 * `issue` with its path under `block` (`tiers.regular` → `tdigest.tiers.regular`). A summary
 * (`and 5 more issues`) is kept as it is: it names no field, and counts for the issues it
 * stands for when lists are joined and cut again.
 */
export function underPath(block: string, issue: ValidationIssue): ValidationIssue {
  if (issue.code === "too_many_issues") return issue;
  return { ...issue, path: issue.path ? `${block}.${issue.path}` : block };
}

/** Run `make`, reporting invalid options under the config file block they came from. */
function underBlock<T>(block: string, make: () => T): T {
  try {
    return make();
  } catch (e) {
    if (!(e instanceof InvalidConfigError)) throw e;
    throw new InvalidConfigError(e.issues.map((i) => underPath(block, i)));
  }
}

/** Names accepted by {@link resolveStrategy}, e.g. for `--strategy`. */
export function strategyNames(): string[] {
  return [...makers.keys()];
}

/**
 * What a registered name may be: no control character, comma, space or path (a `--strategies`
 * list splits on commas, and a name with `/` or starting with `.` is read as a module file), and
 * short enough for every message that lists the known names.
 */
const STRATEGY_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Make a strategy known to {@link resolveStrategy} in this process (the CLI runs in its own
 * process: name a module file there, see docs/strategies.md); a name given again replaces the
 * earlier maker. The built-in names cannot be taken.
 *
 * @throws {InvalidArgumentError} when `name` is not a non-empty string or a built-in name, or
 * `maker` not a function.
 * @example
 * registerStrategy("floor", () => lastBlock({ multiplier: 1 }));
 * createEngine({ strategy: resolveStrategy("floor") });
 */
export function registerStrategy(name: string, maker: StrategyMaker): void {
  const issues = [];
  if (typeof name !== "string" || !STRATEGY_NAME.test(name))
    issues.push({
      path: "name",
      message: `must be a name of 1 to 64 letters, digits, "-", "_" or "." starting with a letter or digit, as it is written in a --strategies list and in messages (got ${describeValue(name)})`,
    });
  if (typeof maker !== "function")
    issues.push({
      path: "maker",
      message: `must be a function (settings) => strategy factory (got ${describeValue(maker)})`,
    });
  else if (typeof name === "string" && BUILT_IN_LOWER.has(name.toLowerCase()))
    issues.push({
      path: "name",
      message: `"${name}" is a built-in strategy's name (in any case), which --strategy ${name.toLowerCase()} must keep meaning; register yours under another name`,
    });
  if (issues.length > 0) throw new InvalidArgumentError(issues);
  makers.set(name, maker);
}

/**
 * The strategy factory for a name.
 *
 * @throws {InvalidArgumentError} when no strategy has that name (issue `name`, code
 * `unknown_strategy`, naming the one it likely meant and the known ones), or `settings` is not
 * an object of strategy blocks.
 * @example
 * const engine = createEngine({ strategy: resolveStrategy("aip34") });
 */
export function resolveStrategy(name: string, settings: StrategySettings = {}): StrategyFactory {
  const maker = typeof name === "string" ? makers.get(name) : undefined;
  if (!maker) {
    const known = strategyNames();
    const meant = typeof name === "string" ? didYouMean(name, known) : undefined;
    throw new InvalidArgumentError([
      {
        path: "name",
        message: `unknown strategy ${describeValue(name)} (${meant ? `did you mean ${meant}? ` : ""}known strategies: ${known.join(", ")})`,
        code: "unknown_strategy",
      },
    ]);
  }
  const checked = checkSettings(settings);
  if (BUILT_IN.has(name)) return maker(checked);
  // A registered maker is the caller's code: what it throws, or returns that is no factory, is
  // named with the strategy's block, as a built-in's invalid options are.
  let factory: unknown;
  try {
    factory = maker(checked);
  } catch (cause) {
    if (cause instanceof InvalidConfigError) throw cause;
    throw new InvalidConfigError([
      {
        path: name,
        message: `the maker of strategy "${name}" threw: ${thrownMessage(cause)}`,
      },
    ]);
  }
  if (typeof factory !== "function")
    throw new InvalidConfigError([
      {
        path: name,
        message: `the maker of strategy "${name}" must return a strategy factory such as aip34() (got ${describeValue(factory)})`,
      },
    ]);
  return factory as StrategyFactory;
}

/**
 * Settings hold one block per strategy name, as a config file does (`{ tdigest: {...} }`): a
 * key that names no strategy (a strategy's option written at the top, a misspelt block) is
 * refused, not ignored.
 */
function checkSettings(settings: unknown): StrategySettings {
  if (settings === undefined || settings === null) return {};
  if (typeof settings !== "object" || Array.isArray(settings))
    throw new InvalidArgumentError([
      {
        path: "settings",
        message: `must be an object of strategy blocks such as { tdigest: { ... } } (got ${describeValue(settings)})`,
        code: "invalid_type",
      },
    ]);
  // Read whole first, as every options reader does: a getter or proxy trap that throws is named.
  const unreadable = unreadableOptions(settings, ["settings"]);
  if (unreadable) throw new InvalidArgumentError([unreadable]);
  const known = [...new Set([...BLOCKS, ...makers.keys()])];
  const unknown = unknownFieldIssues(
    settings,
    known,
    "settings",
    `names no strategy: settings hold one block per strategy (${known.join(", ")}), e.g. { tdigest: { compression: 200 } }`,
  );
  if (unknown.length > 0) throw new InvalidArgumentError(unknown);
  return settings as StrategySettings;
}
