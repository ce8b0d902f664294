import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { afterJsonValue } from "../../src/core/afterJsonValue.js";
import { jsonErrorOffset } from "../../src/core/jsonErrorOffset.js";
import { pruneUnread } from "../../src/sources/aptosRest/pruneUnread.js";
import { fcParams } from "../helpers/fcSeed.js";

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

/** JSON text, pretty or not, and that text with one character taken out, put in or changed. */
const texts = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.jsonValue().map((v) => JSON.stringify(v, null, 2)),
  fc
    .tuple(
      fc.jsonValue().map((v) => JSON.stringify(v, null, 1)),
      fc.nat(),
      fc.constantFrom(
        "",
        ",",
        "}",
        "]",
        "{",
        "[",
        ":",
        '"',
        "\\",
        "0",
        "-",
        "e",
        ".",
        " ",
        "\n",
        "\u0001",
        "x",
      ),
    )
    .map(([text, at, put]) => {
      const i = text.length === 0 ? 0 : at % text.length;
      return text.slice(0, i) + put + text.slice(i + (put === "" || at % 2 === 0 ? 1 : 0));
    }),
  fc.string({ unit: fc.constantFrom(...'{}[]:,"\\ 0123456789-+.eEtrufalsn\nx') }),
);

describe("jsonErrorOffset", () => {
  it("finds no error exactly where JSON.parse accepts the text", () => {
    fc.assert(
      fc.property(texts, (text) => {
        const at = jsonErrorOffset(text);
        expect(at === undefined, JSON.stringify(text)).toBe(parses(text));
        if (at === undefined) return;
        expect(at).toBeGreaterThanOrEqual(0);
        expect(at).toBeLessThanOrEqual(text.length);
      }),
      fcParams(2000),
    );
  });

  it("points at the first character that cannot continue JSON", () => {
    const cases: [string, number][] = [
      ["", 0],
      ["{", 1],
      ['{"a": 1,}', 8],
      ['{"a" 1}', 5],
      ["[1, 2,]", 6],
      ["[01]", 2],
      ['{"a": tru}', 6],
      ['{"a": "x\ny"}', 8],
      ['"\\x"', 1],
      ['"\\u12g4"', 1],
      ["1 2", 2],
      ["{}}", 2],
      ["[1}", 2],
      ['{"a": -}', 6],
      ["1.", 0],
      ["-", 0],
    ];
    for (const [text, at] of cases) expect(jsonErrorOffset(text), JSON.stringify(text)).toBe(at);
  });

  it("walks nesting of any depth without recursion", () => {
    const deep = `${"[".repeat(200_000)}1${"]".repeat(200_000)}`;
    expect(jsonErrorOffset(deep)).toBeUndefined();
    expect(jsonErrorOffset(`${deep.slice(0, -1)}}`)).toBe(deep.length - 1);
  });
});
