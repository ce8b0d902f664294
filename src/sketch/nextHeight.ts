import { describeValue } from "../core/describeValue.js";
import { SketchError } from "./sketchError.js";

/**
 * The height of a block added to a window after the block at `newest` (`undefined`: none yet):
 * `given`, if it is a whole number above `newest`, or by default `newest + 1` (0 for the first).
 *
 * @throws {SketchError} on `height` when `given` is no whole number (a safe integer or a
 * bigint), is below 0, or is not above `newest`.
 * @example
 * nextHeight(undefined, 41n); // 42n
 * nextHeight(7, 41n); // SketchError: height must be above the previous block's height 41, got 7
 */
export function nextHeight(given: unknown, newest: bigint | undefined): bigint {
  if (given === undefined) return newest === undefined ? 0n : newest + 1n;
  let height: bigint;
  if (typeof given === "bigint") height = given;
  else if (typeof given === "number" && Number.isSafeInteger(given)) height = BigInt(given);
  else
    throw new SketchError(
      "height",
      `must be a whole number (a safe integer or a bigint), got ${describeValue(given)}`,
    );
  if (height < 0n) throw new SketchError("height", `must be 0 or more, got ${height}`);
  if (newest !== undefined && height <= newest)
    throw new SketchError(
      "height",
      `must be above the previous block's height ${newest}, got ${height}`,
    );
  return height;
}
