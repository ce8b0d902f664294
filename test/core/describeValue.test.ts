import { describe, expect, it } from "vitest";
import { describeValue, headOf, oneLine, shorten } from "../../src/core/describeValue.js";

/** No lone surrogate (`String.prototype.isWellFormed`, which the ES2022 lib lacks). */
const wellFormed = (s: string) => !/[\uD800-\uDFFF]/u.test(s);

describe("messages that quote input are cut between characters, never inside one", () => {
  const emoji = "😀"; // two UTF-16 units
  it("headOf keeps a surrogate pair whole or leaves it out", () => {
    expect(headOf(`ab${emoji}`, 3)).toBe("ab");
    expect(headOf(`ab${emoji}`, 4)).toBe(`ab${emoji}`);
    expect(headOf("abcd", 3)).toBe("abc");
  });

  it("shorten, oneLine and describeValue never end their cut in half an emoji", () => {
    // Every cut position falls once on the first half of a pair.
    for (let at = 0; at < 4; at++) {
      const text = `${"a".repeat(196 + at)}${emoji.repeat(100)}`;
      for (const shown of [shorten(text), oneLine(text), describeValue(text)])
        expect(wellFormed(shown), `${at}: ${shown}`).toBe(true);
      // describeValue quotes as JSON: a lone surrogate would be escaped, so read the quote back.
      const quoted = describeValue(`${"b".repeat(57 + at)}${emoji.repeat(40)}`);
      expect(wellFormed(JSON.parse(`${quoted.split("…")[0]!}"`))).toBe(true);
    }
  });
});

describe("messages that quote input show what is invisible", () => {
  it("escapes a byte order mark, zero-width characters and bidirectional overrides", () => {
    // A BOM inside a file (two files joined with cat) made "Unexpected token ''" read as empty;
    // a right-to-left override reorders everything a terminal shows after it.
    expect(shorten("a\uFEFFb\u200Bc\u202Ed\u2066e\u2069f")).toBe(
      "a\\ufeffb\\u200bc\\u202ed\\u2066e\\u2069f",
    );
    expect(describeValue("x\u202Ey")).toBe('"x\\u202ey"');
    // Letters of any script stay as they are.
    expect(shorten("prix élevé, 价格, سعر")).toBe("prix élevé, 价格, سعر");
  });

  it("escapes every format character, astral ones and a lone surrogate too", () => {
    // A soft hyphen, the Arabic letter mark (a bidirectional mark), a deprecated format
    // character, an interlinear annotation anchor, a tag letter (astral: \u{...}) and a lone
    // surrogate, which a UTF-8 stream would have shown as U+FFFD.
    expect(shorten("a\u00ADb\u061Cc\u206Ad\uFFF9e\u{E0041}f\uD800g")).toBe(
      "a\\u00adb\\u061cc\\u206ad\\ufff9e\\u{e0041}f\\ud800g",
    );
    // Combining marks, variation selectors and emoji are shown, not escaped.
    expect(shorten("e\u0301 \u2764\uFE0F 😀")).toBe("e\u0301 \u2764\uFE0F 😀");
  });
});
