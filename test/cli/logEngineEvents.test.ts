import { PassThrough } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { createLogLimiter } from "../../src/cli/createLogLimiter.js";
import { logEngineEvents } from "../../src/cli/logEngineEvents.js";
import { createEngine } from "../../src/core/createEngine.js";
import type { StrategyFactory } from "../../src/core/types.js";
import { block } from "../helpers/blocks.js";

/** A pino logger writing JSON lines into an array. */
function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new PassThrough();
  stream.on("data", (d: Buffer) => {
    for (const l of String(d).split("\n")) if (l) lines.push(JSON.parse(l));
  });
  const log = pino({ level: "info" }, stream);
  return { log, lines, flush: () => new Promise((r) => setImmediate(r)) };
}

/** A strategy whose every ingest throws `thrown`. */
function throwing(name: string, thrown: unknown): StrategyFactory {
  return () => ({
    name,
    ingest() {
      throw thrown;
    },
    estimate: (min) => ({ deprioritized: min, regular: min, prioritized: min }),
    reset() {},
  });
}

describe("logEngineEvents", () => {
  it("logs a strategy failure whose thrown value cannot be read, and goes on", async () => {
    // A revoked proxy: every read of it throws, pino's error serializer's included. Thrown from
    // a strategy it made `serve`'s event subscriber throw, which ended the process.
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    const engine = createEngine({
      strategy: throwing("unreadable", revoked.proxy),
      config: { skipLatestBlock: false },
    });
    const { log, lines, flush } = capture();
    const limited = createLogLimiter(log);
    const stop = logEngineEvents(engine, limited);
    engine.ingest(block(1));
    engine.ingest(block(2));
    stop();
    limited.stop();
    await flush();
    const failures = lines.filter((l) => l.msg === "strategy failed");
    expect(failures).toHaveLength(2);
    expect(failures[1]).toMatchObject({
      level: 50,
      err: "strategy unreadable failed to ingest block 2",
      details: "a thrown object that cannot be shown as text",
    });
    expect(failures[1]!.unloggable).toMatch(/revoked/);
    expect(engine.counters().strategyFailures).toBe(2);
  });

  it("logs an ordinary strategy failure with its error and the cause's stack", async () => {
    const engine = createEngine({
      strategy: throwing("thrower", new Error("boom")),
      config: { skipLatestBlock: false },
    });
    const { log, lines, flush } = capture();
    const limited = createLogLimiter(log);
    const stop = logEngineEvents(engine, limited);
    engine.ingest(block(1));
    stop();
    limited.stop();
    await flush();
    const [line] = lines.filter((l) => l.msg === "strategy failed");
    expect(line).toMatchObject({ details: "Error: boom", err: { type: "StrategyError" } });
    expect((line!.err as { stack: string }).stack).toContain("caused by: Error: boom");
    expect(line!.unloggable).toBeUndefined();
  });
});
