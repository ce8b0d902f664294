import type { z } from "zod";
import type { ValidationIssue } from "./errors.js";

/** Render a zod path as `a.b[3].c`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

/** Convert a zod error into gasdigest's issue list (unknown keys get one issue each). */
export function issuesFromZod(
  error: z.ZodError,
  prefix: readonly PropertyKey[] = [],
): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const issue of error.issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys)
        out.push({ path: formatPath([...path, key]), message: "unknown field" });
      continue;
    }
    let message = issue.message;
    if (issue.code === "invalid_type" && /received undefined$/.test(message)) message = "required";
    out.push({ path: formatPath(path), message });
  }
  return out;
}
