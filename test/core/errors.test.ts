import { describe, expect, it } from "vitest";
import { LookaheadError } from "../../src/backtest/lookaheadError.js";
import { UsageError } from "../../src/cli/io.js";
import { BaseError, InvalidConfigError, ValidationError } from "../../src/index.js";
import { InvalidResponseError, SourceRequestError } from "../../src/node.js";
import { SketchError } from "../../src/sketch/sketchError.js";

describe("one error tree", () => {
  it("keeps what failed as `subject`, whole, even when it holds colons (a URL)", () => {
    const url = "http://127.0.0.1:8080/v1";
    const e = new InvalidResponseError(url, [{ path: "chain_id", message: "required" }]);
    expect(e).toBeInstanceOf(ValidationError);
    expect(e.subject).toBe(`invalid response from ${url}`);
    expect(e.shortMessage).toBe(`invalid response from ${url}: chain_id: required`);
    expect(new InvalidConfigError([{ path: "a", message: "b" }]).subject).toBe(
      "invalid configuration",
    );
  });

  it("every class derives from BaseError", () => {
    const all = [
      new SketchError("value", "must be a finite number, got NaN"),
      new UsageError("--input is required"),
      new LookaheadError("mine", 7n, "asked again"),
      new SourceRequestError("http://127.0.0.1:1", "network"),
    ];
    for (const e of all) expect(e).toBeInstanceOf(BaseError);
  });
});
