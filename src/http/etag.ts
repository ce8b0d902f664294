/**
 * A strong entity tag for a body: its length and 32-bit FNV-1a hash, quoted.
 *
 * @example
 * etag(new TextEncoder().encode("hi")); // '"2-…"'
 */
export function etag(bytes: Uint8Array): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return `"${bytes.length.toString(16)}-${(h >>> 0).toString(16).padStart(8, "0")}"`;
}

/** Whether an `If-None-Match` header names `tag` (or is `*`). */
export function matchesEtag(
  ifNoneMatch: string | readonly string[] | undefined,
  tag: string,
): boolean {
  // Anything but a string or a list of them (a caller's own headers object, `null` as fetch's
  // `Headers.get` gives for a missing one) reads as no If-None-Match, as for `Accept`.
  if (typeof ifNoneMatch !== "string" && !Array.isArray(ifNoneMatch)) return false;
  const list = typeof ifNoneMatch === "string" ? ifNoneMatch : ifNoneMatch.join(",");
  for (const raw of list.split(",")) {
    const t = raw.trim();
    if (t === "*" || t === tag || t === `W/${tag}`) return true;
  }
  return false;
}
