import { describe, expect, it } from "vitest";
import { MAX_ECHO } from "../../src/core/describeValue.js";
import { describeNumber } from "../../src/core/optionSchemas.js";
import { simulator } from "../../src/sources/simulator.js";
import { calibrated } from "../../src/strategies/calibrated.js";

describe("describeNumber: a config file's integer past 2^53 in a count's message", () => {
  it("says it as written, too large, or too small when negative", () => {
    expect(describeNumber("99999999999999999999")).toBe("99999999999999999999, too large");
    expect(describeNumber("-99999999999999999999")).toBe("-99999999999999999999, too small");
    expect(describeNumber("9007199254740992")).toBe("9007199254740992, too large");
  });

  it("echoes a string of digits a double holds exactly as the string it is", () => {
    // parseJsonLossless leaves such an integer a number: as a string, the user wrote one.
    expect(describeNumber("1000000000000000")).toBe('"1000000000000000"');
    expect(describeNumber("9007199254740991")).toBe('"9007199254740991"');
    expect(describeNumber(2.5)).toBe("2.5");
  });

  it("echoes a huge integer short, as describeValue does any value", () => {
    const said = describeNumber("9".repeat(1_000_000));
    expect(said.length).toBeLessThanOrEqual(MAX_ECHO);
    expect(said).toBe("99999999999999999999… (1000000 digits), too large");
    expect(() => calibrated({ anchorBlocks: "9".repeat(5000) as unknown as number })).toThrow(
      /got 9{20}… \(5000 digits\), too large$/,
    );
  });
});

describe("the simulator's counts, which never come from a config file", () => {
  it("echo a string of digits as the string the caller passed, not as a number too large", () => {
    // Only a config file's parseJsonLossless turns an integer into its digits: here a string
    // is a string (the same wording as "123"), as rangeOptions.ts says of code and flags.
    for (const field of ["blocks", "blockCapacity", "epochLength"])
      expect(() => simulator({ [field]: "99999999999999999999" } as never)).toThrow(
        `${field}: must be a whole number of ${field === "blockCapacity" ? "transactions" : "blocks"}, got "99999999999999999999"`,
      );
    expect(() => simulator({ blocks: "123" } as never)).toThrow(
      'blocks: must be a whole number of blocks, got "123"',
    );
  });
});
