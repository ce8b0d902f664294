import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { lastValueFrom, take, toArray } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { estimateLine } from "../../src/cli/replay.js";
import { parseBlockSample, serializeBlockSample } from "../../src/core/blockSample.js";
import { createEngine } from "../../src/core/createEngine.js";
import { parseJsonLossless } from "../../src/core/parseJsonLossless.js";
import { aptosRest } from "../../src/sources/aptosRest.js";
import { simulator } from "../../src/sources/simulator.js";
import { aip34 } from "../../src/strategies/aip34.js";
import { runCli } from "../helpers/cli.js";
import { noNodeUrl } from "../helpers/freePort.js";
import { runGasdigest } from "../helpers/runChild.js";
import { type FakeNode, startFakeNode } from "../sources/fakeNode.js";

/** A node URL nothing listens on (not port 1 or 9: Fetch "bad ports" are refused up front). */
const NO_NODE = await noNodeUrl();

const nodes: FakeNode[] = [];
afterEach(async () => {
  await Promise.all(nodes.splice(0).map((n) => n.close()));
});

const tmp = () => mkdtempSync(join(tmpdir(), "gasdigest-record-"));
const lines = (path: string) => readFileSync(path, "utf8").trim().split("\n");
const heights = (path: string) => lines(path).map((l) => BigInt(JSON.parse(l).height));

/** Run `record` in-process with a chosen isTTY; collect stdout and stderr. */
const record = (argv: string[], isTTY = false) => runCli(["record", ...argv], { isTTY });

/** The estimate lines an engine serves while fed these blocks (what `replay` prints). */
async function replayLines(path: string) {
  const r = await runCli(["replay", "--input", path]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r.stdout.trim().split("\n");
}

function liveLines(blocks: Iterable<unknown>) {
  const engine = createEngine({ strategy: aip34() });
  const out: string[] = [];
  for (const b of blocks) {
    engine.ingest(b as never);
    const s = engine.snapshot()!;
    out.push(estimateLine(s.ledger.blockHeight, s.estimate!));
  }
  return out;
}

describe("gasdigest record", () => {
  it("records the last N blocks of a node; replaying the file serves what live serving did; --append resumes", async () => {
    const node = await startFakeNode({ blocks: 150, pageSize: 9 });
    nodes.push(node);
    const tip = node.chain.tip;
    const file = join(tmp(), "node.ndjson");
    const r = await record(["--source", `aptos:${node.url}/v1`, "--blocks", "40", "--out", file]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`wrote 40 blocks (heights ${tip - 39n}..${tip}) to ${file}`);
    expect(r.stderr).toContain(`recorded 4/40 blocks (10%), height ${tip - 36n}`);
    expect(r.stderr).toContain(`recorded 40/40 blocks (100%), height ${tip}`);
    const chain = node.chain.expectedSamples(tip - 39n, tip).map(parseBlockSample);
    expect(lines(file)).toEqual(chain.map(serializeBlockSample));

    const live = await lastValueFrom(
      aptosRest(node.url, { backfillBlocks: 40 }).pipe(take(40), toArray()),
    );
    expect(await replayLines(file)).toEqual(liveLines(live));

    node.chain.addBlocks(30);
    const again = await record([
      "--source",
      `aptos:${node.url}`,
      "--blocks",
      "25",
      "--out",
      file,
      "--append",
    ]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`starting at ${tip + 1n}`);
    expect(heights(file)).toEqual(Array.from({ length: 65 }, (_, i) => tip - 39n + BigInt(i)));
    const all = node.chain.expectedSamples(tip - 39n, tip + 25n).map(parseBlockSample);
    expect(lines(file)).toEqual(all.map(serializeBlockSample));
    expect(await replayLines(file)).toEqual(liveLines(all));
  });

  it("records the simulator; replay equals an engine fed by the simulator; --append continues the chain", async () => {
    const file = join(tmp(), "sim.ndjson");
    const r = await record(["--source", "sim", "--blocks", "300", "--seed", "7", "--out", file]);
    expect(r.code).toBe(0);
    const sim = await lastValueFrom(
      simulator({ seed: 7, intervalMs: 0, blocks: 300 }).pipe(toArray()),
    );
    expect(lines(file)).toEqual(sim.map(serializeBlockSample));
    expect(await replayLines(file)).toEqual(liveLines(sim));

    const more = await record([
      "--source",
      "sim",
      "--blocks",
      "50",
      "--out",
      file,
      "--append",
      "--seed",
      "8",
    ]);
    expect(more.code).toBe(0);
    expect(more.stderr).toContain(`wrote 50 blocks (heights 301..350) to ${file}`);
    const blocks = lines(file).map((l) => parseBlockSample(parseJsonLossless(l)));
    expect(blocks.map((b) => b.height)).toEqual(
      Array.from({ length: 350 }, (_, i) => BigInt(i + 1)),
    );
    for (let i = 1; i < blocks.length; i++) {
      expect(blocks[i]!.firstVersion).toBe(blocks[i - 1]!.lastVersion! + 1n);
      expect(blocks[i]!.timestampUsec! > blocks[i - 1]!.timestampUsec!).toBe(true);
      expect(blocks[i]!.epoch >= blocks[i - 1]!.epoch).toBe(true);
    }
    expect((await replayLines(file)).length).toBe(350);

    // A file whose last block's versions are near u64's largest, with room for 3 more blocks
    // but not for an endless run: they go on after it (the simulator's defaults, from
    // 2 × height, went back, and replay refused every appended block).
    const near = join(tmp(), "near.ndjson");
    writeFileSync(
      near,
      `${JSON.stringify({
        height: "100",
        epoch: "1",
        chain_id: 4,
        first_version: "18446744072709551000",
        last_version: "18446744072709551615",
        gas_unit_prices: ["100"],
      })}\n`,
    );
    const onNear = await record(["--source", "sim", "--blocks", "3", "--out", near, "--append"]);
    expect(onNear.code, onNear.stderr).toBe(0);
    expect(parseBlockSample(parseJsonLossless(lines(near)[1]!)).firstVersion).toBe(
      18446744072709551616n,
    );
    expect(await replayLines(near)).toHaveLength(4);
    // A last block that gives only its first version: the chain goes on after that one.
    const first = join(tmp(), "first.ndjson");
    writeFileSync(
      first,
      `${JSON.stringify({ height: "10", epoch: "1", first_version: "5000", gas_unit_prices: ["100"] })}\n`,
    );
    expect(
      (await record(["--source", "sim", "--blocks", "2", "--out", first, "--append"])).code,
    ).toBe(0);
    expect(await replayLines(first)).toHaveLength(3);

    // A file whose last block's version and timestamp are nearer still: no room for 3 more
    // blocks, so the append is refused (it wrote blocks whose versions went back, which replay
    // refused), and the file is left as it was.
    const high = join(tmp(), "high.ndjson");
    const highLine = JSON.stringify({
      height: "5",
      epoch: "1",
      chain_id: 4,
      first_version: "18446744073709551600",
      last_version: "18446744073709551610",
      gas_unit_prices: ["100"],
    });
    writeFileSync(high, `${highLine}\n`);
    const appended = await record(["--source", "sim", "--blocks", "3", "--out", high, "--append"]);
    expect(appended.code).toBe(1);
    expect(appended.stderr).toContain(
      `gasdigest record: cannot append to ${high}: the simulator cannot go on after its last block (height 5) (startVersion: must be at most 18446744073709550860 for the versions of 3 blocks to stay within 2^64-1`,
    );
    expect(lines(high)).toEqual([highLine]);

    // Past half of u64's range, with room left: the versions and timestamps go on after the
    // file's (the default versions, from 2 × height, went back, and replay refused every
    // appended block).
    const half = join(tmp(), "half.ndjson");
    writeFileSync(
      half,
      `${JSON.stringify({
        height: "5",
        epoch: "1",
        chain_id: 4,
        first_version: "9223372036854775800",
        last_version: "9223372036854775808",
        timestamp_usec: "9223372036854775808",
        gas_unit_prices: ["100"],
      })}\n`,
    );
    const onHalf = await record(["--source", "sim", "--blocks", "3", "--out", half, "--append"]);
    expect(onHalf.code, onHalf.stderr).toBe(0);
    const halfBlocks = lines(half).map((l) => parseBlockSample(parseJsonLossless(l)));
    expect(halfBlocks[1]!.firstVersion).toBe(9223372036854775809n);
    expect(halfBlocks[1]!.timestampUsec).toBe(9223372036855025808n);
    for (let i = 1; i < halfBlocks.length; i++)
      expect(halfBlocks[i]!.firstVersion).toBe(halfBlocks[i - 1]!.lastVersion! + 1n);
    expect(await replayLines(half)).toHaveLength(4);
  });

  it("--append --source sim goes on in the file's epoch and chain, so the file replays whole", async () => {
    // A file that ends in epoch 12345 of chain 1 (a node's blocks), mid-epoch: the simulator's
    // own epochs (1 + height / 1000) would jump hundreds of thousands of epochs, which replay
    // refuses block by block.
    const file = join(tmp(), "node.ndjson");
    writeFileSync(
      file,
      `${JSON.stringify({ height: "477445097", epoch: "12345", chain_id: 1, gas_unit_prices: ["100"] })}\n`,
    );
    const r = await record(["--source", "sim", "--blocks", "1000", "--out", file, "--append"]);
    expect(r.code, r.stderr).toBe(0);
    const blocks = lines(file).map((l) => parseBlockSample(parseJsonLossless(l)));
    expect(new Set(blocks.map((b) => b.chainId))).toEqual(new Set([1]));
    // The next epoch starts at the next height that is a multiple of the epoch length (1,000).
    const firstOfNext = blocks.findIndex((b) => b.epoch === 12346n);
    expect(blocks[firstOfNext]!.height).toBe(477446000n);
    expect(blocks.every((b, i) => b.epoch === (i < firstOfNext ? 12345n : 12346n))).toBe(true);
    expect(await replayLines(file)).toHaveLength(1001);

    // A file that ends on an epoch's last block: the appended chain opens the next epoch at once,
    // as one run of the simulator would (not a whole epoch later).
    const edge = join(tmp(), "edge.ndjson");
    expect((await record(["--source", "sim", "--blocks", "999", "--out", edge])).code).toBe(0);
    expect(
      (await record(["--source", "sim", "--blocks", "2", "--out", edge, "--append"])).code,
    ).toBe(0);
    const tail = lines(edge)
      .slice(-3)
      .map((l) => parseBlockSample(parseJsonLossless(l)));
    expect(tail.map((b) => [b.height, b.epoch])).toEqual([
      [999n, 1n],
      [1000n, 2n],
      [1001n, 2n],
    ]);
  });

  it("writes one progress line per block crossing a 10 % step, even with fewer than 10 blocks", async () => {
    const file = join(tmp(), "few.ndjson");
    const r = await record(["--source", "sim", "--blocks", "4", "--out", file]);
    expect(r.code).toBe(0);
    const progress = r.stderr.split("\n").filter((l) => l.startsWith("recorded "));
    expect(progress).toEqual([
      "recorded 1/4 blocks (25%), height 1",
      "recorded 2/4 blocks (50%), height 2",
      "recorded 3/4 blocks (75%), height 3",
      "recorded 4/4 blocks (100%), height 4",
    ]);
  });

  it("holds no block the file has not taken: 10,000 simulated blocks within a 64 MB heap", async () => {
    // The simulator's timer emitted 25 blocks a tick while the file took one 16 KiB write's
    // worth; the rest waited in memory (100,000 blocks peaked at 841 MB, 1,000,000 ran out).
    const file = join(tmp(), "long.ndjson");
    const r = await runGasdigest(
      ["record", "--source", "sim", "--blocks", "10000", "--out", file],
      120_000,
      ["--max-old-space-size=64"],
    );
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(lines(file)).toHaveLength(10_000);
  });

  it("draws a progress bar on a terminal", async () => {
    const file = join(tmp(), "tty.ndjson");
    const r = await record(["--source", "sim", "--blocks", "20", "--out", file], true);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/recording \[=+\] 100% \| 20\/20 blocks \| height 20/);
    expect(r.stderr).not.toContain("recorded 2/20");
  });

  it("appends after a last line without its newline, and refuses a broken last line", async () => {
    const dir = tmp();
    const file = join(dir, "cut.ndjson");
    const sim = await lastValueFrom(
      simulator({ seed: 1, intervalMs: 0, blocks: 3 }).pipe(toArray()),
    );
    writeFileSync(file, sim.map(serializeBlockSample).join("\n"));
    expect(
      (await record(["--source", "sim", "--blocks", "2", "--out", file, "--append"])).code,
    ).toBe(0);
    expect(heights(file)).toEqual([1n, 2n, 3n, 4n, 5n]);

    const broken = join(dir, "broken.ndjson");
    writeFileSync(broken, `${serializeBlockSample(sim[0]!)}\n{"height":"2","epo`);
    const r = await runCli([
      "record",
      "--source",
      "sim",
      "--blocks",
      "2",
      "--out",
      broken,
      "--append",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^gasdigest record: cannot append to .*broken\.ndjson: its last line is not JSON \(/,
    );
    // A last line of a form feed is not blank (JSON's whitespace is space, tab, CR and LF):
    // refused, not taken for an empty file that the chain would start again in.
    const feed = join(dir, "feed.ndjson");
    writeFileSync(feed, `${serializeBlockSample(sim[0]!)}\n\f\n`);
    const fed = await record(["--source", "sim", "--blocks", "2", "--out", feed, "--append"]);
    expect(fed.code).toBe(1);
    expect(fed.stderr).toMatch(/cannot append to .*feed\.ndjson: its last line is not JSON \(/);
    // Every reader takes a gzip history, but lines appended to one would be lost to them.
    const gz = join(dir, "h.ndjson.gz");
    writeFileSync(gz, gzipSync(`${serializeBlockSample(sim[0]!)}\n`));
    const zipped = await record(["--source", "sim", "--blocks", "2", "--out", gz, "--append"]);
    expect(zipped.code).toBe(1);
    expect(zipped.stderr).toMatch(/cannot append to .*h\.ndjson\.gz: it is gzip-compressed \(/);
    const empty = join(dir, "empty.ndjson");
    writeFileSync(empty, "\n\n");
    expect(
      (await record(["--source", "sim", "--blocks", "2", "--out", empty, "--append"])).code,
    ).toBe(0);
    expect(heights(empty)).toEqual([1n, 2n]);
  });

  it("--append to a file that ends at height 2^64-1 says no block can follow it", async () => {
    const file = join(tmp(), "last.ndjson");
    writeFileSync(
      file,
      '{"height":"18446744073709551615","epoch":"1","gas_unit_prices":["100"]}\n',
    );
    const r = await record(["--source", "sim", "--blocks", "2", "--out", file, "--append"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `gasdigest record: cannot append to ${file}: its last block is at height 18446744073709551615 (the largest height there is: no block can follow it)\n`,
    );
  });

  it("--append --source sim after a block the simulator cannot continue says it is the file's last block", async () => {
    // A minimum price above the simulator's largest, and epoch 2^64-1 at height 999 (height 1000
    // opens the next epoch): options no flag sets, read from the file.
    for (const [name, last, issue] of [
      [
        "wei.ndjson",
        { height: "9", epoch: "1", min_gas_unit_price: "5000000000", gas_unit_prices: [] },
        "minGasUnitPrice: must be from 1 to 1000000000, got 5000000000",
      ],
      [
        "epoch.ndjson",
        { height: "999", epoch: "18446744073709551615", gas_unit_prices: [] },
        "startEpoch: must be at most 2^64-1 (got 18446744073709551616)",
      ],
    ] as const) {
      const file = join(tmp(), name);
      writeFileSync(file, `${JSON.stringify(last)}\n`);
      const r = await record(["--source", "sim", "--blocks", "3", "--out", file, "--append"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `gasdigest record: cannot append to ${file}: the simulator cannot go on after its last block (height ${last.height}) (${issue}`,
      );
      expect(lines(file)).toEqual([JSON.stringify(last)]);
    }
  });

  it("--append to a file it cannot read (a directory) says so, without a stack", async () => {
    const dir = tmp();
    const r = await record(["--source", "sim", "--blocks", "2", "--out", dir, "--append"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^gasdigest record: cannot read ${dir} \\(.*EISDIR`));
    expect(r.stderr).not.toContain("    at ");
    // Without --append (and with --force) a directory is not "a file that exists".
    for (const flags of [[], ["--force"]]) {
      const w = await record(["--source", "sim", "--blocks", "2", "--out", dir, ...flags]);
      expect(w.code).toBe(1);
      expect(w.stderr).toBe(`gasdigest record: cannot write ${dir} (it is a directory)\n`);
    }
  });

  it("finds the last line of a file much larger than its read step", async () => {
    const file = join(tmp(), "big.ndjson");
    expect((await record(["--source", "sim", "--blocks", "1200", "--out", file])).code).toBe(0);
    expect(readFileSync(file).length).toBeGreaterThan(200_000);
    expect(
      (await record(["--source", "sim", "--blocks", "1", "--out", file, "--append"])).code,
    ).toBe(0);
    expect(heights(file).at(-1)).toBe(1201n);
  });

  it("explains unusable arguments and an existing output file", async () => {
    const file = join(tmp(), "x.ndjson");
    const run = (argv: string[]) => runCli(["record", ...argv]);
    const cases: [string[], string][] = [
      [
        ["--blocks", "5", "--out", file],
        "--source aptos:URL, --source redis://HOST:PORT or --source sim is required",
      ],
      [
        ["--source", "node", "--blocks", "5", "--out", file],
        '--source must be aptos:URL, redis://HOST:PORT or sim (got "node")',
      ],
      [["--source", "sim", "--out", file], "--blocks N is required"],
      [
        ["--source", "sim", "--blocks", "0", "--out", file],
        '--blocks must be a whole number from 1 to 9007199254740991 (got "0")',
      ],
      [["--source", "sim", "--blocks", "5"], "--out FILE.ndjson is required"],
      [
        ["--source", `aptos:${NO_NODE}`, "--blocks", "5", "--out", file, "--seed", "3"],
        "--seed applies to --source sim only",
      ],
      [
        ["--source", "sim", "--blocks", "5", "--out", file, "--append", "--force"],
        "--append and --force exclude each other",
      ],
      [
        ["--source", "sim", "--blocks", "5", "--out", file, "--stream", "gasdigest:blocks"],
        "--stream applies to --source redis://HOST:PORT only",
      ],
    ];
    for (const [argv, message] of cases) {
      const r = await run(argv);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`gasdigest record: ${message}\n`);
      expect(r.stderr).toContain("Usage: gasdigest record");
    }
    // What the simulator refuses of --blocks is named as the flag, with the usage, and no file
    // is made (it was "invalid configuration: blocks: ...").
    const tooMany = await run(["--source", "sim", "--blocks", "9007199254740991", "--out", file]);
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toMatch(
      /^gasdigest record: --blocks must be at most \d+ for the timestamps/,
    );
    expect(tooMany.stderr).toContain("Usage: gasdigest record");
    expect(existsSync(file)).toBe(false);
    const badUrl = await run(["--source", "aptos:ftp://x", "--blocks", "5", "--out", file]);
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toContain(
      'gasdigest record: --source aptos:URL needs an http or https URL (got "ftp://x")\n',
    );

    expect((await run(["--source", "sim", "--blocks", "3", "--out", file])).code).toBe(0);
    const exists = await run(["--source", "sim", "--blocks", "3", "--out", file]);
    expect(exists.code).toBe(1);
    expect(exists.stderr).toBe(
      `gasdigest record: ${file} exists (pass --append to continue it or --force to overwrite it)\n`,
    );
    expect((await run(["--source", "sim", "--blocks", "2", "--out", file, "--force"])).code).toBe(
      0,
    );
    expect(heights(file)).toEqual([1n, 2n]);
  });
});
