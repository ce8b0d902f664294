/**
 * A source's or sink's event as plain JSON-safe log fields: fields left undefined are dropped,
 * u64 values become decimal strings and the `error` field becomes what `errorFields` makes of
 * it (loggers print an `Error` nested in an object as `{}`).
 *
 * @example
 * eventFields({ type: "pruned_skip", from: 1n, to: 5n }, describe); // { type: "pruned_skip", from: "1", to: "5" }
 */
export function eventFields<E>(
  event: object,
  errorFields: (error: E) => Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(event)) {
    if (value === undefined) continue;
    if (typeof value === "bigint") out[key] = value.toString();
    else if (key === "error") out.error = errorFields(value as E);
    else out[key] = value;
  }
  return out;
}
