import type { ValidationIssue } from "./errors.js";

/** Whether the caller set `key` (a default the schema filled in is not a choice to check). */
export function optionGiven(input: unknown, key: string): boolean {
  try {
    return (
      typeof input === "object" &&
      input !== null &&
      (input as Record<string, unknown>)[key] !== undefined
    );
  } catch {
    return false;
  }
}

/**
 * The backoff rule of every retrying source and sink: a first delay the caller chose may not
 * exceed the cap. A default first delay is not checked: it follows a smaller cap down
 * (`Math.min(initialBackoffMs, maxBackoffMs)` when the options are resolved), so
 * `{ maxBackoffMs: 50 }` alone is valid.
 *
 * @example
 * backoffIssues({ initialBackoffMs: 200, maxBackoffMs: 50 }, { maxBackoffMs: 50 }); // []
 * backoffIssues({ initialBackoffMs: 900, maxBackoffMs: 50 }, { initialBackoffMs: 900, maxBackoffMs: 50 }); // one issue
 */
export function backoffIssues(
  fields: { initialBackoffMs?: unknown; maxBackoffMs?: unknown },
  input: unknown,
): ValidationIssue[] {
  const initial = fields.initialBackoffMs as number | undefined;
  const max = fields.maxBackoffMs as number | undefined;
  if (
    initial === undefined ||
    max === undefined ||
    initial <= max ||
    !optionGiven(input, "initialBackoffMs")
  )
    return [];
  return [
    {
      path: "initialBackoffMs",
      message: `must not be above maxBackoffMs (${max}), got ${initial}`,
    },
  ];
}
