import { bcs } from "@mysten/bcs";
import type { GasEstimate } from "../core/types.js";

/** BCS layout of the estimate: the whole struct, or the bare `gas_estimate` u64 existing nodes send. */
export type BcsLayout = "full" | "gas_estimate_only";

const GasEstimation = bcs.struct("GasEstimation", {
  deprioritized_gas_estimate: bcs.option(bcs.u64()),
  gas_estimate: bcs.u64(),
  prioritized_gas_estimate: bcs.option(bcs.u64()),
});

/**
 * The estimate as the JSON object of the wire interface, written from BigInt so values above
 * 2^53 stay exact.
 *
 * @example
 * encodeEstimateJson({ deprioritized: 100n, regular: 150n, prioritized: 300n });
 * // '{"deprioritized_gas_estimate":100,"gas_estimate":150,"prioritized_gas_estimate":300}'
 */
export function encodeEstimateJson(estimate: GasEstimate): string {
  return `{"deprioritized_gas_estimate":${estimate.deprioritized},"gas_estimate":${estimate.regular},"prioritized_gas_estimate":${estimate.prioritized}}`;
}

/**
 * The estimate in BCS: `Option<u64>, u64, Option<u64>` (26 bytes) for `"full"`, or the 8-byte
 * little-endian `gas_estimate` for `"gas_estimate_only"`.
 *
 * @example
 * encodeEstimateBcs({ deprioritized: 100n, regular: 150n, prioritized: 300n }).length; // 26
 */
export function encodeEstimateBcs(estimate: GasEstimate, layout: BcsLayout = "full"): Uint8Array {
  if (layout === "gas_estimate_only") return bcs.u64().serialize(estimate.regular).toBytes();
  return GasEstimation.serialize({
    deprioritized_gas_estimate: estimate.deprioritized,
    gas_estimate: estimate.regular,
    prioritized_gas_estimate: estimate.prioritized,
  }).toBytes();
}
