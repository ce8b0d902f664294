import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { afterJsonValue } from "../../src/core/afterJsonValue.js";
import { pruneUnread } from "../../src/sources/aptosRest/pruneUnread.js";

/** Whether `text` is one JSON value, as JSON.parse says. */
const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};
/** Whether afterJsonValue reads `text` as one value and nothing but whitespace after it. */
const skips = (text: string) => {
  const end = afterJsonValue(text, 0);
  return end >= 0 && text.slice(end).trim() === "";
};

describe("afterJsonValue", () => {
  it("ends where the value ends, or says -1 where there is none", () => {
    expect(afterJsonValue('{"events": [1, {"a": null}], "x": 1}', 10)).toBe(27);
    expect(afterJsonValue(" -1.5e+3,", 0)).toBe(8);
    expect(afterJsonValue('"a\\u00e9\\n"}', 0)).toBe(11);
    // A value ends where its grammar does: what follows is the caller's to judge.
    expect(afterJsonValue("01", 0)).toBe(1);
    for (const bad of [
      "undefined",
      "[ }",
      "[1,]",
      '{"a"}',
      '{"a":1,}',
      "1.",
      "-",
      '"\\x"',
      '"a',
      "tru",
      "[1 2]",
      '"\u0001"',
    ])
      expect({ bad, end: afterJsonValue(bad, 0) }).toEqual({ bad, end: -1 });
  });

  it("agrees with JSON.parse on any JSON, and on JSON with a character cut, added or changed", () => {
    const json = fc.jsonValue({ maxDepth: 5 }).map((v) => JSON.stringify(v, null, 1));
    fc.assert(
      fc.property(
        json,
        fc.nat(),
        fc.constantFrom("", ",", "}", "]", '"', ":", "x", "0", "\\", " "),
        (text, at, insert) => {
          expect(skips(text)).toBe(true);
          const k = text.length === 0 ? 0 : at % text.length;
          for (const mutated of [
            text.slice(0, k) + text.slice(k + 1),
            text.slice(0, k) + insert + text.slice(k),
          ])
            expect({ mutated, skips: skips(mutated) }).toEqual({ mutated, skips: parses(mutated) });
        },
      ),
    );
  });

  it("walks a nesting 1,000,000 deep without recursion", () => {
    const deep = `${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}`;
    expect(afterJsonValue(deep, 0)).toBe(deep.length);
    expect(afterJsonValue(`${deep.slice(0, -1)}}`, 0)).toBe(-1);
  });
});

describe("pruneUnread on text that is not JSON", () => {
  it("leaves a member's value that is not JSON in place, so the parse refuses the answer", () => {
    for (const text of [
      '{"events":undefined,"x":1}',
      '{"events":[ },"x":1}',
      '{"changes":[1,],"x":1}',
    ])
      expect(() => JSON.parse(pruneUnread(text))).toThrow(SyntaxError);
    // The members before it are pruned as before.
    expect(pruneUnread('{"code":[1],"events":nope}')).toBe('{"code":null,"events":nope}');
  });
});
