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
  createOpenApiDocument,
  createSlidingDigest,
  createTDigest,
  geth,
  type LastBlockOptions,
  lastBlock,
  parseGasConfig,
  registerStrategy,
  resolveStrategy,
  simulator,
  tdigest,
} from "../../src/index.js";
import { createMetrics, createMetricsServer } from "../../src/metrics.js";
import { aptosRest, ndjsonFile, readNdjson } from "../../src/node.js";
import { redisStream, redisStreamSink } from "../../src/redis.js";
import { tdigestFromJSON } from "../../src/sketch/tdigestFromJSON.js";
import { noNodeUrl } from "../helpers/freePort.js";

/** A node URL nothing listens on (not port 1 or 9: Fetch "bad ports" are refused up front). */
const NO_NODE = await noNodeUrl();

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

  it("reads a sparse array by the entries it has, not by its length (2^32 - 1 in a structured clone)", () => {
    const sparse: unknown[] = [1];
    sparse.length = 2 ** 32 - 1;
    Object.defineProperty(sparse, 2 ** 31, { get: boom, enumerable: true });
    expect(unreadableOptions({ list: sparse })?.path).toBe("list[2147483648]");
    const holes: unknown[] = [];
    holes.length = 2 ** 32 - 1;
    expect(unreadableOptions({ list: holes })).toBeUndefined();
  });

  it("reads plain data only: class instances and functions are not looked into", () => {
    class Engine {
      get state(): never {
        return boom();
      }
    }
    expect(unreadableOptions({ engine: new Engine(), fn: boom, n: 1, s: "x" })).toBeUndefined();
  });

  it("reads each object once: shared and cyclic options cost one visit each", () => {
    const shared: Record<string, unknown> = { n: 1 };
    for (let i = 0; i < 30; i++) shared[`k${i}`] = shared; // 30^16 paths, one object
    expect(unreadableOptions({ a: shared, b: [shared, shared] })).toBeUndefined();
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
    ["aptosRest", () => aptosRest(NO_NODE, throwingAt("timeoutMs")), "timeoutMs"],
    ["ndjsonFile", () => ndjsonFile("x.ndjson", throwingAt("speed")), "speed"],
    ["readNdjson", () => readNdjson("x.ndjson", throwingAt("maxLineBytes")).next(), "maxLineBytes"],
    ["redisStream", () => redisStream("redis://127.0.0.1:1", throwingAt("stream")), "stream"],
    [
      "redisStreamSink",
      () => redisStreamSink("redis://127.0.0.1:1", throwingAt("stream")),
      "stream",
    ],
    ["createOpenApiDocument", () => createOpenApiDocument(throwingAt("basePath")), "basePath"],
    ["createMetrics", () => createMetrics(throwingAt("prefix")), "prefix"],
    [
      "createMetricsServer",
      () => createMetricsServer(createMetrics({ defaultMetrics: false }), throwingAt("path")),
      "path",
    ],
    [
      "tdigestFromJSON",
      () => tdigestFromJSON({ type: "tdigest", centroids: throwingAt("means") }),
      "centroids.means",
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

  it("resolveStrategy's settings", async () => {
    const { name, message } = await thrown(() =>
      resolveStrategy("tdigest", throwingAt("tdigest") as never),
    );
    expect(name).toBe("InvalidArgumentError");
    expect(message).toBe("invalid argument: settings.tdigest: cannot be read: Error: boom");
    expect(await thrown(() => resolveStrategy("aip34", hostileProxy as never))).toEqual({
      name: "InvalidArgumentError",
      message: "invalid argument: settings: cannot be read: Error: boom",
    });
  });

  it("a proxy whose traps all throw is refused by name too", async () => {
    for (const call of [
      () => parseGasConfig(hostileProxy),
      () => createEngine(hostileProxy as never),
      () => calibrated(hostileProxy as never),
      () => createTDigest(hostileProxy),
      () => createServer(engine, hostileProxy as never),
      () => createHandler(hostileProxy as never),
      () => createMetricsServer(hostileProxy as never),
    ])
      expect((await thrown(call)).name).toMatch(/InvalidConfigError|SketchError/);
  });
});

describe("the other public entries name what is wrong with their arguments", () => {
  it("registerStrategy refuses a name that is not a string and a maker that is not a function", async () => {
    const NAME_RULE =
      'must be a name of 1 to 64 letters, digits, "-", "_" or "." starting with a letter or digit, as it is written in a --strategies list and in messages';
    expect((await thrown(() => registerStrategy("" as never, 5 as never))).message).toBe(
      `invalid argument: name: ${NAME_RULE} (got ""); maker: must be a function (settings) => strategy factory (got 5)`,
    );
    // Names a --strategies list or a message could not carry: control characters, commas,
    // spaces, paths (read as module files), and any length.
    for (const name of ["\u001b[31mred", "a,b", " ", "./mine.js", "x/y", ".hidden", "x".repeat(65)])
      expect((await thrown(() => registerStrategy(name, () => aip34()))).message, name).toContain(
        `name: ${NAME_RULE} (got `,
      );
    // A built-in name is not for the taking, in any case: --strategy aip34 keeps meaning the reference.
    expect((await thrown(() => registerStrategy("aip34", () => aip34()))).message).toBe(
      'invalid argument: name: "aip34" is a built-in strategy\'s name (in any case), which --strategy aip34 must keep meaning; register yours under another name',
    );
    expect((await thrown(() => registerStrategy("AIP34", () => aip34()))).message).toContain(
      "built-in strategy's name (in any case), which --strategy aip34",
    );
    // Nothing was registered: resolving still names the known strategies.
    expect((await thrown(() => resolveStrategy(undefined as never))).message).toMatch(
      /^invalid argument: name: unknown strategy nothing \(known strategies: aip34, tdigest, geth, calibrated, last-block\)$/,
    );
    const known = "known strategies: aip34, tdigest, geth, calibrated, last-block";
    expect(() => resolveStrategy("calibrate")).toThrow(
      expect.objectContaining({
        name: "InvalidArgumentError",
        issues: [
          {
            path: "name",
            message: `unknown strategy "calibrate" (did you mean calibrated? ${known})`,
            code: "unknown_strategy",
          },
        ],
      }),
    );
  });

  it("resolveStrategy refuses settings that name no strategy instead of ignoring them", async () => {
    // A strategy's option written at the top, and a misspelt block.
    const top = await thrown(() => resolveStrategy("tdigest", { compression: 1 } as never));
    expect(top.message).toContain("settings.compression: unknown field (names no strategy");
    expect(top.message).toContain("e.g. { tdigest: { compression: 200 } }");
    expect(
      (await thrown(() => resolveStrategy("tdigest", { tdigst: { compression: 5 } } as never)))
        .message,
    ).toContain("settings.tdigst: unknown field (did you mean tdigest?)");
    // null is no settings; a key no strategy has is shown escaped.
    expect(typeof resolveStrategy("aip34", null as never)).toBe("function");
    expect(
      (await thrown(() => resolveStrategy("aip34", { "\u001b[2J": {} } as never))).message,
    ).toContain('settings["\\u001b[2J"]: unknown field');
    expect((await thrown(() => resolveStrategy("aip34", 5 as never))).message).toContain(
      "settings: must be an object of strategy blocks",
    );
    // The nested form is validated by the strategy, and a registered name is a block too.
    expect(
      (await thrown(() => resolveStrategy("tdigest", { tdigest: { compression: 1 } }))).message,
    ).toContain("tdigest.compression");
    registerStrategy("floor-test", (s) => lastBlock(s["floor-test"] as LastBlockOptions));
    expect(typeof resolveStrategy("floor-test", { "floor-test": { multiplier: 2 } })).toBe(
      "function",
    );
    // A registered maker's failures are named with its block, as a built-in's invalid options.
    registerStrategy("throws-test", (s) => {
      const k = (s["throws-test"] as { k: number }).k;
      return lastBlock({ multiplier: k.toFixed(0) as never });
    });
    expect(
      (await thrown(() => resolveStrategy("throws-test", { "throws-test": { k: "x" } } as never)))
        .message,
    ).toMatch(/^invalid configuration: throws-test: the maker of strategy "throws-test" threw: /);
    registerStrategy("five-test", () => 5 as never);
    expect((await thrown(() => resolveStrategy("five-test"))).message).toBe(
      'invalid configuration: five-test: the maker of strategy "five-test" must return a strategy factory such as aip34() (got 5)',
    );
    // An invalid option of a built-in inside a registered maker keeps its own path.
    expect(
      (
        await thrown(() =>
          resolveStrategy("floor-test", { "floor-test": { multiplier: -1 } } as never),
        )
      ).message,
    ).toContain("multiplier");
  });

  it("createOpenApiDocument applies the handler's rules to basePath and headerPrefix, and refuses other keys", async () => {
    expect(
      (
        await thrown(() =>
          createOpenApiDocument({ basePath: "v1", headerPrefix: "X Bad", x: 1 } as never),
        )
      ).message,
    ).toMatch(
      /^invalid configuration: x: unknown field \(takes basePath, headerPrefix, bcsLayout, jsonOutput, bcsOutput, estimateEnabled, maxStalenessMs, explorer\); basePath: must be a path such as "\/v1".*; headerPrefix: must hold only header-name characters/,
    );
    expect(
      (await thrown(() => createOpenApiDocument({ explorer: "yes", bcsLayout: "short" } as never)))
        .message,
    ).toMatch(/^invalid configuration: explorer: must be true or false; bcsLayout: /);
    expect(createOpenApiDocument({ basePath: "/chain/" }).servers?.[0]?.url).toBe("/chain");
    expect(createOpenApiDocument().servers?.[0]?.url).toBe("/v1");
  });

  it("readNdjson refuses a path that is not a string when called, before opening anything", () => {
    expect(() => readNdjson(5 as never)).toThrow(
      "invalid configuration: path: must be a file path (got 5)",
    );
  });
});
