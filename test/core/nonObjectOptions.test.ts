import { describe, expect, it } from "vitest";
import { InvalidBlockSampleError, InvalidConfigError } from "../../src/core/errors.js";
import {
  aip34,
  calibrated,
  createEngine,
  geth,
  parseGasConfig,
  pushSource,
  simulateBlocks,
  simulator,
} from "../../src/index.js";
import { redisStreamTop } from "../../src/redis.js";
import { thrown } from "../helpers/thrown.js";

describe("arguments that are not objects are named, never a raw TypeError", () => {
  it("options and config: '<name>: must be an object (got ...)'", () => {
    const cases: [() => unknown, string][] = [
      [() => simulator(5 as never), "options: must be an object (got 5)"],
      [() => simulator(1n as never), "options: must be an object (got 1)"],
      [() => simulateBlocks("spike" as never), 'options: must be an object (got "spike")'],
      [() => simulator([] as never), "options: must be an object (got an array of 0 items)"],
      [() => calibrated("x" as never), 'options: must be an object (got "x")'],
      [() => geth(true as never), "options: must be an object (got true)"],
      [() => parseGasConfig("x"), 'config: must be an object (got "x")'],
      [
        () => createEngine({ strategy: aip34(), config: 5 as never }),
        "config: must be an object (got 5)",
      ],
    ];
    for (const [call, message] of cases) {
      const e = thrown(call);
      expect(e).toBeInstanceOf(InvalidConfigError);
      expect((e as Error).message).toBe(`invalid configuration: ${message}`);
    }
    // null and undefined still mean "the defaults".
    expect(() => simulator(null as never)).not.toThrow();
    expect(parseGasConfig(undefined).minGasUnitPrice).toBe(100n);
  });

  it("a block that is not an object says what a block is", () => {
    const engine = createEngine({ strategy: aip34() });
    const push = pushSource();
    for (const [call, got] of [
      [() => engine.ingest(null as never), "null"],
      [() => push.push(5 as never), "5"],
      [() => engine.ingest([] as never), "an array of 0 items"],
    ] as const) {
      const e = thrown(call);
      expect(e).toBeInstanceOf(InvalidBlockSampleError);
      expect((e as Error).message).toBe(
        `invalid block sample: must be an object of block fields (height, epoch, gas_unit_prices, ...), got ${got}`,
      );
    }
    engine.close();
  });

  it("redisStreamTop validates its options before connecting", async () => {
    await expect(redisStreamTop("redis://127.0.0.1:1", 5 as never)).rejects.toThrow(
      "invalid configuration: options: must be an object (got 5)",
    );
    await expect(redisStreamTop("nope://x", { stream: "", timeoutMs: 0 })).rejects.toMatchObject({
      name: "InvalidConfigError",
      issues: [
        expect.objectContaining({ path: "url" }),
        expect.objectContaining({ path: "stream", message: "must not be empty" }),
        expect.objectContaining({ path: "timeoutMs" }),
      ],
    });
    // null reads as the defaults: nothing listens on port 1, so a connection error, by name.
    await expect(redisStreamTop("redis://127.0.0.1:1", null as never)).rejects.toMatchObject({
      name: "RedisFeedError",
    });
  });
});
