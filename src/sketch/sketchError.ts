/**
 * An invalid argument given to a sketch (t-digest or sliding window). The sketch layer imports
 * nothing of the project, so this is a plain `Error` subclass; `field` names the argument.
 *
 * @example
 * try { digest.add(Number.NaN) } catch (e) { if (e instanceof SketchError) console.error(e.field) }
 * // SketchError: value must be a finite number, got NaN
 */
export class SketchError extends Error {
  override name = "SketchError";
  /** The argument or field at fault, e.g. `value`, `weights[3]`, `means`. */
  readonly field: string;

  constructor(field: string, problem: string) {
    super(`${field} ${problem}`);
    this.field = field;
  }
}

/** How a rejected value reads in an error message: `NaN`, `Infinity`, `"12" (string)`. */
export function describeValue(value: unknown): string {
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return `${JSON.stringify(value)} (string)`;
  if (typeof value === "bigint") return `${value}n (bigint)`;
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : String(value);
}

/** Throw unless `value` is a finite number. */
export function checkFinite(field: string, value: unknown): asserts value is number {
  if (typeof value !== "number" || value - value !== 0)
    throw new SketchError(field, `must be a finite number, got ${describeValue(value)}`);
}

/** Throw unless `weight` is a finite number greater than 0. */
export function checkWeight(field: string, weight: unknown): asserts weight is number {
  if (typeof weight !== "number" || !(weight > 0) || weight === Number.POSITIVE_INFINITY)
    throw new SketchError(
      field,
      `must be a finite number greater than 0, got ${describeValue(weight)}`,
    );
}
