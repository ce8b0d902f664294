// The BCS bytes are written by hand (a fixed layout of three u64s): they must be the bytes the
// reference BCS library writes, for every u64, edges included.
import { bcs } from "@mysten/bcs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { U64_MAX } from "../../src/core/u64.js";
import { encodeEstimateBcs } from "../../src/http/encodeEstimate.js";
import { fcParams } from "../helpers/fcSeed.js";

const GasEstimation = bcs.struct("GasEstimation", {
  deprioritized_gas_estimate: bcs.option(bcs.u64()),
  gas_estimate: bcs.u64(),
  prioritized_gas_estimate: bcs.option(bcs.u64()),
});
const u64 = fc.oneof(
  fc.bigInt({ min: 0n, max: U64_MAX }),
  fc.constantFrom(0n, 1n, 255n, 256n, 2n ** 32n, 2n ** 53n + 1n, U64_MAX - 1n, U64_MAX),
);

describe("encodeEstimateBcs", () => {
  it("writes what @mysten/bcs writes, in both layouts", () => {
    fc.assert(
      fc.property(u64, u64, u64, (deprioritized, regular, prioritized) => {
        const estimate = { deprioritized, regular, prioritized };
        expect(encodeEstimateBcs(estimate)).toEqual(
          GasEstimation.serialize({
            deprioritized_gas_estimate: deprioritized,
            gas_estimate: regular,
            prioritized_gas_estimate: prioritized,
          }).toBytes(),
        );
        expect(encodeEstimateBcs(estimate, "gas_estimate_only")).toEqual(
          bcs.u64().serialize(regular).toBytes(),
        );
      }),
      fcParams(500),
    );
  });

  it("refuses a value that is not a u64 instead of wrapping it", () => {
    const bad = { deprioritized: 1n, regular: U64_MAX + 1n, prioritized: 2n };
    expect(() => encodeEstimateBcs(bad)).toThrow(RangeError);
    expect(() => encodeEstimateBcs({ ...bad, regular: -1n }, "gas_estimate_only")).toThrow(
      "-1 is not a u64",
    );
  });
});
