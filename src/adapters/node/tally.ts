/**
 * Add `by` to the count of `key` and return the new count; a count that reaches 0 is removed,
 * so the map holds only keys still counted (its size is their number).
 *
 * @example
 * const open = new Map<string, number>();
 * tally(open, "10.0.0.7", 1); // 1
 * tally(open, "10.0.0.7", -1); // 0, and open.size is 0 again
 */
export function tally(counts: Map<string, number>, key: string, by: 1 | -1): number {
  const n = (counts.get(key) ?? 0) + by;
  if (n <= 0) counts.delete(key);
  else counts.set(key, n);
  return n;
}
