import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonErrorOffset } from "../../src/core/jsonErrorOffset.js";
import { fcParams } from "../helpers/fcSeed.js";

const isJson = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

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
        expect(at === undefined, JSON.stringify(text)).toBe(isJson(text));
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
