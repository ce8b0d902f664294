import { constants } from "node:buffer";
import * as z from "zod";
import { describeValue } from "../core/describeValue.js";
import { InvalidConfigError } from "../core/errors.js";
import { fnOption, u64Option } from "../core/optionSchemas.js";
import { wholeRange } from "../core/rangeOptions.js";
import { validateWithArgument } from "../core/validate.js";
import type { InvalidLineError, WaitCutEvent } from "./ndjsonFile.js";

/** The options of `readNdjson` (and the `maxLineBytes` that `ndjsonFile` passes on). */
export const readNdjsonShape = {
  // A line is read as one string: no longer than the longest string V8 makes.
  maxLineBytes: wholeRange(
    "bytes",
    1,
    constants.MAX_STRING_LENGTH,
    " (the longest string)",
  ).optional(),
  signal: z
    .custom<AbortSignal>((v) => v instanceof AbortSignal, "must be an AbortSignal")
    .optional(),
  onBytes: fnOption<((bytesRead: number) => void) | undefined>(
    "taking the bytes read so far",
    undefined,
  ),
  fastPath: z.boolean({ error: "must be true or false" }).optional(),
};

/** The options of `ndjsonFile`. */
export const ndjsonFileShape = {
  maxLineBytes: readNdjsonShape.maxLineBytes,
  onInvalidLine: fnOption<((error: InvalidLineError) => void) | undefined>(
    "taking an InvalidLineError",
    undefined,
  ),
  // `Infinity` is allowed (as fast as the subscriber takes them), which `z.number()` refuses.
  speed: z
    .custom<number>((v) => typeof v === "number" && v > 0, {
      error: (iss) => `must be a number above 0 (got ${describeValue(iss.input)})`,
    })
    .optional(),
  // `Infinity` too: every gap kept.
  maxWaitMs: z
    .custom<number>((v) => typeof v === "number" && v >= 0 && !Number.isNaN(v), {
      error: (iss) => `must be a number of ms, at least 0 (got ${describeValue(iss.input)})`,
    })
    .default(60_000),
  fromHeight: u64Option.optional(),
  onWaitCut: fnOption<((event: WaitCutEvent) => void) | undefined>(
    "taking the wait cut",
    undefined,
  ),
};

/**
 * Refuse a file path that is not a non-empty string, before anything is opened.
 *
 * @throws {InvalidConfigError} naming `path`.
 */
function checkNdjsonPath(path: unknown): void {
  if (typeof path !== "string" || path === "")
    throw new InvalidConfigError([
      { path: "path", message: `must be a file path (got ${describeValue(path)})` },
    ]);
}

/**
 * Validate an NDJSON file's path and its reading options against `shape`: every problem named
 * (unknown keys too), the path's first.
 *
 * @throws {InvalidConfigError} listing them.
 * @example
 * const o = checkNdjsonArguments(ndjsonFileShape, "history.ndjson", { speed: 10 });
 */
export function checkNdjsonArguments<S extends z.ZodRawShape>(
  shape: S,
  path: unknown,
  options: unknown,
): z.output<z.ZodObject<S>> {
  return validateWithArgument(
    () => checkNdjsonPath(path),
    shape,
    options,
    () => [],
  ).value;
}
