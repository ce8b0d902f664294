import * as z from "zod";
import {
  createDocument,
  type ZodOpenApiContentObject,
  type ZodOpenApiResponseObject,
} from "zod-openapi";
import { InvalidConfigError } from "../core/errors.js";
import { openOptions, unknownFieldIssues } from "../core/readOptions.js";
import { VERSION } from "../core/version.js";
import { refusalsOf } from "./errorMessages.js";
import { type HandlerOptions, safeParseHandlerOptions } from "./handlerOptions.js";
import { chainHeaders, errorResponses } from "./openApiResponses.js";
import {
  gasEstimationSchema,
  healthCheckSuccessSchema,
  ledgerInfoSchema,
  WIRE_COMPONENTS,
} from "./wireSchemas.js";

/**
 * An OpenAPI 3.1 document as plain JSON data: the fields gasdigest writes are named, the rest
 * is open (gasdigest's own type, so a declaration that infers it names no dependency's file).
 */
export interface OpenApiDocument {
  /** The OpenAPI version: `3.1.0`. */
  readonly openapi: string;
  /** The API's title, version and description. */
  readonly info: OpenApiInfo;
  /** Where the routes are served: one server, the handler's base path. */
  readonly servers?: readonly OpenApiServer[];
  /** The routes, by path under the server (`/estimate_gas_price`, `/-/healthy`, ...). */
  readonly paths: Readonly<Record<string, OpenApiPathItem>>;
  /** Schemas and other parts the routes refer to. */
  readonly components?: Readonly<Record<string, unknown>>;
  /** Any other field of the document. */
  readonly [field: string]: unknown;
}

/** One route of an {@link OpenApiDocument}: its operations by method (every route has `get`). */
export interface OpenApiPathItem {
  /** The route's `GET`. */
  readonly get?: OpenApiOperation;
  /** Any other field of the route. */
  readonly [field: string]: unknown;
}

/** One operation of an {@link OpenApiPathItem}. */
export interface OpenApiOperation {
  /** The operation's id (`estimate_gas_price`). */
  readonly operationId?: string;
  /** One line on what it does. */
  readonly summary?: string;
  /** Any other field of the operation. */
  readonly [field: string]: unknown;
}

/** The `info` of an {@link OpenApiDocument}. */
export interface OpenApiInfo {
  /** The API's name. */
  readonly title: string;
  /** The version of gasdigest that wrote the document. */
  readonly version: string;
  /** What the API is. */
  readonly description?: string;
  /** Any other field of `info`. */
  readonly [field: string]: unknown;
}

/** A server of an {@link OpenApiDocument}. */
export interface OpenApiServer {
  /** The base path the routes are served under (`/v1`). */
  readonly url: string;
  /** Any other field of the server. */
  readonly [field: string]: unknown;
}

/** The keys of {@link CreateOpenApiDocumentOptions} that are handler options. */
const HANDLER_KEYS = [
  "basePath",
  "headerPrefix",
  "bcsLayout",
  "jsonOutput",
  "bcsOutput",
  "estimateEnabled",
  "maxStalenessMs",
] as const;

/** The options, with the handler's own rules for those it shares with it; nothing else. */
function checkDocumentOptions(options: unknown) {
  const opened = openOptions(options);
  if (opened.issue) throw new InvalidConfigError([opened.issue]);
  const { explorer = true, ...given } = opened.value;
  const known = [...HANDLER_KEYS, "explorer"];
  const issues = unknownFieldIssues(given, known, "", `takes ${known.join(", ")}`);
  const shared: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(given)) if (known.includes(k)) shared[k] = v;
  if (typeof explorer !== "boolean")
    issues.push({ path: "explorer", message: "must be true or false" });
  const checked = safeParseHandlerOptions(shared);
  if (!checked.ok) issues.push(...checked.issues);
  if (!checked.ok || issues.length > 0) throw new InvalidConfigError(issues);
  return { ...checked.value, explorer: explorer as boolean };
}

/** Options of {@link createOpenApiDocument}. */
export interface CreateOpenApiDocumentOptions {
  /** Normalized base path (`""` for the root); becomes `servers[0].url`. @default "/v1" */
  basePath?: string | undefined;
  /** Prefix of the chain-state headers. @default "X-Aptos-" */
  headerPrefix?: string | undefined;
  /** The BCS layout of the estimate, as the handler's option. @default "full" */
  bcsLayout?: HandlerOptions["bcsLayout"] | undefined;
  /** Whether the estimate is served as JSON, as the handler's option. @default true */
  jsonOutput?: boolean | undefined;
  /** Whether the estimate is served as BCS, as the handler's option. @default true */
  bcsOutput?: boolean | undefined;
  /** Whether the estimate route is enabled, as the handler's option: without it, it answers only 403. @default true */
  estimateEnabled?: boolean | undefined;
  /** The staleness bound (ms), as the handler's option: the example of a stale 503 names it; `false` shows none. @default 30000 */
  maxStalenessMs?: number | false | undefined;
  /** Whether the explorer page (`/spec`) is served: without it, the page is not listed. @default true */
  explorer?: boolean | undefined;
}

/**
 * The OpenAPI 3.1 document of the served interface, built from the zod schemas of the wire
 * objects. Paths are relative to `servers[0].url` (the base path).
 *
 * @throws {InvalidConfigError} when `basePath` or `headerPrefix` breaks the handler's rules for
 * them, or another key is given (every problem named).
 * @example
 * const doc = createOpenApiDocument({ basePath: "/v1", headerPrefix: "X-Aptos-" });
 * doc.paths["/estimate_gas_price"]?.get?.operationId; // "estimate_gas_price"
 */
export function createOpenApiDocument(options: CreateOpenApiDocumentOptions = {}): OpenApiDocument {
  const {
    basePath,
    headerPrefix: prefix,
    bcsLayout,
    jsonOutput,
    bcsOutput,
    estimateEnabled,
    maxStalenessMs,
    explorer,
  } = checkDocumentOptions(options);
  // The estimate answers 200 only when it is enabled in some format.
  const served = estimateEnabled && (jsonOutput || bcsOutput);
  const bcs =
    bcsLayout === "full"
      ? "BCS (`Option<u64>, u64, Option<u64>`)"
      : "BCS (`u64`: the regular estimate alone, 8 bytes)";
  const formats = [
    jsonOutput ? "JSON by default" : "",
    bcsOutput ? `${bcs} when \`Accept\` prefers \`application/x-bcs\`` : "",
  ].filter(Boolean);
  const estimateContent: ZodOpenApiContentObject = {};
  if (jsonOutput) estimateContent["application/json"] = { schema: gasEstimationSchema };
  if (bcsOutput)
    estimateContent["application/x-bcs"] = { schema: { type: "string", format: "binary" } };
  const errors = errorResponses(prefix, {
    refusals: refusalsOf({ estimateEnabled, jsonOutput, bcsOutput }),
    maxStalenessMs,
  });
  const { 400: e400, 404: e404, 405: e405, 500: e500, 503: e503 } = errors;
  // The explorer and the document carry an ETag: a GET or HEAD whose If-None-Match holds it is
  // answered 304 with no body.
  const notModified = {
    304: {
      description: "Not modified: the `If-None-Match` header holds this answer's `ETag`; no body.",
    },
  };
  // Asked for through an encoded slash, the page and the documents (which name URLs relative to
  // their own) answer 301 to the route's own spelling.
  const moved = {
    301: {
      description:
        "Asked for with an encoded slash (`%2F`), against which the URLs this answer names would resolve elsewhere: `Location` is the route's own spelling, relative to the request.",
      headers: z.object({
        Location: z.string().meta({ description: "The route's own spelling, relative." }),
      }),
      content: { "text/plain": { schema: { type: "string" } } },
    },
  } satisfies Record<number, ZodOpenApiResponseObject>;
  const { GasEstimation: _, ...withoutEstimate } = WIRE_COMPONENTS;
  const document = createDocument({
    openapi: "3.1.0",
    info: {
      title: "gasdigest",
      version: VERSION,
      description:
        "Gas unit price estimates served over the node REST interface (wire-compatible with `GET /v1/estimate_gas_price` of an Aptos node).",
    },
    servers: [{ url: basePath === "" ? "/" : basePath }],
    // The estimate's schema only where a route answers with it (served, JSON output on).
    components: { schemas: served && jsonOutput ? WIRE_COMPONENTS : withoutEstimate },
    tags: [
      { name: "Transactions", description: "Gas estimation." },
      { name: "General", description: "Ledger info, health check and this document." },
    ],
    paths: {
      "/estimate_gas_price": {
        get: {
          operationId: "estimate_gas_price",
          tags: ["Transactions"],
          summary: "Estimate gas price",
          description: `Three gas unit price estimates from the recent blocks. ${served ? `${formats.join("; ")}.` : "Disabled on this server: every request is refused with 403 `api_disabled`."} Computed once per block, never per request.`,
          responses: {
            ...(served
              ? {
                  200: {
                    description:
                      "The estimate, with the chain state of the newest block in the headers.",
                    headers: chainHeaders(prefix, true),
                    content: estimateContent,
                  },
                }
              : {}),
            ...errors,
          },
        },
      },
      "/spec": {
        get: {
          operationId: "spec",
          tags: ["General"],
          summary: "Show OpenAPI explorer",
          description:
            "This interactive explorer (served entirely by this server). The document itself is at `spec.json` and `spec.yaml`.",
          responses: {
            200: {
              description: "The explorer page.",
              content: { "text/html": { schema: { type: "string" } } },
            },
            ...moved,
            ...notModified,
            400: e400,
            404: e404,
            405: e405,
          },
        },
      },
      "/spec.json": {
        get: {
          operationId: "spec_json",
          tags: ["General"],
          summary: "Get this document as JSON",
          description: "This OpenAPI document.",
          responses: {
            200: {
              description: "The document.",
              content: { "application/json": { schema: { type: "object" } } },
            },
            ...moved,
            ...notModified,
            400: e400,
            404: e404,
            405: e405,
          },
        },
      },
      "/spec.yaml": {
        get: {
          operationId: "spec_yaml",
          tags: ["General"],
          summary: "Get this document as YAML",
          description: "This OpenAPI document, as YAML.",
          responses: {
            200: {
              description: "The document.",
              content: { "application/x-yaml": { schema: { type: "string" } } },
            },
            ...moved,
            ...notModified,
            400: e400,
            404: e404,
            405: e405,
          },
        },
      },
      "/": {
        get: {
          operationId: "get_ledger_info",
          tags: ["General"],
          summary: "Get ledger info",
          description: "The chain state as of the newest block (u64 values as decimal strings).",
          responses: {
            200: {
              description: "Ledger info.",
              headers: chainHeaders(prefix, true),
              content: { "application/json": { schema: ledgerInfoSchema } },
            },
            400: e400,
            404: e404,
            405: e405,
            500: e500,
            503: e503,
          },
        },
      },
      "/-/healthy": {
        get: {
          operationId: "healthy",
          tags: ["General"],
          summary: "Check basic node health",
          description:
            "200 when the newest block is fresh and the estimator works on it (whether or not the estimate route is enabled). 503 `internal_error` before the first block; 503 `health_check_failed` when the newest block arrived longer ago than the staleness bound, when the estimator failed on the newest block (the estimate answers 500), or, with `duration_secs`, when the newest block's timestamp is more than that many seconds behind the wall clock.",
          requestParams: {
            query: z.object({
              duration_secs: z.int().min(0).max(4294967295).optional().meta({
                description:
                  "Largest accepted lag (seconds) of the newest block's timestamp behind the wall clock.",
                format: "uint32",
              }),
            }),
          },
          responses: {
            200: {
              description: "Healthy.",
              headers: chainHeaders(prefix, true),
              content: { "application/json": { schema: healthCheckSuccessSchema } },
            },
            400: e400,
            404: e404,
            405: e405,
            500: e500,
            503: e503,
          },
        },
      },
    },
  });
  // Without the explorer's files the page answers 404: it is not a route of this server.
  if (!explorer) delete document.paths?.["/spec"];
  return document as OpenApiDocument;
}
