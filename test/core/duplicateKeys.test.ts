import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { duplicateKeys } from "../../src/core/duplicateKeys.js";

describe("duplicateKeys", () => {
  it("finds a repeated key at any depth, with its path, as JSON.parse decodes keys", () => {
    expect(duplicateKeys('{"a": 1, "b": 2}')).toEqual([]);
    expect(duplicateKeys('{"a": 1, "a": 2}')).toEqual([["a"]]);
    expect(duplicateKeys('{"x": {"tiers": {"regular": {"p": 1, "p": 2}}}}')).toEqual([
      ["x", "tiers", "regular", "p"],
    ]);
    expect(duplicateKeys('{"b": [0, {"k": 1, "k": 2}]}')).toEqual([["b", 1, "k"]]);
    expect(duplicateKeys('{"a": 1, "\\u0061": 2}')).toEqual([["a"]]);
    // A key equal to a value, or the same key in two objects, is no repeat.
    expect(duplicateKeys('{"a": "a", "b": {"a": 1}, "c": [{"a": 1}, {"a": 2}]}')).toEqual([]);
    // Strings holding quotes, brackets and commas are skipped whole.
    expect(duplicateKeys('{"a": "\\"},{\\"a\\":", "b": 1}')).toEqual([]);
  });

  it("finds nothing in any JSON.stringify output, and one repeat where one is added", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const text = JSON.stringify(value);
        expect(duplicateKeys(text)).toEqual([]);
        const repeated = `{"k": ${text}, "k": 0}`;
        expect(duplicateKeys(repeated)).toEqual([["k"]]);
      }),
    );
  });

  it("walks a nesting 100,000 deep without recursion", () => {
    const deep = `${'{"a":'.repeat(100_000)}{"z": 1, "z": 2}${"}".repeat(100_000)}`;
    const [path] = duplicateKeys(deep);
    expect(path).toHaveLength(100_001);
    expect(path!.at(-1)).toBe("z");
  });
});
