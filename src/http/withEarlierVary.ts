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
  const merged = mergedList(ours, earlier);
  if (merged === undefined) return headers;
  // "*" (varies on anything) makes every other name moot (RFC 9110 §12.5.5).
  const vary = merged.some((name) => name === "*") ? "*" : merged.join(", ");
  return vary === ours ? headers : { ...headers, Vary: vary };
}

/** Headers whose value is a list of names that an adapter adds to, rather than replaces. */
const LIST_HEADERS = ["Vary", "Access-Control-Expose-Headers"] as const;

/**
 * `headers` (an answer's) with what the host's response already holds (read by `earlier`, called
 * with a header name) kept in its list-valued headers: `Vary` ({@link withEarlierVary}) and
 * `Access-Control-Expose-Headers`, whose names an application's CORS middleware set before ours
 * ran (`cors({ exposedHeaders: ["X-Request-Id"] })`): replaced by ours, a browser page could no
 * longer read those headers on our answers. `earlier` is called only for the headers the answer
 * has. `headers` itself when there is nothing to add.
 *
 * @example
 * withEarlierLists({ "Access-Control-Expose-Headers": "X-Aptos-Epoch" }, () => "X-Request-Id");
 * // { "Access-Control-Expose-Headers": "X-Aptos-Epoch, X-Request-Id" }
 */
export function withEarlierLists(
  headers: Readonly<Record<string, string>>,
  earlier: (name: (typeof LIST_HEADERS)[number]) => unknown,
): Readonly<Record<string, string>> {
  let out = headers;
  for (const name of LIST_HEADERS) {
    const ours = headers[name];
    if (ours === undefined) continue;
    if (name === "Vary") {
      out = withEarlierVary(out, earlier(name));
      continue;
    }
    const merged = mergedList(ours, earlier(name));
    if (merged !== undefined) out = { ...out, [name]: merged.join(", ") };
  }
  return out;
}

/**
 * The names of `ours` (a header's list) followed by those of `earlier` it lacks, compared
 * without case; `undefined` when `earlier` adds none (or is no list: node's getHeader returns a
 * string, an array when set as one, or a number).
 */
function mergedList(ours: string, earlier: unknown): string[] | undefined {
  const given = Array.isArray(earlier) ? earlier.join(",") : earlier;
  if (typeof given !== "string" || given.trim() === "") return undefined;
  const names = ours.split(",").map((name) => name.trim());
  const known = new Set(names.map((name) => name.toLowerCase()));
  let added = false;
  for (const raw of given.split(",")) {
    const name = raw.trim();
    if (name === "" || known.has(name.toLowerCase())) continue;
    known.add(name.toLowerCase());
    names.push(name);
    added = true;
  }
  return added ? names : undefined;
}
