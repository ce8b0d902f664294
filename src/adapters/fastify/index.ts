import type {
  FastifyError,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
} from "fastify";
import fp from "fastify-plugin";
import {
  createNodeHandler,
  type HandlerEngine,
  type HandlerOptions,
  type HandlerResponse,
  InvalidConfigError,
  openOptions,
  parseCloseEngine,
  splitMountOptions,
  stripPrefix,
  type ValidationIssue,
  withEarlierLists,
} from "../../http/index.js";

// The type of `gasdigest` below, named here so a consumer whose package manager does not hoist
// fastify (pnpm, npm's linked installs) can emit declarations for a value of it (TS2742
// otherwise), as the root entry does for rxjs's types.
export type { FastifyPluginAsync } from "fastify";

/** Options of the Fastify {@link gasdigest} plugin: the engine, every handler option, and these. */
export interface FastifyGasdigestOptions extends HandlerOptions {
  /** The engine to serve (from `createEngine`). */
  engine: HandlerEngine;
  /**
   * Path to serve under, as for any Fastify plugin: `"/chain"` serves `/chain/v1/...`. Without
   * `| undefined`, unlike the other options: Fastify's own `RegisterOptions` declares `prefix?:
   * string`, and under `exactOptionalPropertyTypes` a wider type here would make an object of
   * this type unfit for `app.register(gasdigest, options)`. @default ""
   */
  prefix?: string;
  /** Close the engine (unsubscribing its sources) when Fastify closes. @default true */
  closeEngine?: boolean | undefined;
  /** Name under which the engine decorates the Fastify instance; `false` for none. @default "gasdigest" */
  decorator?: string | false | undefined;
  /** Where errors and per-request debug lines go. @default fastify.log */
  logger?: HandlerOptions["logger"] | undefined;
}

declare module "fastify" {
  interface FastifyInstance {
    /**
     * The engine served by the gasdigest plugin, with the default `decorator` only: with
     * `decorator: false` or another name this is `undefined` at run time (docs/adapters.md).
     */
    gasdigest: HandlerEngine;
  }
}

/**
 * Fastify's own answers to requests it refuses before any handler runs, which the handler
 * answers instead (405 on a known path): a body whose `Content-Type` is not a media type
 * (Fastify's 415) and `QUERY` without a `Content-Type` (Fastify's 400).
 */
const REFUSED_BEFORE_HANDLER = new Set([
  "FST_ERR_CTP_INVALID_MEDIA_TYPE",
  "FST_ERR_ROUTE_MISSING_CONTENT_TYPE",
]);

/**
 * Fastify's router reads `:` (a parameter) and `*` (a wildcard) in a route as syntax, where
 * every other host serves a path holding them as it is: such a path would take requests outside
 * its base or never be reached, so the plugin refuses it (adds an issue per option to `issues`).
 */
function routerSyntaxIssues(options: Record<string, unknown>, issues: ValidationIssue[]) {
  for (const key of ["prefix", "basePath", "metricsPath"]) {
    const value = options[key];
    if (typeof value === "string" && /[:*]/.test(value))
      issues.push({
        path: key,
        message: `must not hold ":" or "*" under Fastify, whose router reads them as route syntax (got ${JSON.stringify(value)})`,
      });
  }
}

function parseOptions(given: FastifyGasdigestOptions | null, fastify: FastifyInstance) {
  const opened = openOptions(given);
  if (opened.issue) throw new InvalidConfigError([opened.issue]);
  const opts = opened.value as unknown as FastifyGasdigestOptions;
  const { engine, closeEngine: givenCloseEngine, decorator = "gasdigest", ...rest } = opts;
  const issues: ValidationIssue[] = [];
  const closeEngine = parseCloseEngine(givenCloseEngine, issues);
  if (decorator !== false && (typeof decorator !== "string" || decorator === ""))
    issues.push({
      path: "decorator",
      message: `must be a non-empty name or false (got ${JSON.stringify(decorator)})`,
    });
  routerSyntaxIssues(rest, issues);
  // `logger: undefined` is the default, as for every other option: Fastify's logger.
  const { prefix: mount, handlerOptions } = splitMountOptions(
    { ...rest, logger: rest.logger === undefined ? fastify.log : rest.logger },
    issues,
    ["engine", "closeEngine", "decorator"],
  );
  return { engine, mount, closeEngine, decorator, handlerOptions };
}

/**
 * Fastify plugin serving the gasdigest interface (see docs/http.md). Wrapped with
 * `fastify-plugin`, so the decorator and the `onClose` hook reach the application; the routes
 * live in their own encapsulated context under `prefix`, where request bodies are not parsed
 * (a POST answers 405, whatever its body), and where what Fastify would refuse itself (a
 * `Content-Type` that is not a media type, `QUERY` without one, under `basePath` the methods
 * Fastify does not route) gets the handler's answer. It answers its routes and every path under
 * its `basePath`; other paths stay Fastify's (with `basePath: ""`, its not-found handler).
 *
 * @throws {InvalidConfigError} listing every invalid option (when Fastify loads the plugin).
 * @example
 * import Fastify from "fastify";
 * import { gasdigest } from "gasdigest/fastify";
 * const app = Fastify();
 * await app.register(gasdigest, { engine, prefix: "/chain" }); // GET /chain/v1/estimate_gas_price
 * app.gasdigest.snapshot(); // the engine
 * await app.listen({ port: 8080 });
 */
export const gasdigest: FastifyPluginAsync<FastifyGasdigestOptions> = fp(
  async function gasdigest(fastify: FastifyInstance, opts: FastifyGasdigestOptions) {
    const { engine, mount, closeEngine, decorator, handlerOptions } = parseOptions(opts, fastify);
    const handler = createNodeHandler(engine, handlerOptions);
    const basePath = handler.options.basePath;
    if (decorator !== false) fastify.decorate(decorator, engine);
    if (closeEngine) fastify.addHook("onClose", async () => engine.close?.());

    await fastify.register(
      async function gasdigestRoutes(routes) {
        const at = routes.prefix;
        routes.removeAllContentTypeParsers();
        routes.addContentTypeParser("*", (_request, _payload, done) => done(null, undefined));
        const send = (reply: FastifyReply, res: HandlerResponse) => {
          // A Vary or Access-Control-Expose-Headers set by an earlier hook (@fastify/cors adds
          // Origin, and the headers it exposes) is kept.
          const earlier = withEarlierLists(res.headers, (name) => reply.getHeader(name));
          reply.code(res.status).headers(earlier);
          if (res.body === undefined) return reply.send();
          return reply.send(Buffer.from(res.body.buffer, res.body.byteOffset, res.body.byteLength));
        };
        const serve = (request: FastifyRequest, reply: FastifyReply) => {
          // Dot segments that lead out of the prefix (`/chain/v1/../../v1/...`, which Fastify's
          // router does not resolve) make the request the application's, as on other hosts.
          const url = stripPrefix(request.url, at);
          if (url === undefined || (basePath === "" && !handler.owns(url)))
            return reply.callNotFound();
          const res = handler.respond({ method: request.method, url, headers: request.headers });
          // Only the metrics scrape is asynchronous.
          return res instanceof Promise ? res.then((r) => send(reply, r)) : send(reply, res);
        };
        // Requests Fastify refuses before routing them to `serve` get the handler's answer
        // instead; every other error goes on to the application's error handler.
        routes.setErrorHandler((error: FastifyError, request, reply) => {
          if (!REFUSED_BEFORE_HANDLER.has(error.code)) throw error;
          const sent = serve(request, reply);
          return sent instanceof Promise ? sent.then(() => undefined) : undefined;
        });
        // Fastify routes only the methods it knows: the others (PURGE, LOCK, PROPFIND, ...) go
        // to the not-found handler, which is ours under the base path (Fastify lets a context
        // with its own prefix set one; with basePath "" that is the application's).
        if (basePath !== "")
          routes.register(
            async (base) => {
              base.setNotFoundHandler(serve);
            },
            { prefix: basePath },
          );
        const { metrics, metricsPath } = handler.options;
        const paths =
          basePath === "" ? ["/", "/*"] : [basePath, `${basePath}/*`, "/spec.json", "/spec.yaml"];
        if (basePath !== "" && metrics !== undefined && metricsPath !== false)
          paths.push(metricsPath);
        for (const path of paths) routes.all(path, serve);
      },
      { prefix: mount },
    );
  },
  { fastify: "5.x", name: "gasdigest" },
);
