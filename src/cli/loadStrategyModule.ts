import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { GasConfig } from "../core/config.js";
import { describeValue, oneLine, thrownMessage as thrown } from "../core/describeValue.js";
import { BaseError } from "../core/errors.js";
import { isPromiseResult } from "../core/promiseResult.js";
import { builderName } from "../core/strategyBuilder.js";
import type { Strategy, StrategyFactory } from "../core/types.js";

/**
 * Whether a `--strategy` / `--strategies` entry names a module file rather than a registered
 * strategy. A TypeScript file too: node says it cannot load it (or, where it strips types, loads
 * it), where "unknown strategy" hid that the name was read as a strategy's.
 */
export function isStrategyPath(name: string): boolean {
  return name.includes("/") || name.includes("\\") || /\.(m|c)?(js|ts)$/.test(name);
}

/** A strategy module that cannot be used, with what to do about it. */
function unusable(path: string, problem: string): BaseError {
  return new BaseError(`cannot use ${path} as a strategy: ${problem}`, {
    details:
      "a strategy module's default export is what createEngine({ strategy }) takes: a function from the validated config to a strategy { name, ingest(block), estimate(min), reset() }, as aip34() returns",
  });
}

/**
 * Why a CommonJS module's `exports.default` (what TypeScript compiles `export default` to) is
 * not the default export `import()` gives (that is `module.exports`), when it is that.
 */
function commonJsDefault(exported: unknown): string {
  let inner: unknown;
  try {
    inner = (exported as { default?: unknown } | null)?.default;
  } catch {
    return "";
  }
  return typeof inner === "function"
    ? " (a CommonJS module's exports.default, as TypeScript compiles export default, is not its default export: import() gives module.exports; assign the factory to module.exports, or make it an ES module)"
    : "";
}

/**
 * Load a strategy from a module file (`--strategy ./mine.js`): its default export must be a
 * strategy factory, as `createEngine({ strategy })` takes. Checked on load: the file exists, has
 * a default export, the export is a factory (a builder passed uncalled is named), and the factory
 * returns an object with `name`, `ingest`, `estimate` and `reset`.
 *
 * @throws {BaseError} naming the file and the problem.
 * @example
 * const factory = await loadStrategyModule("./examples/strategies/mine.js", DEFAULT_GAS_CONFIG);
 */
export async function loadStrategyModule(
  path: string,
  config: GasConfig,
): Promise<StrategyFactory> {
  const file = resolve(path);
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(file);
  } catch {
    throw unusable(path, `no such file (${file})`);
  }
  // A device or FIFO (/dev/zero) would be read without end by the module loader.
  if (!info.isFile()) throw unusable(path, `it is not a regular file (${file})`);
  let mod: { default?: unknown };
  // A top-level await that never settles leaves nothing to run: node then exits 13, without a
  // word. The command says which module it was waiting for.
  const neverLoaded = (code: number) => {
    // node 20 tells the exit event 0, and sets 13 as the exit code.
    if (code === 13 || process.exitCode === 13)
      process.stderr.write(
        `gasdigest: ${unusable(path, "it never finished loading (a top-level await in it never settled)").shortMessage}\n`,
      );
  };
  process.once("exit", neverLoaded);
  try {
    mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (e) {
    throw unusable(path, `it does not load: ${thrown(e)}`);
  } finally {
    process.off("exit", neverLoaded);
  }
  const factory = mod.default;
  if (factory === undefined) {
    const named = Object.keys(mod).slice(0, 5);
    throw unusable(
      path,
      named.length > 0
        ? `it has no default export (it exports ${named.map((n) => oneLine(n, 64)).join(", ")}: export default the factory, e.g. export default ${oneLine(named[0]!, 64)})`
        : "it has no default export",
    );
  }
  const builder = builderName(factory);
  if (builder)
    throw unusable(
      path,
      `its default export is the builder ${builder}; export ${builder}() instead`,
    );
  if (typeof factory !== "function")
    throw unusable(
      path,
      `its default export is ${describeValue(factory)}, not a function${commonJsDefault(factory)}`,
    );
  // Every call is checked, the engine's too (a factory may fail on its second call): an error
  // names the file, whichever strategy of several it is.
  const checked = (c: GasConfig) => {
    let strategy: unknown;
    try {
      strategy = factory(c);
    } catch (e) {
      throw unusable(path, `its factory threw: ${thrown(e)}`);
    }
    if (isPromiseResult(strategy))
      throw unusable(
        path,
        "its factory returned a promise (an async function); it must return the strategy itself, synchronously",
      );
    const s = strategy as Record<string, unknown> | null;
    let missing: string[];
    try {
      missing =
        typeof s !== "object" || s === null
          ? ["name", "ingest", "estimate", "reset"]
          : [
              ...(typeof s.name === "string" && s.name !== "" ? [] : ["name"]),
              ...["ingest", "estimate", "reset"].filter((m) => typeof s[m] !== "function"),
            ];
    } catch (e) {
      // A getter or proxy trap that throws: the strategy cannot be read, so it cannot be used.
      throw unusable(path, `its factory returned an object that cannot be read: ${thrown(e)}`);
    }
    if (missing.length > 0)
      throw unusable(
        path,
        `its factory returned ${describeValue(strategy)}, which lacks ${missing.join(", ")}`,
      );
    return strategy as Strategy;
  };
  checked(config);
  return checked as StrategyFactory;
}
