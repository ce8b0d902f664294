import * as z from "zod";
import { capIssues } from "./createIssueList.js";
import { describeValue } from "./describeValue.js";
import { InvalidConfigError, type ValidationIssue } from "./errors.js";
import { formatPath, unreadableOptions } from "./readOptions.js";
import { issuesFromZod } from "./zodIssues.js";

/**
 * Validate each field on its own, then the cross-field rules (which also get the raw input);
 * returns the issues found, at most 20 plus a count of the rest (or the one field whose reading
 * threw: a getter or a proxy trap). Every options type is such a
 * shape: its TypeScript types are `z.input`/`z.output` of `z.strictObject(shape)`.
 *
 * @example
 * const r = validateShape({ n: z.int().default(1) }, { n: 2 }, () => []);
 * if (r.ok) r.value.n; // 2
 */
export function validateShape<S extends z.ZodRawShape>(
  shape: S,
  input: unknown,
  crossCheck: (fields: Partial<Record<keyof S, unknown>>, input: unknown) => ValidationIssue[],
  prefix: readonly PropertyKey[] = [],
  root = "options",
): { ok: true; value: z.output<z.ZodObject<S>> } | { ok: false; issues: ValidationIssue[] } {
  // A getter or proxy trap that throws is named as an issue, before zod reads the input.
  const unreadable = unreadableOptions(input, prefix);
  if (unreadable) return { ok: false, issues: [unreadable] };
  // Options that are not an object (null and undefined read as the defaults) are one issue
  // that names them, not zod's bare "expected object", and no cross-check runs on nothing.
  if (input !== undefined && input !== null && (typeof input !== "object" || Array.isArray(input)))
    return {
      ok: false,
      issues: [
        {
          path: prefix.length > 0 ? formatPath(prefix) : root,
          message: `must be an object (got ${describeValue(input)})`,
          code: "invalid_type",
        },
      ],
    };
  const schema = z.strictObject(shape);
  const r = schema.safeParse(input ?? {});
  const issues = r.success ? [] : issuesFromZod(r.error, prefix, undefined, schema);
  const fields: Partial<Record<keyof S, unknown>> = {};
  if (r.success) Object.assign(fields, r.data);
  else if (typeof input === "object" && input !== null) {
    for (const key of Object.keys(shape) as (keyof S)[]) {
      const f = (shape[key] as z.ZodType).safeParse(
        (input as Record<string, unknown>)[key as string],
      );
      if (f.success) fields[key] = f.data;
    }
  }
  for (const issue of crossCheck(fields, input ?? {}))
    issues.push(
      // A summary is kept as it is: it counts for the issues it stands for.
      issue.code === "too_many_issues"
        ? issue
        : { ...issue, path: [...prefix.map(String), issue.path].filter(Boolean).join(".") },
    );
  if (issues.length > 0 || !r.success) return { ok: false, issues: capIssues(issues) };
  return { ok: true, value: r.data as z.output<z.ZodObject<S>> };
}

/**
 * {@link validateShape} for a function whose positional argument (a URL, a path) is checked by
 * `checkArgument`, which throws {@link InvalidConfigError}: the argument's problems and the
 * options' are thrown together, the argument's first, so one call shows every problem.
 *
 * @throws {InvalidConfigError} listing them.
 * @example
 * const { argument, value } = validateWithArgument(() => parseNodeUrl(url), shape, options, () => []);
 */
export function validateWithArgument<T, S extends z.ZodRawShape>(
  checkArgument: () => T,
  shape: S,
  options: unknown,
  crossCheck: (fields: Partial<Record<keyof S, unknown>>, input: unknown) => ValidationIssue[],
): { argument: T; value: z.output<z.ZodObject<S>> } {
  let argument: { value: T } | undefined;
  let argumentIssues: readonly ValidationIssue[] = [];
  try {
    argument = { value: checkArgument() };
  } catch (e) {
    if (!(e instanceof InvalidConfigError)) throw e;
    argumentIssues = e.issues;
  }
  const r = validateShape(shape, options, crossCheck);
  if (!r.ok || !argument)
    throw new InvalidConfigError(capIssues([...argumentIssues, ...(r.ok ? [] : r.issues)]));
  return { argument: argument.value, value: r.value };
}
