import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseBlockSample, serializeBlockSample } from "../../src/core/blockSample.js";
import { runCli } from "../helpers/cli.js";
import { noNodeUrl } from "../helpers/freePort.js";
import { runGasdigest } from "../helpers/runChild.js";
import { type FakeNode, type Fault, type Route, startFakeNode } from "../sources/fakeNode.js";

/** A node URL nothing listens on (not port 1 or 9: Fetch "bad ports" are refused up front). */
const NO_NODE = await noNodeUrl();

const nodes: FakeNode[] = [];
afterEach(async () => {
  await Promise.all(nodes.splice(0).map((n) => n.close()));
});

const MIB = 1024 * 1024;

/**
 * `gasdigest record` of 5 blocks in a child process against a fake node that first answers
 * `route` `times` times with `fault`: the file written, the messages and the child's peak RSS.
 */
async function recordThrough(fault: Fault, route: Route, times: number, flags: string[] = []) {
  const node = await startFakeNode({ blocks: 60, usersPerBlock: [20, 40] });
  nodes.push(node);
  node.inject(fault, { route, times });
  const out = join(mkdtempSync(join(tmpdir(), "gasdigest-hostile-")), "blocks.ndjson");
  // No hedge (its delay at the timeout): an oversized body is cut at the cap, not raced by a
  // second try, which on a busy machine may win before the cap is reached.
  const run = await runGasdigest(
    [
      "record",
      "--source",
      `aptos:${node.url}`,
      "--blocks",
      "5",
      "--out",
      out,
      "--hedge-after-ms",
      "10000",
      ...flags,
    ],
    120_000,
  );
  const tip = node.chain.tip;
  const expected = node.chain
    .expectedSamples(tip - 4n, tip)
    .map((b) => serializeBlockSample(parseBlockSample(b)));
  const written = run.code === 0 ? readFileSync(out, "utf8").trim().split("\n") : [];
  const injected = node.requests.filter((r) => r.outcome === fault.kind).length;
  return { node, run, written, expected, injected };
}

describe("record against a node sending oversized bodies (issue 13, item 1)", () => {
  it("cuts 300 MB answers to GET /v1 at the default cap, retries, records every block, peak RSS < 512 MB", async () => {
    const r = await recordThrough({ kind: "huge", bytes: 300 * MIB }, "ledger", 2);
    expect(r.run.code, r.run.stderr).toBe(0);
    expect(r.injected).toBe(2);
    expect(r.run.stderr).toContain(
      `response from ${r.node.url}/v1 is larger than the cap of 67108864 bytes`,
    );
    expect(r.written).toEqual(r.expected);
    expect(r.run.maxRssMiB).toBeLessThan(512);
  }, 120_000);

  it("stops a 2 MB gzip bomb (2 GiB inflated) at the cap on block answers", async () => {
    const r = await recordThrough({ kind: "huge", bytes: 2048 * MIB, gzip: true }, "block", 3);
    expect(r.run.code, r.run.stderr).toBe(0);
    expect(r.injected).toBe(3);
    expect(r.run.stderr).toMatch(
      /response from http:\/\/127\.0\.0\.1:\d+\/v1\/blocks\/by_height\/\d+\?with_transactions=true is larger than the cap of 67108864 bytes/,
    );
    expect(r.written).toEqual(r.expected);
    expect(r.run.maxRssMiB).toBeLessThan(512);
  }, 120_000);

  it("applies --max-response-bytes to a 50 MB answer", async () => {
    const r = await recordThrough({ kind: "huge", bytes: 50 * MIB }, "block", 2, [
      "--max-response-bytes",
      String(16 * MIB),
    ]);
    expect(r.run.code, r.run.stderr).toBe(0);
    expect(r.run.stderr).toContain("is larger than the cap of 16777216 bytes");
    expect(r.written).toEqual(r.expected);
    expect(r.run.maxRssMiB).toBeLessThan(512);
  }, 120_000);
});

describe("node source flags of serve, record and publish", () => {
  it("checks the limits' flags and refuses them without --source aptos:URL", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "gasdigest-flags-")), "x.ndjson");
    const cases: [string[], string][] = [
      [
        [
          "record",
          "--source",
          `aptos:${NO_NODE}`,
          "--blocks",
          "1",
          "--out",
          out,
          "--max-response-bytes",
          "10",
        ],
        '--max-response-bytes must be a whole number from 1024 to 536870888 (got "10")',
      ],
      [
        [
          "record",
          "--source",
          "sim",
          "--blocks",
          "1",
          "--out",
          out,
          "--max-response-bytes",
          "4096",
        ],
        "--max-response-bytes only applies to --source aptos:URL",
      ],
      [
        ["serve", "--port", "0", "--follow-redirects"],
        "--follow-redirects only applies to --source aptos:URL",
      ],
      [
        [
          "serve",
          "--port",
          "0",
          "--source",
          `aptos:${NO_NODE}`,
          "--concurrency",
          "8",
          "--lookahead-blocks",
          "4",
        ],
        "--lookahead-blocks must not be below --concurrency (8), got 4",
      ],
      [
        ["serve", "--port", "0", "--source", `aptos:${NO_NODE}`, "--node-timeout-ms", "0"],
        '--node-timeout-ms must be a whole number from 1 to 600000 (got "0")',
      ],
      [
        ["publish", "--source", "sim", "--to", "redis://127.0.0.1:1", "--concurrency", "2"],
        "--concurrency only applies to --source aptos:URL",
      ],
      [
        [
          "publish",
          "--source",
          `aptos:${NO_NODE}`,
          "--to",
          "redis://127.0.0.1:1",
          "--concurrency",
          "8",
          "--lookahead-blocks",
          "4",
        ],
        "--lookahead-blocks must not be below --concurrency (8), got 4",
      ],
      [
        // Refused before it waits for Redis (none listens on port 1), as serve does.
        ["publish", "--source", "sim", "--to", "redis://127.0.0.1:1", "--stream", ""],
        "--stream must not be empty",
      ],
    ];
    for (const [argv, message] of cases) {
      const r = await runCli(argv);
      expect(r.code, argv.join(" ")).toBe(1);
      expect(r.stderr).toContain(message);
    }
  });
});
