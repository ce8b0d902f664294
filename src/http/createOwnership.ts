import { mayHaveDotSegments, originForm, removeDotSegments } from "./mount.js";

/** Which request targets a handler answers: see {@link createOwnership}. */
export interface Ownership {
  /** Whether `target` names one of the routes (any method). */
  owns(target: string): boolean;
  /** Whether an adapter should let the handler answer `target`: a route, or under the base path. */
  claims(target: string): boolean;
}

/**
 * `owns` and `claims` of a handler, reading a target as its router does: an absolute-form
 * target (`http://host/v1/...`) by its path, the query dropped, dot segments removed
 * ({@link removeDotSegments}), the path percent-decoded. So
 * `http://host/v1/nope` and `/v1%2Fnope` are under `/v1` (the router answers them 404), and
 * an adapter passes neither to its host.
 *
 * @example
 * const { owns, claims } = createOwnership((path) => routes.has(path), "/v1");
 * claims("/v1%2Fnope"); // true: the handler answers it (404)
 */
export function createOwnership(isRoute: (path: string) => boolean, basePath: string): Ownership {
  const namespace = basePath === "" ? undefined : `${basePath}/`;

  /** The target's path as sent and decoded (`undefined` if malformed), or `undefined` for no target. */
  function targetPath(target: unknown): { raw: string; decoded: string | undefined } | undefined {
    if (typeof target !== "string") return undefined;
    const url = target.charCodeAt(0) === 47 ? target : originForm(target);
    if (url === undefined) return undefined;
    const q = url.indexOf("?");
    const raw = removeDotSegments(q === -1 ? url : url.slice(0, q));
    if (!raw.includes("%")) return { raw, decoded: raw };
    try {
      return { raw, decoded: decodeURIComponent(raw) };
    } catch {
      return { raw, decoded: undefined };
    }
  }

  function owns(target: string) {
    const path = targetPath(target)?.decoded;
    return path !== undefined && isRoute(path);
  }

  function claims(target: string) {
    // Under it as sent is under it decoded too (a base path holds no "%"): the usual case, first.
    if (
      namespace !== undefined &&
      typeof target === "string" &&
      target.startsWith(namespace) &&
      !mayHaveDotSegments(target)
    )
      return true;
    const path = targetPath(target);
    if (path === undefined) return false;
    if (path.decoded !== undefined && isRoute(path.decoded)) return true;
    // A malformed encoding under the base path is the router's too (it answers 400).
    return namespace !== undefined && (path.decoded ?? path.raw).startsWith(namespace);
  }

  return { owns, claims };
}
