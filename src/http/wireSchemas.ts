import * as z from "zod";
import type {} from "zod-openapi";
import { ERROR_CODES } from "./types.js";

/** A u64 written as a plain JSON number (exact, from BigInt). */
function u64Number(description: string) {
  return z
    .bigint()
    .meta({ description, override: { type: "integer", format: "uint64", minimum: 0 } });
}

/** A u64 written as a decimal string, as the node API does in ledger info. */
function u64String(description: string, example: string) {
  return z
    .string()
    .regex(/^[0-9]+$/)
    .meta({ description, example, format: "uint64" });
}

/** The gas estimate object (200 of `estimate_gas_price`). */
export const gasEstimationSchema = z
  .strictObject({
    deprioritized_gas_estimate: u64Number("Low estimate, for a transaction that can wait."),
    gas_estimate: u64Number("The regular estimate of the gas unit price."),
    prioritized_gas_estimate: u64Number(
      "High estimate, for a transaction that should get in next.",
    ),
  })
  .meta({
    description:
      "Gas unit price estimates in octas per gas unit; deprioritized_gas_estimate <= gas_estimate <= prioritized_gas_estimate, none below the chain's minimum gas unit price.",
    example: { deprioritized_gas_estimate: 100, gas_estimate: 150, prioritized_gas_estimate: 300 },
  });

/** `error_code` of the error object. */
export const errorCodeSchema = z
  .enum(ERROR_CODES)
  .meta({ description: "Machine-readable kind of the error." });

/** The error object every error status carries. */
export const errorObjectSchema = z
  .strictObject({
    message: z.string().meta({ description: "Human-readable description (never a stack trace)." }),
    error_code: errorCodeSchema,
    vm_error_code: z
      .bigint()
      .nullable()
      .optional()
      .meta({
        description: "Move VM status code, when a VM error caused it; null here.",
        override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
          delete jsonSchema.anyOf;
          Object.assign(jsonSchema, { type: ["integer", "null"], format: "uint64", minimum: 0 });
        },
      }),
  })
  .meta({
    description: "The error object of the node interface.",
    example: { message: "not found", error_code: "web_framework_error", vm_error_code: null },
  });

/** Ledger info (200 of `get_ledger_info`). */
export const ledgerInfoSchema = z
  .strictObject({
    chain_id: z.int().min(0).max(255).meta({ description: "Chain id.", format: "uint8" }),
    epoch: u64String("Current epoch.", "7"),
    ledger_version: u64String("Newest ledger version seen.", "90260"),
    oldest_ledger_version: u64String("Oldest ledger version still held.", "1000"),
    ledger_timestamp: u64String(
      "Newest block's timestamp, microseconds since the Unix epoch.",
      "1700000000123456",
    ),
    node_role: z
      .enum(["validator", "full_node"])
      .meta({ description: "Role of the node serving the request." }),
    oldest_block_height: u64String("Oldest block height still held.", "500"),
    block_height: u64String("Newest block height.", "1042"),
  })
  .meta({ description: "The ledger state as of the newest block." });

/** Health check success (200 of `healthy`). */
export const healthCheckSuccessSchema = z
  .strictObject({ message: z.string().meta({ example: "gasdigest:ok" }) })
  .meta({ description: "The server has a fresh estimate." });

/**
 * The schemas the document names as components, by name. Named here rather than with `.meta({ id
 * })`, which would put them in zod's global registry, shared by every zod in the process: an
 * application's `z.toJSONSchema(z.globalRegistry)` would then hold them (and throw on their
 * bigints), and an `id` of its own of the same name would replace one of them or be replaced.
 */
export const WIRE_COMPONENTS = {
  GasEstimation: gasEstimationSchema,
  AptosError: errorObjectSchema,
  AptosErrorCode: errorCodeSchema,
  IndexResponse: ledgerInfoSchema,
  HealthCheckSuccess: healthCheckSuccessSchema,
} as const;
