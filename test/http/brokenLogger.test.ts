// A logger that throws (a log transport down, pino's serializer tripping over an error whose
// `message` getter throws) loses its lines and nothing else: the handler still answers with
// the error object, and the node server stays up.
import { afterEach, describe, expect, it } from "vitest";
import { createServer, type GasdigestServer, listen } from "../../src/adapters/node/index.js";
import type { Engine } from "../../src/core/createEngine.js";
import { createHandler } from "../../src/http/createHandler.js";
import type { HandlerLogger } from "../../src/http/types.js";
import { ESTIMATE, engineWithBlocks, errorBody } from "../adapters/contract.js";
import { exchange } from "../helpers/rawHttp.js";

/** A logger every method of which throws, counting the calls. */
function throwingLogger() {
  const calls: string[] = [];
  const at = (level: string) => () => {
    calls.push(level);
    throw new Error(`log sink down (${level})`);
  };
  const logger: HandlerLogger = {
    error: at("error"),
    warn: at("warn"),
    info: at("info"),
    debug: at("debug"),
    isLevelEnabled: () => {
      throw new Error("level check down");
    },
  };
  return { logger, calls };
}

/** An engine whose snapshot throws an error a serializer cannot read. */
function brokenEngine(): Engine {
  const engine = engineWithBlocks();
  return new Proxy(engine, {
    get(target, key) {
      if (key === "snapshot")
        return () => {
          const err = new Error("x");
          Object.defineProperty(err, "message", {
            get() {
              throw new Error("getter");
            },
          });
          throw err;
        };
      return Reflect.get(target, key);
    },
  });
}

const text = (body: Uint8Array | undefined) => Buffer.from(body ?? []).toString("utf8");

describe("a logger that throws", () => {
  it("does not turn the handler's answers into exceptions: 200 stays 200, a failure is the 500 object", () => {
    const { logger, calls } = throwingLogger();
    const ok = createHandler(engineWithBlocks(), { logger, maxStalenessMs: false });
    const res = ok({ method: "GET", url: "/v1/estimate_gas_price", headers: {} });
    expect(res.status).toBe(200);
    expect(text(res.body)).toBe(ESTIMATE);
    expect(calls).toContain("debug");

    const failing = createHandler(brokenEngine(), { logger, maxStalenessMs: false });
    const err = failing({ method: "GET", url: "/v1/estimate_gas_price", headers: {} });
    expect(err.status).toBe(500);
    expect(text(err.body)).toBe(errorBody("internal_error", "internal error"));
    expect(calls).toContain("error");
  });

  describe("behind the node server", () => {
    const started: GasdigestServer[] = [];
    afterEach(async () => {
      await Promise.all(started.splice(0).map((s) => s.shutdown()));
    });

    it("keeps the server up: a failed estimate, a malformed request, then the next request", async () => {
      const { logger } = throwingLogger();
      const server = createServer(brokenEngine(), {
        logger,
        maxStalenessMs: false,
        keepAliveTimeout: 100,
      });
      started.push(server);
      const { port } = await listen(server, { host: "127.0.0.1", port: 0 });
      const get = "GET /v1/estimate_gas_price HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
      const failed = await exchange(port, [get]);
      expect(failed.responses.map((r) => r.status)).toEqual([500]);
      expect(failed.responses[0]!.body.toString()).toBe(
        errorBody("internal_error", "internal error"),
      );
      const malformed = await exchange(port, ["BREW /v1 HTTP/1.1\r\nHost: x\r\n\r\n"]);
      expect(malformed.responses.map((r) => r.status)).toEqual([400]);
      const again = await exchange(port, [get]);
      expect(again.responses.map((r) => r.status)).toEqual([500]);
    });
  });
});
