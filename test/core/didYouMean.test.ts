import { describe, expect, it } from "vitest";
import { z } from "zod";
import { didYouMean } from "../../src/core/didYouMean.js";
import { fieldsAt } from "../../src/core/zodIssues.js";
import { runCli } from "../helpers/cli.js";

describe("a mistyped command or flag gets a suggestion", () => {
  it("suggests the closest name within two edits, and nothing for a word far from every name", () => {
    const flags = ["--port", "--host", "--input", "--interval-ms"];
    expect(didYouMean("--prot", flags)).toBe("--port");
    expect(didYouMean("--inptu", flags)).toBe("--input");
    expect(didYouMean("--hots", flags)).toBe("--host");
    expect(didYouMean("--xyzzy", flags)).toBeUndefined();
    // Short words need closer matches: one edit in a 2-letter word is half of it.
    expect(didYouMean("ab", ["abc"])).toBeUndefined();
    // Two edits in five letters is another word, not a typo ("--count" is no "--out").
    expect(didYouMean("--count", ["--out", "--blocks"])).toBeUndefined();
    expect(didYouMean("--cuont", ["--count"])).toBe("--count");
  });

  it("suggests the name of the same words in another case or with other separators", async () => {
    // The Aptos node's own config (node.yaml) writes its gas estimation settings in snake_case.
    const keys = ["lowBlockHistory", "minGasUnitPrice", "incorporateReorderingEffects"];
    expect(didYouMean("low_block_history", keys)).toBe("lowBlockHistory");
    expect(didYouMean("min_gas_unit_price", keys)).toBe("minGasUnitPrice");
    expect(didYouMean("incorporate_reordering_effects", keys)).toBe("incorporateReorderingEffects");
    expect(didYouMean("last_block", ["last-block", "geth"])).toBe("last-block");
    expect(didYouMean("--max_connections", ["--max-connections"])).toBe("--max-connections");
    const r = await runCli(["replay", "--input", "x.ndjson", "--max_reported", "5"]);
    expect(r.stderr.split("\n")[0]).toBe(
      "gasdigest replay: Unknown option '--max_reported' (did you mean --max-reported?)",
    );
  });

  it("suggests the plural or singular of a flag that one command names one way and another the other", async () => {
    expect(didYouMean("--strategy", ["--strategies", "--input"])).toBe("--strategies");
    expect(didYouMean("--strategies", ["--strategy"])).toBe("--strategy");
    const r = await runCli(["backtest", "--strategy", "aip34"]);
    expect(r.code).toBe(1);
    expect(r.stderr.split("\n")[0]).toBe(
      "gasdigest backtest: Unknown option '--strategy' (did you mean --strategies?)",
    );
  });

  it("the CLI says it on the error line, for a command and for a flag", async () => {
    const command = await runCli(["srve"]);
    expect(command.code).toBe(1);
    expect(command.stderr.split("\n")[0]).toBe(
      'gasdigest: unknown command "srve" (did you mean "serve"?)',
    );
    const flag = await runCli(["serve", "--prot", "8080"]);
    expect(flag.code).toBe(1);
    expect(flag.stderr.split("\n")[0]).toBe(
      "gasdigest serve: Unknown option '--prot' (did you mean --port?)",
    );
    // --help is in no usage text, but every command takes it (it got no suggestion).
    for (const command of ["serve", "replay", "publish"]) {
      const help = await runCli([command, "--hlep"]);
      expect(help.stderr.split("\n")[0]).toBe(
        `gasdigest ${command}: Unknown option '--hlep' (did you mean --help?)`,
      );
    }
    // serve and publish read --help before their flags: given a value, it is no unknown option.
    for (const command of ["serve", "publish"])
      expect((await runCli([command, "--help=1"])).stderr.split("\n")[0]).toBe(
        `gasdigest ${command}: Option '-h, --help' does not take an argument`,
      );
    const far = await runCli(["serve", "--xyzzy"]);
    expect(far.stderr.split("\n")[0]).toMatch(/^gasdigest serve: Unknown option '--xyzzy'/);
    expect(far.stderr.split("\n")[0]).not.toContain("did you mean");
  });

  it("echoes a mistyped name with its control characters written out, not sent to the terminal", async () => {
    const command = await runCli(["rep\u001b[2J"]);
    expect(command.stderr.split("\n")[0]).toBe('gasdigest: unknown command "rep\\u001b[2J"');
    const flag = await runCli(["replay", "--inp\u001b[2Jut", "x"]);
    expect(flag.stderr.split("\n")[0]).toBe("gasdigest replay: Unknown option '--inp\\u001b[2Jut'");
    const path = await runCli(["replay", "--input", "/nonexistent\u001b[2J"]);
    expect(path.code).toBe(1);
    expect(path.stderr).toContain("/nonexistent\\u001b[2J");
    for (const r of [command, flag, path]) expect(r.stderr).not.toContain("\u001b");
  });
});

describe("fieldsAt: the fields an object schema takes at a path, through wrappers", () => {
  it("walks optional, default, nonoptional, pipe, lazy and array schemas", () => {
    const inner = z.strictObject({ probability: z.number(), withinBlocks: z.int() });
    const schema = z.strictObject({
      tiers: z.strictObject({ regular: inner.optional(), prioritized: inner.nonoptional() }),
      lazy: z.lazy(() => inner),
      piped: z.strictObject({ a: z.number() }).pipe(z.strictObject({ a: z.number() })),
      list: z.array(inner).default([]),
    });
    expect(fieldsAt(schema, [])).toEqual(["tiers", "lazy", "piped", "list"]);
    expect(fieldsAt(schema, ["tiers", "regular"])).toEqual(["probability", "withinBlocks"]);
    expect(fieldsAt(schema, ["tiers", "prioritized"])).toEqual(["probability", "withinBlocks"]);
    expect(fieldsAt(schema, ["lazy"])).toEqual(["probability", "withinBlocks"]);
    expect(fieldsAt(schema, ["piped"])).toEqual(["a"]);
    expect(fieldsAt(schema, ["list", 3])).toEqual(["probability", "withinBlocks"]);
    // Where no object schema is: undefined, not a guess.
    expect(fieldsAt(schema, ["tiers", "nope"])).toBeUndefined();
    expect(fieldsAt(z.record(z.string(), inner), ["x"])).toBeUndefined();
  });
});
