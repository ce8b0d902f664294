import { describeValue } from "../core/describeValue.js";
import { didYouMean } from "../core/didYouMean.js";
import { BaseError } from "../core/errors.js";
import { formatPath, openOptions } from "../core/readOptions.js";

/**
 * An invalid argument given to a sketch (t-digest or sliding window); `field` names the
 * argument. The sketch layer imports nothing of the project but the error root, `describeValue`
 * `didYouMean` and `readOptions` (which import nothing else), so it stays usable on its own.
 *
 * @example
 * try { digest.add(Number.NaN) } catch (e) { if (e instanceof SketchError) console.error(e.field) }
 * // SketchError: value must be a finite number, got NaN
 */
export class SketchError extends BaseError {
  override name = "SketchError";
  /** The argument or field at fault, e.g. `value`, `weights[3]`, `means`. */
  readonly field: string;

  constructor(field: string, problem: string) {
    super(`${field} ${problem}`);
    this.field = field;
  }
}

/** Throw unless `value` is a finite number. */
export function checkFinite(field: string, value: unknown): asserts value is number {
  if (typeof value !== "number" || value - value !== 0)
    throw new SketchError(field, `must be a finite number, got ${describeValue(value)}`);
}

/** Throw unless `weight` is a number greater than 0 and at most {@link MAX_WEIGHT}. */
export function checkWeight(field: string, weight: unknown): asserts weight is number {
  if (typeof weight !== "number" || !(weight > 0) || weight > MAX_WEIGHT)
    throw new SketchError(
      field,
      `must be a number greater than 0 and at most 2^53, got ${describeValue(weight)}`,
    );
}

/**
 * Throw unless `values` is an array of finite numbers and `weights`, when given, holds one
 * weight per value, each accepted by {@link checkWeight}: what a digest's `addMany` takes.
 */
export function checkValues(
  values: unknown,
  weights: unknown,
): asserts values is ArrayLike<number> {
  if (
    typeof values !== "object" ||
    values === null ||
    typeof (values as ArrayLike<unknown>).length !== "number"
  )
    throw new SketchError("values", `must be an array of numbers, got ${describeValue(values)}`);
  const list = values as ArrayLike<unknown>;
  const n = list.length;
  for (let i = 0; i < n; i++) {
    const v = list[i];
    if (typeof v !== "number" || v - v !== 0) checkFinite(`values[${i}]`, v);
  }
  if (weights === undefined) return;
  if (
    typeof weights !== "object" ||
    weights === null ||
    (weights as ArrayLike<unknown>).length !== n
  )
    throw new SketchError(
      "weights",
      `must be an array with one weight per value (${n}), got ${weights === null || typeof weights !== "object" ? describeValue(weights) : `${(weights as ArrayLike<unknown>).length} entries`}`,
    );
  const w = weights as ArrayLike<unknown>;
  for (let i = 0; i < n; i++) checkWeight(`weights[${i}]`, w[i]);
}

/**
 * Largest weight of one added value: weights are counts. With {@link MAX_TOTAL_WEIGHT} no sum
 * of them (a digest's total, a window's) can overflow to Infinity, which would turn every
 * quantile into NaN.
 */
export const MAX_WEIGHT = 2 ** 53;
/**
 * Largest total weight of a digest, and of a centroid list given to `merge`,
 * `tdigestFromJSON` or a window: `add`, `addMany` and `merge` refuse what would pass it, so a
 * digest's own `toJSON()` always loads again. Far beyond any count (2^53 per value, 2^75 values).
 */
export const MAX_TOTAL_WEIGHT = 2 ** 128;

/**
 * A sketch's options must be an object holding only the names it knows (a misspelt option
 * would otherwise be ignored without a word); `null` and `undefined` are the defaults.
 *
 * @returns the options, `{}` for `null` or `undefined`.
 * @throws {SketchError} naming the first unknown option (and the one it likely meant), or
 * `options` when it is no object.
 */
export function checkOptionKeys<T extends object>(
  options: T | null | undefined,
  known: readonly string[],
): Partial<T> {
  const opened = openOptions(options);
  if (opened.issue) throw new SketchError(opened.issue.path || "options", opened.issue.message);
  for (const key of Object.keys(opened.value)) {
    if (known.includes(key)) continue;
    const meant = didYouMean(key, known);
    const hint = meant ? `did you mean ${meant}?` : `known: ${known.join(", ")}`;
    throw new SketchError(formatPath([key]), `is not an option (${hint})`);
  }
  return opened.value as Partial<T>;
}
