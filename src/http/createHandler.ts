import { describeValue } from "../core/describeValue.js";
import { InvalidArgumentError, InvalidConfigError, type ValidationIssue } from "../core/errors.js";
import { hasMethods, unreadableIssue } from "../core/readOptions.js";
import { CHAIN_STATE_HEADERS } from "./chainStateHeaders.js";
import { createChainRoutes } from "./createChainRoutes.js";
import { createDocumentRoutes } from "./createDocumentRoutes.js";
import { createOwnership } from "./createOwnership.js";
import { createScrape } from "./createScrape.js";
import { EXPLORER_OFF_MESSAGE } from "./explorer.js";
import { type HandlerOptions, parseHandlerOptions, silentLogger } from "./handlerOptions.js";
import { originForm, removeDotSegments } from "./mount.js";
import { errorPair, pick, type Route, responsePair } from "./responses.js";
import {
  ERROR_CODES,
  type ErrorCode,
  type Handler,
  type HandlerEngine,
  type HandlerRequest,
  type HandlerResponse,
} from "./types.js";

const ALLOW = "GET, HEAD, OPTIONS";
/** The route label of a request that matched no route (paths always start with "/"). */
const UNMATCHED = "unmatched";
const ASYNC_SCRAPE =
  "the metrics route is answered asynchronously: call handler.respond(request) (adapters do)";
const TOKEN_LIST = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/;

/**
 * The framework-agnostic handler of the served interface (see docs/http.md): routes,
 * negotiation, chain-state headers, error objects, the OpenAPI document and the offline
 * explorer (given its files: option `explorerAssets`). Synchronous and socket-free, and free of
 * any runtime's own modules: adapters translate a host's request in and the response out.
 * Estimate bodies are encoded once per snapshot. With `metrics`, every request is recorded
 * (route, status, time to answer) and the scrape is served at `metricsPath` through
 * `handler.respond()`, the one answer that is asynchronous.
 *
 * @throws {InvalidConfigError} listing every invalid option. The handler itself throws
 * {@link InvalidArgumentError} when called with something that is not a request.
 * @example
 * const handler = createHandler(engine, { basePath: "/v1" });
 * const res = handler({ method: "GET", url: "/v1/estimate_gas_price", headers: {} });
 * res.status; // 200 (after the first block)
 */
export function createHandler(engine: HandlerEngine, options?: HandlerOptions): Handler {
  if (!hasMethods(engine, "snapshot"))
    throw new InvalidConfigError([
      { path: "engine", message: "must be an engine made by createEngine()" },
    ]);
  const o = parseHandlerOptions(options);
  const { basePath: bp, logger } = o;
  // Every answer's headers; the interface's also carry CORS (the metrics scrape does not).
  const plain = Object.freeze({ "X-Content-Type-Options": "nosniff" });
  const common: Record<string, string> = { ...plain };
  if (o.corsOrigin !== false) {
    common["Access-Control-Allow-Origin"] = o.corsOrigin;
    common["Access-Control-Expose-Headers"] = CHAIN_STATE_HEADERS.map(
      (h) => o.headerPrefix + h.name,
    ).join(", ");
    if (o.corsOrigin !== "*") common.Vary = "Origin";
  }
  Object.freeze(common);

  const { estimate, ledger, healthy, error: chainError } = createChainRoutes(engine, o, common);
  /** An error answer with the chain-state headers, or without them if the snapshot cannot be read. */
  const error: typeof chainError = (status, code, message, head) => {
    try {
      return chainError(status, code, message, head);
    } catch {
      return pick(errorPair(status, code, message, common), head === true);
    }
  };
  const routes = new Map<string, Route>([
    [`${bp}/estimate_gas_price`, estimate],
    [bp || "/", ledger],
    [`${bp}/`, ledger],
    [`${bp}/-/healthy`, healthy],
  ]);
  const { document, routes: documentRoutes } = createDocumentRoutes(o, common);
  for (const [path, route] of documentRoutes) routes.set(path, route);
  // No explorer files: the page names the option that turns it on (and where the document is),
  // whatever the method: it is not served, so no 405 or preflight may offer a GET of it.
  const explorerOff = o.explorerAssets === undefined ? `${bp}/spec` : undefined;
  if (explorerOff !== undefined)
    routes.set(explorerOff, (_request, head) =>
      error(404, "web_framework_error", EXPLORER_OFF_MESSAGE, head),
    );

  // The routes whose bodies name URLs relative to their own (the explorer page, the documents).
  const selfRelative = new Set([`${bp}/spec`, `${bp}/spec.json`, `${bp}/spec.yaml`]);
  /** A 301 to `location` (relative to the request's own URL). */
  const redirect = (location: string, head: boolean) =>
    pick(
      responsePair(301, { ...common, Location: location }, "text/plain; charset=utf-8", location),
      head,
    );

  // The metrics route answers a marker; respond() turns it into the (asynchronous) scrape.
  const metrics = o.metrics;
  const scrapeGet: HandlerResponse = Object.freeze({ status: 200, headers: {}, body: undefined });
  const scrapeHead: HandlerResponse = Object.freeze({ ...scrapeGet });
  if (metrics !== undefined && o.metricsPath !== false) {
    if (routes.has(o.metricsPath))
      throw new InvalidConfigError([
        {
          path: "metricsPath",
          message: `"${o.metricsPath}" is already a route of the handler${bp ? ` (its routes are under the base path "${bp}")` : ""}`,
        },
      ]);
    routes.set(o.metricsPath, (_request, head) => (head ? scrapeHead : scrapeGet));
  }
  // The route of the request being answered, for the metrics (requests are answered one at a time).
  let matched = UNMATCHED;
  if (metrics !== undefined)
    try {
      metrics.declareRoutes?.([...routes.keys(), UNMATCHED]);
    } catch {
      // ignored, as documented: the counters then start with the first request of a route
    }

  // The metrics route's own answers carry no CORS headers (see `scrape` below): no grant to a
  // page of another origin, not even in a preflight or a 405.
  const isScrapePath = (path: string) =>
    metrics !== undefined && o.metricsPath !== false && path === o.metricsPath;
  const plainError = (status: number, code: ErrorCode, message: string, head: boolean) =>
    pick(errorPair(status, code, message, plain), head);

  const preflight = (request: HandlerRequest, cors: boolean): HandlerResponse => {
    const headers: Record<string, string> = { ...(cors ? common : plain), Allow: ALLOW };
    if (cors && o.corsOrigin !== false) {
      headers["Access-Control-Allow-Methods"] = ALLOW;
      headers["Access-Control-Max-Age"] = "86400";
      const asked = request.headers["access-control-request-headers"];
      if (typeof asked === "string" && TOKEN_LIST.test(asked.trim())) {
        headers["Access-Control-Allow-Headers"] = asked.trim();
        headers.Vary = common.Vary
          ? "Origin, Access-Control-Request-Headers"
          : "Access-Control-Request-Headers";
      }
    }
    return { status: 204, headers, body: undefined };
  };

  function route(request: HandlerRequest): HandlerResponse {
    let url = request.url;
    const head = request.method === "HEAD";
    if (url.length > o.maxUrlLength)
      return error(
        400,
        "web_framework_error",
        `request URL is too long (over ${o.maxUrlLength} bytes)`,
        head,
      );
    // A fragment is never part of a request target (RFC 9112 §3.2): a client sent something else.
    if (url.includes("#")) return error(400, "web_framework_error", "invalid request target", head);
    if (url.charCodeAt(0) !== 47) {
      const origin = originForm(url);
      if (origin === undefined)
        return error(400, "web_framework_error", "invalid request target", head);
      url = origin;
    }
    const q = url.indexOf("?");
    const raw = removeDotSegments(q === -1 ? url : url.slice(0, q));
    let path = raw;
    const query = q === -1 ? "" : url.slice(q + 1);
    if (url.includes("%")) {
      try {
        path = decodeURIComponent(path);
        decodeURIComponent(query);
      } catch {
        return error(
          400,
          "web_framework_error",
          "malformed percent-encoding in the request URL",
          head,
        );
      }
    }
    const r = routes.get(path);
    if (r === undefined) return error(404, "web_framework_error", "not found", head);
    matched = path;
    if (path === explorerOff) return r(request, head, query);
    const method = request.method;
    if (method === "GET" || head) {
      // The page and the documents point at URLs relative to their own (assets, spec.json,
      // servers): asked for as `/v1%2Fspec`, a browser resolves those against `/`. Send it to
      // the spelling they resolve against, relative to the request so a mount prefix stays (no
      // query: none of these routes reads one).
      if (raw !== path && selfRelative.has(path)) {
        const cut = raw.lastIndexOf("/");
        const last = raw.slice(cut + 1);
        // Its characters are the route's, or escapes of them: safe in a header as they are.
        if (/%2f/i.test(last)) return redirect(`./${last.replace(/%2f/gi, "/")}`, head);
        // The documents' servers (`../v2` under `/chain/v2`) resolve against the parent of their
        // directory: asked for as `/chain%2Fv2/spec.json`, that parent is `/` and the routes
        // `/v2`. Send it up as many segments as it came down, then down the route's own path.
        const dir = raw.slice(0, cut);
        if (path !== `${bp}/spec` && /%2f/i.test(dir))
          return redirect(`${"../".repeat(dir.split("/").length - 1)}${path.slice(1)}`, head);
      }
      return r(request, head, query);
    }
    const scrapePath = isScrapePath(path);
    if (method === "OPTIONS") return preflight(request, !scrapePath);
    const res = (scrapePath ? plainError : error)(
      405,
      "web_framework_error",
      "method not allowed",
      false,
    );
    return Object.freeze({ ...res, headers: Object.freeze({ ...res.headers, Allow: ALLOW }) });
  }

  function answer(argument: HandlerRequest): HandlerResponse {
    const read = readRequest(argument);
    if (!read.ok) throw new InvalidArgumentError([read.issue]);
    const { request } = read;
    let res: HandlerResponse;
    try {
      res = route(request);
    } catch (err) {
      logger.error({ err, method: request.method, url: request.url }, "request failed");
      res = error(500, "internal_error", "internal error", request.method === "HEAD");
    }
    if (logger !== silentLogger && logger.isLevelEnabled?.("debug") !== false)
      logger.debug({ method: request.method, url: request.url, status: res.status }, "request");
    return res;
  }

  /** Record one answered request (a failing recorder never fails the request). */
  function record(route: string, status: number, startMs: number) {
    try {
      metrics!.observeRequest(route, status, (performance.now() - startMs) / 1000);
    } catch {
      // ignored, as documented
    }
  }

  // The scrape is for Prometheus, not for web pages: no CORS headers, so no page of another
  // origin can read the process's metrics (whatever corsOrigin allows for the interface).
  const scrape =
    metrics === undefined ? undefined : createScrape(metrics, logger, plain, plainError);

  // Without metrics, the handler is `answer` itself: nothing is added to the path of a request.
  const handler = (
    metrics === undefined
      ? answer
      : (request: HandlerRequest): HandlerResponse => {
          const start = performance.now();
          matched = UNMATCHED;
          let res = answer(request);
          if (res === scrapeGet || res === scrapeHead)
            res = error(404, "web_framework_error", ASYNC_SCRAPE, res === scrapeHead);
          record(matched, res.status, start);
          return res;
        }
  ) as Handler;

  // Without metrics, respond is `answer` too: adapters pay one `instanceof` check, nothing more.
  const respond: Handler["respond"] = metrics === undefined ? answer : respondMeasured;
  function respondMeasured(request: HandlerRequest): HandlerResponse | Promise<HandlerResponse> {
    const start = performance.now();
    matched = UNMATCHED;
    const res = answer(request);
    const route = matched;
    if (res !== scrapeGet && res !== scrapeHead) {
      record(route, res.status, start);
      return res;
    }
    return scrape!(res === scrapeHead).then((r) => {
      record(route, r.status, start);
      return r;
    });
  }
  const { owns, claims } = createOwnership((path) => routes.has(path), bp);
  return Object.assign(handler, {
    respond,
    owns,
    claims,
    errorResponse: (status: number, code: ErrorCode, message: string) => {
      const issues = errorResponseProblems(status, code, message);
      if (issues.length > 0) throw new InvalidArgumentError(issues);
      return error(status, code, message);
    },
    document,
    options: o,
  });
}

/** What is wrong with `errorResponse`'s arguments: an error status, a known code, a message. */
function errorResponseProblems(
  status: unknown,
  code: unknown,
  message: unknown,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (!(Number.isInteger(status) && (status as number) >= 400 && (status as number) <= 599))
    issues.push({
      path: "status",
      message: `must be an error status from 400 to 599 (got ${describeValue(status)})`,
    });
  if (!(ERROR_CODES as readonly unknown[]).includes(code))
    issues.push({
      path: "errorCode",
      message: `must be one of the node's error codes such as "internal_error" (got ${describeValue(code)})`,
    });
  if (typeof message !== "string")
    issues.push({ path: "message", message: `must be a string (got ${describeValue(message)})` });
  return issues;
}

/**
 * The handler argument as a {@link HandlerRequest} whose fields are read once (a getter is never
 * read again, so it cannot answer differently later), or why it is not one: not an object, no
 * string `method` and `url`, no `headers` object, or fields that throw when read.
 */
function readRequest(
  request: unknown,
): { ok: true; request: HandlerRequest } | { ok: false; issue: ValidationIssue } {
  if (typeof request !== "object" || request === null)
    return {
      ok: false,
      issue: {
        path: "request",
        message: `must be a request object { method, url, headers } (got ${describeValue(request)})`,
      },
    };
  let method: unknown;
  let url: unknown;
  let headers: unknown;
  try {
    ({ method, url, headers } = request as Partial<Record<keyof HandlerRequest, unknown>>);
  } catch (cause) {
    return {
      ok: false,
      issue: unreadableIssue("request", cause),
    };
  }
  if (typeof method !== "string")
    return {
      ok: false,
      issue: { path: "request.method", message: `must be a string (got ${describeValue(method)})` },
    };
  if (typeof url !== "string")
    return {
      ok: false,
      issue: { path: "request.url", message: `must be a string (got ${describeValue(url)})` },
    };
  if (typeof headers !== "object" || headers === null)
    return {
      ok: false,
      issue: {
        path: "request.headers",
        message: `must be an object of headers, names in lower case (got ${describeValue(headers)})`,
      },
    };
  return { ok: true, request: { method, url, headers: headers as HandlerRequest["headers"] } };
}
