/**
 * `headers` (an answer's) with the `Vary` that the host's response already holds added to its
 * own, for adapters that write into a response other middleware has touched first: `Vary` lists
 * what the answer depends on, so a middleware's (an application's CORS middleware adds `Origin`,
 * koa-compress `Accept-Encoding`, before ours runs) must not be replaced by ours, or a shared
 * cache serves one client's answer to another. `headers` itself when there is nothing to add.
 *
 * @example
 * withEarlierVary({ Vary: "Accept" }, "Origin"); // { Vary: "Accept, Origin" }
 * withEarlierVary({ Vary: "Accept" }, undefined); // the same object
 */
export function withEarlierVary(
  headers: Readonly<Record<string, string>>,
  earlier: unknown,
): Readonly<Record<string, string>> {
  const ours = headers.Vary;
  if (ours === undefined) return headers;
  const given = Array.isArray(earlier) ? earlier.join(",") : earlier;
  if (typeof given !== "string" || given.trim() === "") return headers;
  const names = ours.split(",").map((name) => name.trim());
  const known = new Set(names.map((name) => name.toLowerCase()));
  for (const raw of given.split(",")) {
    const name = raw.trim();
    if (name === "" || known.has(name.toLowerCase())) continue;
    known.add(name.toLowerCase());
    names.push(name);
  }
  // "*" (varies on anything) makes every other name moot (RFC 9110 §12.5.5).
  const vary = known.has("*") ? "*" : names.join(", ");
  return vary === ours ? headers : { ...headers, Vary: vary };
}
