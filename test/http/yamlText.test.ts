// `/spec.yaml` is written without a YAML library: whatever JSON data goes in, a YAML reader must
// read back the same data.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { createOpenApiDocument } from "../../src/http/createOpenApiDocument.js";
import { yamlText } from "../../src/http/yamlText.js";
import { fcParams } from "../helpers/fcSeed.js";

/** Data as JSON has it (`-0` is 0, `undefined` fields are left out). */
const asJson = (v: unknown) => JSON.parse(JSON.stringify(v));

describe("yamlText", () => {
  it("reads back as the same data, for any JSON object", () => {
    const strings = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.constantFrom(
        "true",
        "No",
        "~",
        "null",
        "1.5",
        "0x10",
        "- a",
        "a: b",
        "a #b",
        " x",
        "x ",
        "",
        "#",
        "'",
        '"',
        "\u2028",
        "\ufeff",
        "\u0085",
        "@x",
        "*x",
        "&x",
        "!x",
        "%x",
        "|",
        ">",
        "?",
        // Keys past YAML's 1,024 characters on one line: written as explicit keys.
        "k".repeat(1000),
        "k".repeat(1025),
        "\u00e9".repeat(200),
      ),
    );
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        strings,
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie("value"), { maxLength: 4 }),
        fc.dictionary(strings, tie("value"), { maxKeys: 4 }),
      ),
    }));
    fc.assert(
      fc.property(fc.dictionary(strings, json.value, { maxKeys: 6 }), (data) => {
        expect(parse(yamlText(data))).toEqual(asJson(data));
      }),
      fcParams(500),
    );
  });

  it("a header prefix of 1,100 characters: the document still reads back (its header names are keys)", () => {
    const document = createOpenApiDocument({ headerPrefix: `${"A".repeat(1100)}-` });
    const text = yamlText(document);
    expect(parse(text)).toEqual(asJson(document));
    expect(text).toMatch(/^ *\? A{1100}-Chain-Id\n *: *$/m);
  });

  it("writes the OpenAPI document in readable block style that reads back as it", () => {
    const document = createOpenApiDocument({ basePath: "/v1" });
    const text = yamlText(document);
    expect(parse(text)).toEqual(asJson(document));
    expect(text.startsWith('openapi: "3.1.0"\ninfo:\n  title: gasdigest\n')).toBe(true);
    expect(text).toContain('\n      responses:\n        "200":\n');
  });
});
