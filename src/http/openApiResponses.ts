import * as z from "zod";
import type { ZodOpenApiResponseObject } from "zod-openapi";
import { CHAIN_STATE_HEADERS } from "./chainStateHeaders.js";
import { REFUSALS, staleMessage } from "./errorMessages.js";
import { errorObjectSchema } from "./wireSchemas.js";

/**
 * The chain-state headers under `prefix`, as an OpenAPI headers object: `required` on the
 * answers that always carry them (every 200), optional on errors (absent before the first block).
 *
 * @example
 * chainHeaders("X-Aptos-", true).shape["X-Aptos-Block-Height"]; // a required uint64 header
 */
export function chainHeaders(prefix: string, required: boolean) {
  const shape: Record<string, z.ZodType> = {};
  for (const h of CHAIN_STATE_HEADERS) {
    const schema =
      h.field === "chainId"
        ? z
            .int()
            .min(0)
            .max(255)
            .meta({ description: h.description, override: { type: "integer", format: "uint8" } })
        : z.bigint().meta({
            description: h.description,
            override: { type: "integer", format: "uint64", minimum: 0 },
          });
    shape[prefix + h.name] = required ? schema : schema.optional();
  }
  return z.object(shape);
}

/** An error object as the handler answers it, for a response's examples. */
const errorExample = (error_code: string, message: string) => ({
  value: { message, error_code, vm_error_code: null },
});

/**
 * An error response with its own examples (what the handler answers with that status: the
 * schema's one example is a 404's, and would show on every status).
 */
function errorResponse(
  id: string,
  description: string,
  prefix: string,
  examples: Record<string, { value: unknown }>,
  extra: Record<string, z.ZodType> = {},
) {
  return {
    id,
    description,
    headers: z.object({ ...chainHeaders(prefix, false).shape, ...extra }),
    content: { "application/json": { schema: errorObjectSchema, examples } },
  } satisfies ZodOpenApiResponseObject;
}

/**
 * The error responses the handler answers, each with its own examples, under the chain-state
 * header `prefix`: 400, 403 (its examples the `refusals` the estimate answers), 404, 405 (with
 * `Allow`), 500 and 503 (stale past `maxStalenessMs`, unless it is `false`).
 *
 * @example
 * errorResponses("X-Aptos-", { refusals: ["disabled"], maxStalenessMs: 30000 })[404].description; // "Unknown path: `web_framework_error`."
 */
export function errorResponses(
  prefix: string,
  answers: { refusals: readonly (keyof typeof REFUSALS)[]; maxStalenessMs: number | false },
) {
  const { refusals, maxStalenessMs } = answers;
  const allow = z
    .string()
    .meta({ description: "Methods the path accepts.", example: "GET, HEAD, OPTIONS" });
  return {
    400: errorResponse(
      "BadRequest",
      "The request line cannot be parsed (bad percent-encoding, over-long URL, bad query parameter): `web_framework_error`.",
      prefix,
      {
        badEncoding: errorExample(
          "web_framework_error",
          "malformed percent-encoding in the request URL",
        ),
      },
    ),
    403: errorResponse(
      "Forbidden",
      "The operator disabled the endpoint or the requested output format: `api_disabled`.",
      prefix,
      Object.fromEntries(refusals.map((k) => [k, errorExample("api_disabled", REFUSALS[k])])),
    ),
    404: errorResponse("NotFound", "Unknown path: `web_framework_error`.", prefix, {
      notFound: errorExample("web_framework_error", "not found"),
    }),
    405: errorResponse(
      "MethodNotAllowed",
      "Wrong method on a known path: `web_framework_error`.",
      prefix,
      { wrongMethod: errorExample("web_framework_error", "method not allowed") },
      { Allow: allow },
    ),
    500: errorResponse(
      "InternalError",
      "The strategy or the server failed unexpectedly (generic message, details in the server log): `internal_error`.",
      prefix,
      { internal: errorExample("internal_error", "internal error") },
    ),
    503: errorResponse(
      "ServiceUnavailable",
      "No block ingested yet (`internal_error`), or the newest block is older than the staleness bound (`health_check_failed`).",
      prefix,
      {
        noBlockYet: errorExample("internal_error", "no block has been ingested yet"),
        ...(maxStalenessMs === false
          ? {}
          : { stale: errorExample("health_check_failed", staleMessage(maxStalenessMs)) }),
      },
    ),
  };
}
