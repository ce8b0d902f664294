import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_CONFIG_BYTES } from "../../src/cli/loadConfigFile.js";
import { runCli } from "../helpers/cli.js";

const HAND = join(import.meta.dirname, "..", "fixtures", "hand.ndjson");
const dir = mkdtempSync(join(tmpdir(), "gasdigest-configfile-"));
const replay = (config: string) => runCli(["replay", "--input", HAND, "--config", config]);

/** What `replay` says of a config file holding `json` (written as `name`), refused with exit 1. */
async function refused(name: string, json: string): Promise<string> {
  const file = join(dir, name);
  writeFileSync(file, json);
  const r = await replay(file);
  expect(r.code).toBe(1);
  return r.stderr;
}

describe("--config FILE", () => {
  it("a key given twice is an error naming it (JSON.parse would keep the last value unread)", async () => {
    const stderr = await refused(
      "twice.json",
      '{"lowBlockHistory": 200000, "lowBlockHistory": 2, "calibrated": {"learningRate": 0.1, "learningRate": 0.2}}',
    );
    expect(stderr).toContain(
      "lowBlockHistory: is given twice in the file (only the last would count); give it once",
    );
    expect(stderr).toContain("calibrated.learningRate: is given twice in the file");
  });

  it("a key given twice is listed with the file's other problems, not instead of them", async () => {
    const stderr = await refused(
      "twiceplus.json",
      '{"lowBlockHistory": 1, "lowBlockHistory": 2, "nope": 1, "geth": {"blocks": 0}}',
    );
    expect(stderr).toContain("lowBlockHistory: is given twice in the file");
    expect(stderr).toContain("nope:");
    expect(stderr).toContain("geth.blocks:");
  });

  it("lists at most 20 problems, then one count of the others, however many blocks hold them", async () => {
    // Each part (the settings, each strategy block, the keys given twice) was cut to 20 on its
    // own and the parts joined: 80 problems listed, with a count in the middle of the list.
    const keys = (prefix: string) =>
      Array.from({ length: 25 }, (_, i) => `"${prefix}${i}": 1`).join(", ");
    const stderr = await refused(
      "many.json",
      `{${keys("k")}, "calibrated": {${keys("c")}}, "tdigest": {${keys("t")}}, "geth": {"blocks": 0}}`,
    );
    const listed = stderr.split("\n").filter((l) => l.startsWith("  "));
    expect(listed).toHaveLength(21);
    expect(listed[20]).toBe("  and 56 more issues (not listed)");
    // Keys given twice, and the file's other problems.
    const twice = await refused(
      "manytwice.json",
      `{${Array.from({ length: 25 }, () => '"a": 1').join(", ")}}`,
    );
    const lines = twice.split("\n").filter((l) => l.startsWith("  "));
    expect(lines).toHaveLength(21);
    expect(lines[0]).toBe(
      "  a: is given twice in the file (only the last would count); give it once",
    );
    expect(lines[20]).toBe("  and 1 more issue (not listed)");
  });

  it("an integer too long for a JSON number is said to be too large, not to be no whole number", async () => {
    // Kept exact for the u64 fields, such a number reaches the others as its digits: they said
    // "must be a whole number of heights" of a whole number.
    const stderr = await refused(
      "huge.json",
      '{"maxHeightJump": 18446744073709551615, "fullBlockTxns": 99999999999999999999, "geth": {"blocks": 99999999999999999999}, "calibrated": {"anchorBlocks": 99999999999999999999}}',
    );
    expect(stderr).toContain(
      "maxHeightJump: must be a whole number of heights, got 18446744073709551615, too large",
    );
    expect(stderr).toContain(
      "fullBlockTxns: must be a whole number of transactions, got 99999999999999999999, too large",
    );
    expect(stderr).toContain(
      "geth.blocks: must be a whole number of blocks, got 99999999999999999999, too large",
    );
    expect(stderr).toContain(
      "calibrated.anchorBlocks: must be a whole number of blocks from 100 to 10,000,000, got 99999999999999999999, too large",
    );
  });

  it("a fractional setting given such an integer says too large, not a string the file does not hold", async () => {
    const stderr = await refused(
      "hugefraction.json",
      '{"last-block": {"multiplier": 18446744073709551615}, "calibrated": {"learningRate": 99999999999999999999, "tiers": {"regular": {"probability": -99999999999999999999}}}}',
    );
    expect(stderr).toContain(
      "last-block.multiplier: must be a number from 1 to 1000000, got 18446744073709551615, too large",
    );
    expect(stderr).toContain(
      "calibrated.learningRate: must be a number above 0 and at most 0.5, got 99999999999999999999, too large",
    );
    expect(stderr).toContain(
      "calibrated.tiers.regular.probability: must be a probability above 0 and below 1, got -99999999999999999999, too small",
    );
    expect(stderr).not.toContain('"');
  });

  it("names a typo'd key with the key it likely meant, and a switch or an override by the values they take", async () => {
    const stderr = await refused(
      "words.json",
      '{"lowBlocHistory": 5, "skipLatestBlock": "false", "enabled": null, "staticOverride": []}',
    );
    expect(stderr).toContain("lowBlocHistory: unknown field (did you mean lowBlockHistory?)");
    // A node's config (node.yaml) names its settings in snake_case.
    const node = await refused("node.json", '{"low_block_history": 5, "full_block_txns": 200}');
    expect(node).toContain("low_block_history: unknown field (did you mean lowBlockHistory?)");
    expect(node).toContain("full_block_txns: unknown field (did you mean fullBlockTxns?)");
    // A strategy's option at the top level is named with the block it belongs in.
    const top = await refused("top.json", '{"multiplier": 2, "learningRate": 0.1, "zzzz": 1}');
    expect(top).toContain(
      'multiplier: unknown field (an option of the "last-block" block: {"last-block": {"multiplier": ...}})',
    );
    expect(top).toContain(
      'learningRate: unknown field (an option of the "calibrated" block: {"calibrated": {"learningRate": ...}})',
    );
    expect(top).toContain("zzzz: unknown field\n");
    // Inside a strategy block too, at any depth; a key close to none is only named.
    const nested = await refused(
      "nested.json",
      '{"calibrated": {"tierz": {}, "tiers": {"regullar": {}, "regular": {"probabilty": 0.9}}, "zzzz": 1}}',
    );
    expect(nested).toContain("calibrated.tierz: unknown field (did you mean tiers?)");
    expect(nested).toContain("calibrated.tiers.regullar: unknown field (did you mean regular?)");
    expect(nested).toContain(
      "calibrated.tiers.regular.probabilty: unknown field (did you mean probability?)",
    );
    expect(nested).toContain("calibrated.zzzz: unknown field\n");
    expect(stderr).toContain('skipLatestBlock: must be true or false, got "false"');
    expect(stderr).toContain("enabled: must be true or false, got null");
    expect(stderr).toContain(
      "staticOverride: must be an object of three prices (low, market, aggressive; or deprioritized, regular, prioritized), got an array",
    );
  });

  it("invalid JSON whose parser names no position is named by line and column all the same", async () => {
    const cases: [string, string][] = [
      ['{\n  "lowBlockHistory": 5,\n  "x": \n}\n', "(line 4, column 1)"],
      ['{"lowBlockHistory": tru}', "(line 1, column 21)"],
      ["", "(line 1, column 1)"],
      ['{\n  "a": NaN\n}', "(line 2, column 8)"],
    ];
    for (const [json, place] of cases) {
      const file = join(dir, "noposition.json");
      writeFileSync(file, json);
      const r = await replay(file);
      expect(r.code, json).toBe(1);
      expect(r.stderr, json).toContain(`config file ${file} is not valid JSON`);
      expect(r.stderr.trimEnd().endsWith(`${place})`), r.stderr).toBe(true);
    }
  });

  it("a file of objects or arrays nested by the million is refused before it is parsed", async () => {
    // 4 million nested arrays (8 MB, under the byte cap) took seconds and a gigabyte of memory.
    const file = join(dir, "nested.json");
    writeFileSync(file, `${"[".repeat(4_000_000)}${"]".repeat(4_000_000)}`);
    const r = await replay(file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `config file ${file} holds more than 10000 objects or arrays (a config holds a few dozen)`,
    );
    // A long buckets list is one array.
    const buckets = join(dir, "buckets.json");
    const list = Array.from({ length: 20_000 }, (_, i) => 100 + i);
    writeFileSync(buckets, JSON.stringify({ buckets: list, calibrated: {} }));
    expect(await replay(buckets)).toMatchObject({ code: 0 });
  });

  it("invalid JSON (a trailing comma: plain JSON only) is named by line and column", async () => {
    const file = join(dir, "comma.json");
    writeFileSync(file, '{\n  "lowBlockHistory": 10,\n}\n');
    const r = await replay(file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`config file ${file} is not valid JSON`);
    expect(r.stderr).toContain("at position 27 (line 3, column 1)");
    // Said once, in one form on every Node (V8 of Node 22 and later adds "(line 3 column 1)").
    expect(r.stderr).not.toContain("line 3 column 1");
  });

  it("a strategy block that is not an object (null read as the defaults) is refused by name", async () => {
    const file = join(dir, "blocks.json");
    writeFileSync(file, '{"calibrated": null, "tdigest": 5, "geth": []}');
    const r = await replay(file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "calibrated: must be an object of calibrated options ({} for the defaults), got null",
    );
    expect(r.stderr).toContain(
      "tdigest: must be an object of tdigest options ({} for the defaults), got 5",
    );
    expect(r.stderr).toContain(
      "geth: must be an object of geth options ({} for the defaults), got an array",
    );
    writeFileSync(file, '{"calibrated": {}}');
    expect((await replay(file)).code).toBe(0);
  });

  it("a tdigest window too large for the file's settings is refused by its block, whichever strategy runs", async () => {
    // The window's bound needs the block and the histories together: it was checked only when
    // tdigest itself was made (a file `--strategy aip34` took), named without its block.
    const stderr = await refused(
      "window.json",
      '{"aggressiveBlockHistory": 100000, "tdigest": {"exactUpTo": 1000000}}',
    );
    expect(stderr).toContain(
      "tdigest.tiers.prioritized.windowBlocks: a window of 100000 blocks (exactUpTo 1000000, chunks 32, compression 500) may hold 50101002 centroids",
    );
    const file = join(dir, "window.json");
    const r = await runCli(["replay", "--input", HAND, "--config", file, "--strategy", "tdigest"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("tdigest.tiers.prioritized.windowBlocks: a window of 100000");
    // A file whose own settings are wrong lists those, not what a strategy made of them.
    writeFileSync(file, '{"aggressiveBlockHistory": 0, "tdigest": {"exactUpTo": 1000000}}');
    const bad = await replay(file);
    expect(bad.stderr).toContain("aggressiveBlockHistory: must be at least 1");
    expect(bad.stderr).not.toContain("windowBlocks");
  });

  it("an empty value (an unset shell variable) is a usage error, not the default settings", async () => {
    for (const args of [
      ["replay", "--input", HAND, "--config", ""],
      ["backtest", "--input", HAND, "--config="],
      ["stats", "--input", HAND, "--config", ""],
      ["stats", "--input", HAND, "--compare", ""],
    ]) {
      const r = await runCli(args);
      expect({ args, code: r.code }).toEqual({ args, code: 1 });
      expect(r.stderr.split("\n")[0]).toMatch(
        /: --(config|compare) must name a file \(got an empty value\)$/,
      );
      expect(r.stdout).toBe("");
    }
  });

  it("refuses a directory and a device by name, before reading them", async () => {
    const cases: [string, string][] = [
      [dir, "a directory"],
      ["/dev/null", "a character device"],
    ];
    for (const [path, kind] of cases) {
      const r = await replay(path);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe(
        `gasdigest replay: config file ${path} is not a regular file or a pipe (it is ${kind})\n`,
      );
    }
  });

  it("reads a pipe: a FIFO, and /dev/stdin under `cat c.json |` (the built binary)", async () => {
    const fifo = join(dir, "fifo.json");
    execFileSync("mkfifo", [fifo]);
    const [r] = await Promise.all([
      replay(fifo),
      writeFile(fifo, '{"calibrated": {"learningRate": 0.7}}'),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("calibrated.learningRate: must be a number above 0 and at most 0.5");
    // A shell's pipe (node's own child stdio is a socket, which /dev/stdin cannot be opened as).
    const bin = join(import.meta.dirname, "..", "..", "bin", "gasdigest.js");
    const piped = (json: string) =>
      spawnSync(
        "bash",
        [
          "-c",
          `printf '%s' '${json}' | "${process.execPath}" "${bin}" replay --input "${HAND}" --config /dev/stdin`,
        ],
        { encoding: "utf8" },
      );
    const good = piped('{"lowBlockHistory": 5}');
    expect(good.stderr).toBe("");
    expect(good.status).toBe(0);
    const bad = piped('{"lowBlockHistory": 0}');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("lowBlockHistory:");
  });

  it("reads /dev/stdin that is a socket, as a Node parent gives it (the built binary)", () => {
    // Node's child stdio (child_process, execa, zx) is a socket pair, which Linux refuses to
    // open by its path: --config /dev/stdin and --input /dev/stdin failed under a Node parent.
    const bin = join(import.meta.dirname, "..", "..", "bin", "gasdigest.js");
    const run = (argv: string[], input: string) =>
      spawnSync(process.execPath, [bin, ...argv], { input, encoding: "utf8" });
    const good = run(
      ["replay", "--input", HAND, "--config", "/dev/stdin"],
      '{"lowBlockHistory": 5}',
    );
    expect(good.stderr).toBe("");
    expect(good.status).toBe(0);
    const bad = run(
      ["replay", "--input", HAND, "--config", "/dev/stdin"],
      '{"lowBlockHistory": 0}',
    );
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("lowBlockHistory:");
    const history = readFileSync(HAND, "utf8");
    const fromFile = run(["replay", "--input", HAND], "");
    const fromStdin = run(["replay", "--input", "/dev/stdin"], history);
    expect(fromStdin.stderr).toBe("");
    expect(fromStdin.status).toBe(0);
    expect(fromStdin.stdout).toBe(fromFile.stdout);
    expect(fromStdin.stdout).not.toBe("");
  });

  it("reads a file that starts with a byte order mark (as editors on Windows save it)", async () => {
    const json = '{ "lowBlockHistory": 5 }';
    const plain = join(dir, "plain.json");
    const marked = join(dir, "marked.json");
    writeFileSync(plain, json);
    writeFileSync(marked, `\uFEFF${json}`);
    const withMark = await replay(marked);
    expect(withMark.stderr).toBe("");
    expect(withMark.code).toBe(0);
    expect(withMark.stdout).toBe((await replay(plain)).stdout);
  });

  it("refuses a file larger than 16 MiB by its size; one of exactly 16 MiB is read", async () => {
    expect(MAX_CONFIG_BYTES).toBe(16 * 1024 * 1024);
    const big = join(dir, "big.json");
    writeFileSync(big, "{}");
    truncateSync(big, MAX_CONFIG_BYTES + 1);
    const r = await replay(big);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `gasdigest replay: config file ${big} is larger than 16777216 bytes (16 MiB) (it has 16777217 bytes; a config file is a few hundred bytes)\n`,
    );
    const fits = join(dir, "fits.json");
    const json = '{ "lowBlockHistory": 5 }';
    writeFileSync(fits, json + " ".repeat(MAX_CONFIG_BYTES - json.length));
    expect((await replay(fits)).code).toBe(0);
  });
});
