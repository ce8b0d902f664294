import { PassThrough } from "node:stream";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { UsageError } from "../../src/cli/io.js";
import { startServe } from "../../src/cli/serve.js";
import type { Engine } from "../../src/core/createEngine.js";
import { InvalidConfigError } from "../../src/core/errors.js";
import { noNodeUrl } from "../helpers/freePort.js";

/** A node URL nothing listens on (not port 1 or 9: Fetch "bad ports" are refused up front). */
const NO_NODE = await noNodeUrl();

const made = vi.hoisted(() => [] as Engine[]);
vi.mock("../../src/core/createEngine.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../src/core/createEngine.js")>();
  return {
    ...actual,
    createEngine: (...args: Parameters<typeof actual.createEngine>) => {
      const engine = actual.createEngine(...args);
      made.push(engine);
      return engine;
    },
  };
});

const io = () => ({ stdout: new PassThrough(), stderr: new PassThrough(), isTTY: false });

beforeEach(() => {
  made.length = 0;
});

describe("startServe never leaves an engine open", () => {
  it("rejects bad numeric flags before any engine is made", async () => {
    for (const argv of [
      ["--seed", "x"],
      ["--interval-ms", "1.5"],
      ["--max-staleness-ms", "soon"],
      ["--source", `aptos:${NO_NODE}/v1`, "--poll-ms", "0"],
    ]) {
      await expect(startServe(["--port", "0", ...argv], io()), argv.join(" ")).rejects.toThrow(
        "must be a whole number",
      );
    }
    expect(made).toEqual([]);
  });

  it("closes the engine when the server cannot be made (bad --base-path)", async () => {
    const error = await startServe(["--port", "0", "--base-path", "no-slash"], io()).then(
      () => undefined,
      (e: unknown) => e,
    );
    // Reported by the flag's name; the library's error, naming the option, is its cause.
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(/^--base-path must be a path such as/);
    const cause = (error as UsageError).cause as InvalidConfigError;
    expect(cause).toBeInstanceOf(InvalidConfigError);
    expect(cause.issues.map((i) => i.path)).toEqual(["basePath"]);
    expect(made).toHaveLength(1);
    expect(() => made[0]!.ingest({} as never)).toThrow("the engine is closed");
  });
});
