import { describe, expect, it } from "vitest";
import { BaseError, InvalidJsonError } from "../../src/core/errors.js";
import { parseJsonLossless } from "../../src/core/parseJsonLossless.js";
import { thrown } from "../helpers/thrown.js";

describe("parseJsonLossless errors", () => {
  it("text that is not JSON: an InvalidJsonError (a BaseError) with JSON.parse's message", () => {
    for (const text of ["{", '{"height": 1e2', '{"p": 18446744073709551615,}']) {
      let expected = "";
      try {
        JSON.parse(text.replace(/(\d{16,})/, '"$1"'));
      } catch (e) {
        expected = (e as Error).message;
      }
      const e = thrown(() => parseJsonLossless(text));
      expect(e).toBeInstanceOf(InvalidJsonError);
      expect(e).toBeInstanceOf(BaseError);
      expect((e as InvalidJsonError).code).toBe("invalid_json");
      expect((e as InvalidJsonError).shortMessage).toBe(expected);
      expect((e as InvalidJsonError).cause).toBeInstanceOf(SyntaxError);
    }
  });

  it("an integer with a leading zero is not JSON, however long (a long one used to be quoted and taken)", () => {
    for (const text of [
      '{"p": 0100}',
      '{"p": 0000000000000000100}',
      '{"p": -0000000000000000100}',
      "[0000000000000100]",
    ]) {
      const e = thrown(() => parseJsonLossless(text));
      expect(e).toBeInstanceOf(InvalidJsonError);
      expect((e as InvalidJsonError).code).toBe("invalid_json");
    }
  });

  it("keeps integers up to 2^53 - 1 numbers, and quotes only the ones a double cannot hold", () => {
    expect(parseJsonLossless('{"a": 9007199254740991, "b": 1000000000000000}')).toEqual({
      a: 9007199254740991,
      b: 1000000000000000,
    });
    expect(parseJsonLossless('{"a": 9007199254740992, "b": -18446744073709551615}')).toEqual({
      a: "9007199254740992",
      b: "-18446744073709551615",
    });
  });

  it("more objects or members than the limits: code too_large, naming the limit", () => {
    const containers = thrown(() => parseJsonLossless("[[[]]]", { maxContainers: 2 }));
    expect(containers).toBeInstanceOf(InvalidJsonError);
    expect((containers as InvalidJsonError).code).toBe("too_large");
    expect((containers as InvalidJsonError).message).toBe("holds more than 2 objects or arrays");
    const members = thrown(() => parseJsonLossless('{"a":1,"b":2}', { maxMembers: 1 }));
    expect((members as InvalidJsonError).code).toBe("too_large");
    expect((members as InvalidJsonError).message).toBe(
      "holds more than 1 object members (key: value pairs)",
    );
  });

  it("maxObjectMembers counts the members of each object on its own, nested ones apart", () => {
    // 3 members at the top, 3 in the nested object, 3 in each object of the array: fine at 3.
    const spread =
      '{"a":{"x":1,"y":2,"z":3},"b":[{"p":1,"q":2,"r":3},{"p":4,"q":5,"r":6}],"c":"{:}"}';
    expect(parseJsonLossless(spread, { maxObjectMembers: 3 })).toMatchObject({ c: "{:}" });
    const big = thrown(() =>
      parseJsonLossless('[{"a":1},{"a":1,"b":2,"c":3,"d":4}]', { maxObjectMembers: 3 }),
    );
    expect((big as InvalidJsonError).code).toBe("too_large");
    expect((big as InvalidJsonError).message).toBe(
      "holds an object of more than 3 members (key: value pairs)",
    );
    // Members after a closed nested object count for the outer one again.
    const after = '{"a":1,"n":{"x":1,"y":2,"z":3},"b":2,"c":3}';
    expect(() => parseJsonLossless(after, { maxObjectMembers: 3 })).toThrow(
      "holds an object of more than 3 members",
    );
    expect(parseJsonLossless(after, { maxObjectMembers: 4 })).toMatchObject({ c: 3 });
  });

  it("maxValues counts the commas outside strings: arrays of plain values are bounded too", () => {
    expect(() => parseJsonLossless("[1,2,3]", { maxValues: 1 })).toThrow(
      "holds more than 1 values",
    );
    // Commas, colons and brackets inside strings (escaped quotes included) are not counted.
    const quoted = '["a,b:c{[", "d\\",e]", "\\\\"]';
    expect(parseJsonLossless(quoted, { maxValues: 2, maxContainers: 1, maxMembers: 0 })).toEqual([
      "a,b:c{[",
      'd",e]',
      "\\",
    ]);
  });
});

describe("parseJsonLossless arguments", () => {
  it("refuses text that is not a string (JSON.parse would read 5 as '5') and bad limits, naming each", () => {
    expect(() => parseJsonLossless(5 as never)).toThrow(
      "invalid argument: text: must be a string of JSON text (got 5)",
    );
    // null, like undefined, means no limits.
    expect(parseJsonLossless('{"a": 1}', null)).toEqual({ a: 1 });
    expect(() => parseJsonLossless("{}", 5 as never)).toThrow(
      "invalid argument: options: must be an object (got 5)",
    );
    expect(() =>
      parseJsonLossless("{}", { maxContainers: "1", maxMembers: -1, maxDepth: 3 } as never),
    ).toThrow(
      'invalid argument: maxDepth: unknown field (takes maxContainers, maxMembers, maxObjectMembers, maxValues); maxContainers: must be a whole number >= 0 or Infinity (got "1"); maxMembers: must be a whole number >= 0 or Infinity (got -1)',
    );
    expect(parseJsonLossless("[1]", { maxContainers: Number.POSITIVE_INFINITY })).toEqual([1]);
    expect(() => parseJsonLossless("[[]]", { maxContainers: 1 })).toThrow(InvalidJsonError);
  });
});
