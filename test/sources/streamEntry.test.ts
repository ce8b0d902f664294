// decodeStreamEntry's issues, which the Redis source hands out in its `rejected` events.
import { describe, expect, it } from "vitest";
import { decodeStreamEntry } from "../../src/sources/redis/streamEntry.js";

/** The issues of an entry that must be rejected. */
function issuesOf(id: string, fields: string[]) {
  const r = decodeStreamEntry(id, fields);
  if (r.ok) throw new Error("expected the entry to be rejected");
  return r.issues;
}

describe("decodeStreamEntry", () => {
  it("gives every issue a code, keeping the line reader's under the block field", () => {
    const twice = '{"height":"5","epoch":"1","gas_unit_prices":[],"height":"5"}';
    expect(issuesOf("5-0", ["block", twice])).toEqual([
      {
        path: "block.height",
        message: "is given twice in the line (only the last would count)",
        code: "duplicate_key",
      },
    ]);
    const nested = `{"height":"5","epoch":"1","gas_unit_prices":[],"x":${"[".repeat(20)}${"]".repeat(20)}}`;
    expect(issuesOf("5-0", ["block", nested]).map((i) => i.code)).toEqual(["too_large"]);
    expect(issuesOf("5-0", ["block", "{"]).map((i) => i.code)).toEqual(["invalid_json"]);
    expect(issuesOf("5-0", ["block", ""]).map((i) => i.code)).toEqual(["invalid_json"]);
    const prices = `{"height":"5","epoch":"1","gas_unit_prices":[${Array(30).fill('"x"')}]}`;
    expect(issuesOf("5-0", ["block", prices]).at(-1)).toEqual({
      path: "block",
      message: "and 10 more issues (not listed)",
      code: "too_many_issues",
    });
    const other = '{"height":"6","epoch":"1","gas_unit_prices":[]}';
    for (const issues of [
      issuesOf("5-1", ["block", "{}"]),
      issuesOf("5-0", ["note", "x"]),
      issuesOf("5-0", ["block", other]),
    ])
      expect(issues.map((i) => i.code)).toEqual(["custom"]);
  });
});
