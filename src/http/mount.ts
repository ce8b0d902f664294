import { describeValue } from "../core/describeValue.js";
import { InvalidConfigError, type ValidationIssue } from "../core/errors.js";
import { openOptions, suggestOuterFields } from "../core/readOptions.js";
import { type HandlerOptions, safeParseHandlerOptions } from "./handlerOptions.js";

/**
 * Split an adapter's `prefix` from the handler options and validate both, listing every issue
 * (`prefix` follows the same rules as `basePath`). Returns the normalised prefix (`""` for the
 * root) and the handler options to pass on. `null` reads as no options. An unknown field is
 * named with the handler's, `prefix` or the adapter's own option (`outer`) it likely meant.
 *
 * @throws {InvalidConfigError} listing every invalid option.
 */
export function splitMountOptions<T extends HandlerOptions & { prefix?: string }>(
  options: T | null | undefined,
  extraIssues: ValidationIssue[] = [],
  outer: readonly string[] = [],
): { prefix: string; handlerOptions: Omit<T, "prefix"> | undefined } {
  if ((options === undefined || options === null) && extraIssues.length === 0)
    return { prefix: "", handlerOptions: undefined };
  const opened = openOptions(options);
  if (opened.issue) throw new InvalidConfigError([...extraIssues, opened.issue]);
  const { prefix: given, ...rest } = opened.value as T;
  const issues: ValidationIssue[] = [];
  let prefix = "";
  if (given !== undefined) {
    const p = safeParseHandlerOptions({ basePath: given });
    if (p.ok) prefix = p.value.basePath;
    else issues.push(...p.issues.map((i) => ({ ...i, path: "prefix" })));
  }
  issues.push(...extraIssues);
  const h = safeParseHandlerOptions(rest);
  if (!h.ok) issues.push(...suggestOuterFields(h.issues, ["prefix", ...outer]));
  if (issues.length > 0) throw new InvalidConfigError(issues);
  return { prefix, handlerOptions: rest };
}

/**
 * `url` (path and query) relative to `prefix`, or `undefined` when it lies outside it
 * (`/chain` holds `/chain`, `/chain/...` and `/chain?...`, not `/chainx`).
 */
export function stripPrefix(target: string, prefix: string): string | undefined {
  if (prefix === "") return target;
  // An absolute-form target (`http://host/chain/v1/...`) lies where its path does.
  const given = target.charCodeAt(0) === 47 ? target : originForm(target);
  if (given === undefined) return undefined;
  // Dot segments are resolved first, as a fetch host's URL parser does (removeDotSegments).
  const q = given.indexOf("?");
  const url =
    q === -1 ? removeDotSegments(given) : removeDotSegments(given.slice(0, q)) + given.slice(q);
  if (!url.startsWith(prefix)) return undefined;
  const after = url.charCodeAt(prefix.length);
  if (!(Number.isNaN(after) || after === 47 /* / */ || after === 63) /* ? */) return undefined;
  const rest = url.slice(prefix.length);
  return rest === "" || rest.charCodeAt(0) === 63 ? `/${rest}` : rest;
}

/**
 * A mount path no request target can hold (a space is not allowed in one): what a target
 * relative to an unknown mount path is resolved under, by {@link withinMount}.
 */
const SOME_MOUNT = "/ mount";

/**
 * `target`, a request target the host already made relative to where an adapter is mounted
 * (Express and Connect take the mount path off `req.url` before any dot segment is resolved),
 * with its dot segments resolved inside the mount, or `undefined` when they climb out of it:
 * `/v1/../../v1/x` under `/chain` is `/v1/x` beside the mount, the application's, not the
 * adapter's. Works on whatever the host left in `req.url`, rewrites included.
 *
 * @example
 * withinMount("/v1/x/../estimate_gas_price"); // "/v1/estimate_gas_price"
 * withinMount("/v1/../../v1/estimate_gas_price"); // undefined
 */
export function withinMount(target: string): string | undefined {
  const path = target.charCodeAt(0) === 47 ? target : originForm(target);
  if (path === undefined) return target;
  return stripPrefix(SOME_MOUNT + path, SOME_MOUNT);
}

/**
 * Validate an adapter's `closeEngine` option: `undefined` means the default (`true`); anything
 * but a boolean adds an issue to `issues` (and the default is returned).
 *
 * @example
 * const issues: ValidationIssue[] = [];
 * parseCloseEngine(false, issues); // false
 * parseCloseEngine("yes", issues); // true, and issues names "closeEngine"
 */
export function parseCloseEngine(value: unknown, issues: ValidationIssue[]): boolean {
  if (value === undefined) return true;
  if (typeof value === "boolean") return value;
  issues.push({
    path: "closeEngine",
    message: `must be true or false (got ${describeValue(value)})`,
  });
  return true;
}

/**
 * The path and query of an absolute-form request target (`http://host/v1/x?y` -> `/v1/x?y`),
 * or `undefined` when `url` is not one.
 *
 * @example
 * originForm("http://h/v1?x=1"); // "/v1?x=1"
 */
export function originForm(url: string): string | undefined {
  const m = /^https?:\/\/[^/?#]*/i.exec(url);
  if (!m) return undefined;
  const rest = url.slice(m[0].length) || "/";
  return rest.charCodeAt(0) === 63 ? `/${rest}` : rest;
}

/** A target path that may hold a dot segment (`.`, `..`, `%2e` in any case) or a backslash. */
const MAY_HAVE_DOTS = /\\|\/(?:\.|%2e)/i;
/** Whether `path` may hold a dot segment or a backslash ({@link removeDotSegments} may change it). */
export const mayHaveDotSegments = (path: string): boolean => MAY_HAVE_DOTS.test(path);
const SINGLE_DOT = /^(?:\.|%2e)$/i;
const DOUBLE_DOT = /^(?:\.|%2e){2}$/i;

/**
 * The path of a request target (origin form, no query) with its dot segments removed as a URL
 * parser does it (the WHATWG URL standard, which every fetch host applies before an adapter
 * sees the request): `\` is a `/`, a segment `.` or `..` (also spelt `%2e`, any case) is
 * dropped or drops the one before it, never above the root, and one that ends the path leaves
 * its trailing slash. So every host routes `/v1/./estimate_gas_price`, `/v1/x/../estimate_gas_price`
 * and `/v1/estimate_gas_price` alike. A path without either is returned as it is.
 *
 * @example
 * removeDotSegments("/v1/x/%2E%2e/estimate_gas_price"); // "/v1/estimate_gas_price"
 * removeDotSegments("/v1/estimate_gas_price/.."); // "/v1/"
 */
export function removeDotSegments(path: string): string {
  if (!mayHaveDotSegments(path)) return path;
  const segments = path.replaceAll("\\", "/").split("/");
  const out: string[] = [];
  // segments[0] is what precedes the leading "/": empty.
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i]!;
    const last = i === segments.length - 1;
    if (DOUBLE_DOT.test(segment)) {
      out.pop();
      if (last) out.push("");
    } else if (SINGLE_DOT.test(segment)) {
      if (last) out.push("");
    } else out.push(segment);
  }
  return `/${out.join("/")}`;
}
