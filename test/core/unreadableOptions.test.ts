// Options objects are user input too: a getter or a proxy trap that throws while an option is
// read must give the library's own named error (the field, then "cannot be read"), never a raw
// error from inside validation, at every public entry that takes options.
import { createServer as createHttpServer } from "node:http";
import { describe, expect, it } from "vitest";
import { createFetchHandler } from "../../src/adapters/fetch/index.js";
import { gasdigest as koaGasdigest } from "../../src/adapters/koa/index.js";
import { createServer, listen } from "../../src/adapters/node/index.js";
import { createBacktest } from "../../src/backtest/index.js";
import { unreadableOptions } from "../../src/core/readOptions.js";
import {
  aip34,
  BaseError,
  calibrated,
  createEngine,
  createHandler,
  createSlidingDigest,
  createTDigest,
  geth,
  lastBlock,
  parseGasConfig,
  simulator,
  tdigest,
} from "../../src/index.js";
import { aptosRest, ndjsonFile, readNdjson } from "../../src/node.js";
import { redisStream, redisStreamSink } from "../../src/redis.js";

const boom = () => {
  throw new Error("boom");
};
/** `{ ...fields, [key]: <a getter that throws> }` */
function throwingAt(key: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  const o = { ...fields };
  Object.defineProperty(o, key, { enumerable: true, get: boom });
  return o;
}
/** A proxy whose every trap throws. */
const hostileProxy = new Proxy(
  {},
  { ownKeys: boom, get: boom, getOwnPropertyDescriptor: boom, has: boom },
);

/** What a call (or the promise it returns) throws: it must be one of the library's errors. */
async function thrown(f: () => unknown): Promise<{ name: string; message: string }> {
  try {
    await f();
  } catch (e) {
    expect(e, String(e)).toBeInstanceOf(BaseError);
    return { name: (e as Error).name, message: (e as Error).message };
  }
  throw new Error("expected a throw");
}

describe("unreadableOptions", () => {
  it("names the path of the first read that throws, array indices in brackets", () => {
    expect(unreadableOptions({ a: [1, { b: throwingAt("c") }] })).toEqual({
      path: "a[1].b.c",
      message: "cannot be read: Error: boom",
      code: "unreadable",
    });
    expect(unreadableOptions(hostileProxy, ["config"])?.path).toBe("config");
  });

  it("reads plain data only: class instances and functions are not looked into", () => {
    class Engine {
      get state(): never {
        return boom();
      }
    }
    expect(unreadableOptions({ engine: new Engine(), fn: boom, n: 1, s: "x" })).toBeUndefined();
  });

  it("a value whose text cannot be made is still described", () => {
    const o = Object.defineProperty({}, "x", {
      enumerable: true,
      get() {
        throw Object.create(null);
      },
    });
    expect(unreadableOptions(o)?.message).toBe(
      "cannot be read: a thrown object that cannot be shown as text",
    );
  });
});

describe("every entry that takes options names a field that cannot be read", () => {
  const engine = createEngine({ strategy: aip34() });
  const cases: [string, () => unknown, string][] = [
    ["parseGasConfig", () => parseGasConfig(throwingAt("minGasUnitPrice")), "minGasUnitPrice"],
    [
      "createEngine config",
      () => createEngine({ strategy: aip34(), config: throwingAt("buckets") }),
      "config.buckets",
    ],
    ["createEngine", () => createEngine(throwingAt("now", { strategy: aip34() }) as never), "now"],
    ["calibrated", () => calibrated({ tiers: throwingAt("regular") } as never), "tiers.regular"],
    ["geth", () => geth(throwingAt("blocks")), "blocks"],
    ["tdigest", () => tdigest(throwingAt("windowBlocks")), "windowBlocks"],
    ["lastBlock", () => lastBlock(throwingAt("multiplier")), "multiplier"],
    ["createTDigest", () => createTDigest(throwingAt("compression")), "compression"],
    [
      "createSlidingDigest",
      () => createSlidingDigest(throwingAt("windowBlocks") as never),
      "windowBlocks",
    ],
    ["simulator", () => simulator(throwingAt("seed")), "seed"],
    ["createHandler", () => createHandler(engine, throwingAt("basePath")), "basePath"],
    ["createFetchHandler", () => createFetchHandler(engine, throwingAt("prefix")), "prefix"],
    ["koa", () => koaGasdigest(engine, throwingAt("basePath")), "basePath"],
    ["createServer", () => createServer(engine, throwingAt("maxConnections")), "maxConnections"],
    ["listen", () => listen(createHttpServer(), throwingAt("port")), "port"],
    ["aptosRest", () => aptosRest("http://127.0.0.1:1", throwingAt("timeoutMs")), "timeoutMs"],
    ["ndjsonFile", () => ndjsonFile("x.ndjson", throwingAt("speed")), "speed"],
    ["readNdjson", () => readNdjson("x.ndjson", throwingAt("maxLineBytes")).next(), "maxLineBytes"],
    ["redisStream", () => redisStream("redis://127.0.0.1:1", throwingAt("stream")), "stream"],
    [
      "redisStreamSink",
      () => redisStreamSink("redis://127.0.0.1:1", throwingAt("stream")),
      "stream",
    ],
    [
      "createBacktest",
      () => createBacktest({ strategies: [throwingAt("name", { strategy: aip34() })] } as never),
      "strategies[0].name",
    ],
  ];
  for (const [name, call, path] of cases)
    it(name, async () => {
      const { message } = await thrown(call);
      expect(message).toContain(`${path}`);
      expect(message).toContain("cannot be read: Error: boom");
    });

  it("a proxy whose traps all throw is refused by name too", async () => {
    for (const call of [
      () => parseGasConfig(hostileProxy),
      () => createEngine(hostileProxy as never),
      () => calibrated(hostileProxy as never),
      () => createTDigest(hostileProxy),
      () => createServer(engine, hostileProxy as never),
      () => createHandler(hostileProxy as never),
    ])
      expect((await thrown(call)).name).toMatch(/InvalidConfigError|SketchError/);
  });
});
