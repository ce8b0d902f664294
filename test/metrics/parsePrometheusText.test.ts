// The parser the metrics tests read scrapes with must be able to fail.
import { describe, expect, it } from "vitest";
import { parsePrometheusText, sampleValue } from "./parsePrometheusText.js";

const good = `# HELP a_total Things.
# TYPE a_total counter
a_total{kind="x"} 3
# HELP h Seconds.
# TYPE h histogram
h_bucket{le="0.1"} 1
h_bucket{le="+Inf"} 2
h_sum 0.3
h_count 2
`;

describe("parsePrometheusText", () => {
  it("reads a well-formed exposition", () => {
    const m = parsePrometheusText(good);
    expect(sampleValue(m, "a_total", { kind: "x" })).toBe(3);
    expect(sampleValue(m, "h_count")).toBe(2);
  });

  it.each([
    ["a sample of no declared family", "b 1\n", /no declared family/],
    ["a malformed label", '# HELP a x\n# TYPE a gauge\na{k="v} 1\n', /not a sample/],
    ["a value that is no number", "# HELP a x\n# TYPE a gauge\na one\n", /not a number/],
    ["a series twice", "# HELP a x\n# TYPE a gauge\na 1\na 2\n", /twice/],
    ["a negative counter", "# HELP a x\n# TYPE a counter\na -1\n", /negative counter/],
    ["no final line feed", "# HELP a x\n# TYPE a gauge\na 1", /line feed/],
    [
      "buckets not cumulative",
      good.replace('h_bucket{le="+Inf"} 2', 'h_bucket{le="+Inf"} 0'),
      /cumulative/,
    ],
    ["+Inf unlike _count", good.replace("h_count 2", "h_count 5"), /_count/],
    ["TYPE after samples", "# HELP a x\n# TYPE a gauge\na 1\n# TYPE a gauge\n", /after samples/],
  ])("refuses %s", (_name, text, error) => {
    expect(() => parsePrometheusText(text)).toThrow(error);
  });
});
