// Paths with dot segments: the handler resolves them as the WHATWG URL parser does, because
// that parser is what a fetch host (Hono, Bun, Deno, Workers) runs before the fetch adapter
// sees a request; the node-based hosts hand the handler the path as sent.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { removeDotSegments, stripPrefix } from "../../src/http/mount.js";
import { fcParams } from "../helpers/fcSeed.js";

const urlPath = (path: string) => new URL(`http://host${path}`).pathname;

describe("removeDotSegments", () => {
  it("agrees with the URL parser on any path of dot segments, names, slashes and backslashes", () => {
    // Whole segments: node 20's URL parser keeps `/x/.a/..` as it is where the standard makes it
    // `/x/` (a name that starts with a dot confuses it), so no name here starts with one.
    const segment = fc.constantFrom(
      "",
      ".",
      "..",
      "%2e",
      "%2E",
      ".%2E",
      "%2e.",
      "%2E%2e",
      "a",
      "v1",
    );
    const path = fc
      .array(fc.tuple(fc.constantFrom("/", "\\"), segment), { maxLength: 8 })
      .map((parts) => `/${parts.map(([sep, s], i) => (i === 0 ? s : sep + s)).join("")}`);
    fc.assert(
      fc.property(path, (p) => {
        expect(removeDotSegments(p)).toBe(urlPath(p));
      }),
      fcParams(2000),
    );
  });

  it("leaves alone what is not a dot segment, and never climbs above the root", () => {
    for (const path of [
      "/v1/estimate_gas_price",
      "/v1/spec.json",
      "/v1/a..b",
      "/.well-known",
      "//v1",
    ])
      expect(removeDotSegments(path)).toBe(path);
    expect(removeDotSegments("/../../v1/estimate_gas_price")).toBe("/v1/estimate_gas_price");
    expect(removeDotSegments("/v1/estimate_gas_price/.")).toBe("/v1/estimate_gas_price/");
    // As the standard says (node 20's own parser leaves this one as it is).
    expect(removeDotSegments("/v1/.x/../estimate_gas_price")).toBe("/v1/estimate_gas_price");
  });

  it("is applied before a mount prefix is stripped, the query untouched", () => {
    expect(stripPrefix("/x/../chain/v1/estimate_gas_price?a=/../b", "/chain")).toBe(
      "/v1/estimate_gas_price?a=/../b",
    );
    expect(stripPrefix("/chain/../v1/estimate_gas_price", "/chain")).toBeUndefined();
  });
});
