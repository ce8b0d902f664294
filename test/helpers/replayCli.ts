import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { type BlockSampleInput, parseBlockSample, serializeBlockSample } from "../../src/index.js";
import { runCli } from "./cli.js";

/**
 * `gasdigest replay` of `samples` written to a temporary NDJSON file: the last estimate line,
 * without its height (asserted to be `to`), in the wire's JSON shape.
 *
 * @example
 * expect(served.body).toEqual(await replayedEstimate(node.chain.expectedSamples(from, to), to));
 */
export async function replayedEstimate(samples: readonly BlockSampleInput[], to: bigint) {
  const file = join(mkdtempSync(join(tmpdir(), "gasdigest-replay-")), "chain.ndjson");
  const lines = samples.map((b) => serializeBlockSample(parseBlockSample(b)));
  writeFileSync(file, `${lines.join("\n")}\n`);
  const r = await runCli(["replay", "--input", file]);
  expect(r.code).toBe(0);
  const { height, ...estimate } = JSON.parse(r.stdout.trim().split("\n").pop()!);
  expect(height).toBe(String(to));
  return estimate;
}
