import type { z } from "zod";
import { createIssueList, moreIssues } from "./createIssueList.js";
import { MAX_ISSUES, type ValidationIssue } from "./errors.js";
import { formatPath, unknownFieldIssue } from "./readOptions.js";

/**
 * The params of a zod custom issue that stands for `count` more problems found by a bounded
 * check (see {@link issuesFromZod}), e.g. `ctx.addIssue({ code: "custom", message, params: moreParams(n) })`.
 */
export function moreParams(count: number): { more: number } {
  return { more: count };
}

/** Wrappers whose inner schema holds the fields (a field made optional, given a default, ...). */
const WRAPPERS = new Set([
  "optional",
  "nonoptional",
  "default",
  "prefault",
  "nullable",
  "readonly",
  "catch",
]);

/**
 * The field names the object that `schema` expects at `path` takes, or `undefined` where the
 * path leads to no object schema (a record, a union, a custom check).
 *
 * @example
 * fieldsAt(z.strictObject({ tiers: z.strictObject({ regular: z.number() }).optional() }), ["tiers"]); // ["regular"]
 */
export function fieldsAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] | undefined {
  let at: z.ZodType | undefined = schema;
  let i = 0;
  while (at !== undefined) {
    const def = at._zod.def as unknown as Record<string, unknown> & { type: string };
    if (WRAPPERS.has(def.type)) at = def.innerType as z.ZodType;
    else if (def.type === "pipe") at = def.in as z.ZodType;
    else if (def.type === "lazy") at = (def.getter as () => z.ZodType)();
    else if (def.type === "object") {
      const shape = def.shape as Record<string, z.ZodType>;
      if (i === path.length) return Object.keys(shape);
      const key = path[i++];
      at = typeof key === "string" && Object.hasOwn(shape, key) ? shape[key] : undefined;
    } else if (def.type === "array" && i < path.length && typeof path[i] === "number") {
      i++;
      at = def.element as z.ZodType;
    } else return undefined;
  }
  return undefined;
}

/**
 * Convert a zod error into gasdigest's issue list (unknown keys get one issue each, each with
 * zod's `code`: `unrecognized_keys`, `invalid_type`, `too_small`, `custom`, ...), at most
 * `max` issues plus one `too_many_issues` issue counting the rest. A custom issue carrying
 * `params.more` (see {@link moreParams}) counts for that many problems. Given the `schema` that
 * made the error, an unknown key that is likely a typo of a field names it (`unknown field
 * (did you mean probability?)`).
 */
export function issuesFromZod(
  error: z.ZodError,
  prefix: readonly PropertyKey[] = [],
  max = MAX_ISSUES,
  schema?: z.ZodType,
): ValidationIssue[] {
  const list = createIssueList(max);
  // Two checks may say the same of one field (an integer beyond 2^53 - 1 is too big for the
  // integer type and for the range): the first says it.
  const said = new Set<string>();
  // An integer beyond 2^53 - 1 is also out of the integer type's own range, whose bound (2^53 - 1)
  // is no option's: where the field's range says it too, the type's bound is not said.
  const sizeKey = (issue: z.core.$ZodIssue) =>
    `${issue.path.map(String).join("\n")}\n${issue.code}`;
  const ranged = new Set<string>();
  for (const issue of error.issues)
    if ((issue.code === "too_big" || issue.code === "too_small") && !typeBound(issue))
      ranged.add(sizeKey(issue));
  for (const issue of error.issues) {
    if (typeBound(issue) && ranged.has(sizeKey(issue))) continue;
    if (issue.code === "unrecognized_keys") {
      const fields = schema ? fieldsAt(schema, issue.path) : undefined;
      const at = formatPath([...prefix, ...issue.path]);
      for (const key of issue.keys) list.report(() => unknownFieldIssue(key, fields ?? [], at));
      continue;
    }
    const more =
      issue.code === "custom" ? (issue.params as { more?: unknown } | undefined)?.more : undefined;
    if (typeof more === "number") {
      list.add([moreIssues(more)]);
      continue;
    }
    if (list.full) {
      list.report(() => ({ path: "", message: "" })); // counted only
      continue;
    }
    let message = issue.message;
    if (issue.code === "invalid_type" && /received undefined$/.test(message)) message = "required";
    const path = formatPath([...prefix, ...issue.path]);
    const key = `${path}\n${message}`;
    if (said.has(key)) continue;
    said.add(key);
    list.report(() => ({ path, message, code: issue.code }));
  }
  return list.issues();
}

/** Whether a size issue is the integer type's own bound (±(2^53 - 1)), not a field's range. */
function typeBound(issue: z.core.$ZodIssue): boolean {
  if (issue.code === "too_big") return Number(issue.maximum) === Number.MAX_SAFE_INTEGER;
  if (issue.code === "too_small") return Number(issue.minimum) === Number.MIN_SAFE_INTEGER;
  return false;
}
