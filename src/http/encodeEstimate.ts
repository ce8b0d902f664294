import type { GasEstimate } from "../core/types.js";
import { U64_MAX } from "../core/u64.js";

/** BCS layout of the estimate: the whole struct, or the bare `gas_estimate` u64 existing nodes send. */
export type BcsLayout = "full" | "gas_estimate_only";

/** Write `value` as a BCS u64 (8 bytes, little-endian) at `offset`. */
function putU64(view: DataView, offset: number, value: bigint): void {
  // The engine checks every estimate is a u64; a wrapped value on the wire would be a lie.
  if (value < 0n || value > U64_MAX) throw new RangeError(`${value} is not a u64`);
  view.setBigUint64(offset, value, true);
}

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
 * little-endian `gas_estimate` for `"gas_estimate_only"`. Written by hand: a fixed layout of
 * three u64s needs no BCS library (the tests check these bytes against `@mysten/bcs`).
 *
 * @example
 * encodeEstimateBcs({ deprioritized: 100n, regular: 150n, prioritized: 300n }).length; // 26
 */
export function encodeEstimateBcs(estimate: GasEstimate, layout: BcsLayout = "full"): Uint8Array {
  if (layout === "gas_estimate_only") {
    const bytes = new Uint8Array(8);
    putU64(new DataView(bytes.buffer), 0, estimate.regular);
    return bytes;
  }
  // struct GasEstimation { Option<u64>, u64, Option<u64> }: an Option is a tag byte (1: Some)
  // and its value; both options are always Some here.
  const bytes = new Uint8Array(26);
  const view = new DataView(bytes.buffer);
  bytes[0] = 1;
  putU64(view, 1, estimate.deprioritized);
  putU64(view, 9, estimate.regular);
  bytes[17] = 1;
  putU64(view, 18, estimate.prioritized);
  return bytes;
}
