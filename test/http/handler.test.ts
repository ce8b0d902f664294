import { of } from "rxjs";
import { describe, expect, it } from "vitest";
import type { StrategyFactory } from "../../src/core/types.js";
import { createHandler } from "../../src/http/createHandler.js";
import { block } from "../helpers/blocks.js";
import { chainHeadersAfter3, errorBody, hex, recordingLogger, setup, text } from "./helpers.js";

const override = { staticOverride: { low: "100", market: "150", aggressive: "300" } };
const ESTIMATE_100_150_300 =
  '{"deprioritized_gas_estimate":100,"gas_estimate":150,"prioritized_gas_estimate":300}';

const boom: StrategyFactory = () => ({
  name: "boom",
  ingest() {},
  estimate() {
    throw new Error("secret detail at /home/op/strategy.ts:12");
  },
  reset() {},
});

describe("GET /v1/estimate_gas_price", () => {
  it("answers the estimate as exact JSON with every header of a 200", () => {
    const s = setup({}, { config: override });
    s.blocks(1, 3);
    const res = s.get("/v1/estimate_gas_price");
    expect(res.status).toBe(200);
    expect(text(res)).toBe(ESTIMATE_100_150_300);
    expect(res.headers).toEqual({
      "X-Content-Type-Options": "nosniff",
      "Access-Control-Allow-Origin": "*",
      "Access-Control-Expose-Headers":
        "X-Aptos-Chain-Id, X-Aptos-Ledger-Version, X-Aptos-Ledger-Oldest-Version, X-Aptos-Ledger-TimestampUsec, X-Aptos-Epoch, X-Aptos-Block-Height, X-Aptos-Oldest-Block-Height",
      ...chainHeadersAfter3(),
      "Cache-Control": "no-store",
      Vary: "Accept",
      "Content-Type": "application/json",
      "Content-Length": String(ESTIMATE_100_150_300.length),
    });
  });

  it("computes the aip34 estimate of the ingested chain (idle: 100/100/150; full of 100: 150/150/300)", () => {
    const idle = setup();
    idle.blocks(1, 5, { gas_unit_prices: ["100", "120"] });
    expect(text(idle.get("/v1/estimate_gas_price"))).toBe(
      '{"deprioritized_gas_estimate":100,"gas_estimate":100,"prioritized_gas_estimate":150}',
    );
    const full = setup();
    full.blocks(1, 5, { gas_unit_prices: Array.from({ length: 250 }, () => "100") });
    expect(text(full.get("/v1/estimate_gas_price"))).toBe(
      '{"deprioritized_gas_estimate":150,"gas_estimate":150,"prioritized_gas_estimate":300}',
    );
  });

  it("writes u64 values above 2^53 exactly (no float rounding)", () => {
    const big = {
      low: "9007199254740993",
      market: "12345678901234567891",
      aggressive: "18446744073709551615",
    };
    const s = setup({}, { config: { staticOverride: big } });
    s.blocks(1, 1);
    expect(text(s.get("/v1/estimate_gas_price"))).toBe(
      '{"deprioritized_gas_estimate":9007199254740993,"gas_estimate":12345678901234567891,"prioritized_gas_estimate":18446744073709551615}',
    );
  });

  it("answers BCS (Option<u64>, u64, Option<u64>) when Accept prefers application/x-bcs: 26 bytes", () => {
    const s = setup({}, { config: override });
    s.blocks(1, 3);
    const res = s.get("/v1/estimate_gas_price", { accept: "application/x-bcs" });
    expect(res.status).toBe(200);
    expect(res.headers["Content-Type"]).toBe("application/x-bcs");
    expect(res.headers["Content-Length"]).toBe("26");
    expect(res.headers["X-Aptos-Block-Height"]).toBe("3");
    expect(hex(res)).toBe(
      "01" + "6400000000000000" + "9600000000000000" + "01" + "2c01000000000000",
    );
  });

  it('sends only the 8-byte gas_estimate with bcsLayout "gas_estimate_only"', () => {
    const s = setup({ bcsLayout: "gas_estimate_only" }, { config: override });
    s.blocks(1, 1);
    const res = s.get("/v1/estimate_gas_price", { accept: "application/x-bcs" });
    expect(hex(res)).toBe("9600000000000000");
    expect(res.headers["Content-Length"]).toBe("8");
  });

  it.each([
    [undefined, "application/json"],
    ["*/*", "application/json"],
    ["text/html", "application/json"],
    ["application/json", "application/json"],
    ["application/x-bcs", "application/x-bcs"],
    ["APPLICATION/X-BCS", "application/x-bcs"],
    ["application/x-bcs, application/json", "application/x-bcs"],
    ["application/json, application/x-bcs", "application/json"],
    ["application/json;q=0.5, application/x-bcs", "application/x-bcs"],
    ["application/x-bcs;q=0.8, application/json;q=0.9", "application/json"],
    ["application/x-bcs;q=0.9, application/json;q=0.9", "application/x-bcs"],
    ["application/x-bcs;q=0", "application/json"],
    ["text/html, application/x-bcs;q=0.1", "application/x-bcs"],
    ["application/x-bcs ; q=1 ; foo=bar, */*;q=0.1", "application/x-bcs"],
    // A malformed weight counts as 1, an empty one included (it used to read as 0).
    ["application/x-bcs;q=", "application/x-bcs"],
    ["application/x-bcs;q=2", "application/x-bcs"],
    ["application/x-bcs;q=0x0", "application/x-bcs"],
    ["application/x-bcs;q=0.0001", "application/x-bcs"],
    ["application/x-bcs;q=0.000", "application/json"],
    // A quoted parameter value may hold "," and ";" (RFC 9110 §5.6.4): it splits no entry, and
    // hides no weight (all but the last used to negotiate BCS).
    ['application/x-bcs;foo="a,b";q=0.1, application/json;q=0.5', "application/json"],
    ['text/html;foo="a, application/x-bcs;q=1", application/json;q=0.5', "application/json"],
    ['application/x-bcs;foo="a;q=1";q=0.1, application/json;q=0.5', "application/json"],
    ['application/x-bcs;foo="a\\",b";q=0.1, application/json;q=0.5', "application/json"],
    ['text/html;foo="a,b", application/x-bcs', "application/x-bcs"],
  ])("negotiates Accept %j to %s (never 406)", (accept, type) => {
    const s = setup({}, { config: override });
    s.blocks(1, 1);
    const res = s.get("/v1/estimate_gas_price", accept === undefined ? {} : { accept });
    expect(res.status).toBe(200);
    expect(res.headers["Content-Type"]).toBe(type);
  });

  it("joins repeated Accept headers", () => {
    const s = setup({}, { config: override });
    s.blocks(1, 1);
    expect(
      s.get("/v1/estimate_gas_price", { accept: ["text/html", "application/x-bcs"] }).headers[
        "Content-Type"
      ],
    ).toBe("application/x-bcs");
  });

  it("answers HEAD with the same headers (Content-Length included) and no body", () => {
    const s = setup({}, { config: override });
    s.blocks(1, 3);
    for (const accept of ["application/json", "application/x-bcs"]) {
      const get = s.get("/v1/estimate_gas_price", { accept });
      const head = s.get("/v1/estimate_gas_price", { accept }, "HEAD");
      expect(head.status).toBe(200);
      expect(head.body).toBeUndefined();
      expect(head.headers).toEqual(get.headers);
    }
  });

  it("ignores unknown query parameters", () => {
    const s = setup({}, { config: override });
    s.blocks(1, 1);
    expect(text(s.get("/v1/estimate_gas_price?foo=bar&x"))).toBe(ESTIMATE_100_150_300);
  });

  it("encodes once per snapshot: requests share the body and headers until the next block", () => {
    const s = setup();
    s.blocks(1, 3);
    const a = s.get("/v1/estimate_gas_price");
    const b = s.get("/v1/estimate_gas_price");
    expect(b.body).toBe(a.body);
    expect(b.headers).toBe(a.headers);
    expect(s.get("/v1/estimate_gas_price", {}, "HEAD").headers).toBe(a.headers);
    const bcs1 = s.get("/v1/estimate_gas_price", { accept: "application/x-bcs" });
    expect(s.get("/v1/estimate_gas_price", { accept: "application/x-bcs" }).body).toBe(bcs1.body);
    s.blocks(4, 4);
    const c = s.get("/v1/estimate_gas_price");
    expect(c.body).not.toBe(a.body);
    expect(c.headers["X-Aptos-Block-Height"]).toBe("4");
    expect(s.get("/v1/estimate_gas_price").body).toBe(c.body);
  });
});

describe("estimate errors (status table of interface.md)", () => {
  it("503 internal_error before the first block, without chain-state headers", () => {
    const s = setup();
    for (const url of ["/v1/estimate_gas_price", "/v1", "/v1/-/healthy"]) {
      const res = s.get(url);
      expect(res.status).toBe(503);
      expect(text(res)).toBe(errorBody("internal_error", "no block has been ingested yet"));
      expect(res.headers["Content-Type"]).toBe("application/json");
      expect(res.headers["Cache-Control"]).toBe("no-store");
      expect(res.headers["X-Aptos-Chain-Id"]).toBeUndefined();
    }
  });

  it("503 health_check_failed when the newest block arrived more than maxStalenessMs ago", () => {
    const s = setup();
    s.blocks(1, 3);
    s.advance(30_000);
    expect(s.get("/v1/estimate_gas_price").status).toBe(200);
    s.advance(1);
    const res = s.get("/v1/estimate_gas_price");
    expect(res.status).toBe(503);
    expect(text(res)).toBe(
      errorBody("health_check_failed", "the newest block arrived more than 30000 ms ago"),
    );
    expect(res.headers).toMatchObject(chainHeadersAfter3());
    s.blocks(4, 4);
    expect(s.get("/v1/estimate_gas_price").status).toBe(200);
  });

  it("honours a custom maxStalenessMs, and false never goes stale", () => {
    const short = setup({ maxStalenessMs: 1000 });
    short.blocks(1, 1);
    short.advance(1001);
    expect(text(short.get("/v1/estimate_gas_price"))).toBe(
      errorBody("health_check_failed", "the newest block arrived more than 1000 ms ago"),
    );
    const never = setup({ maxStalenessMs: false });
    never.blocks(1, 1);
    never.advance(365 * 86_400_000);
    expect(never.get("/v1/estimate_gas_price").status).toBe(200);
  });

  it("a completed source (a finished file) never goes stale", () => {
    const s = setup();
    s.engine.connect(of(block(1), block(2)));
    expect(s.engine.sourcesCompleted).toBe(true);
    s.advance(10 * 60_000);
    expect(s.get("/v1/estimate_gas_price").status).toBe(200);
    expect(s.get("/v1/-/healthy").status).toBe(200);
  });

  it("500 internal_error with a generic message when the strategy fails; details only in the log, once", () => {
    const { logger, lines } = recordingLogger();
    const s = setup({ logger }, { strategy: boom });
    s.blocks(1, 3);
    const res = s.get("/v1/estimate_gas_price");
    expect(res.status).toBe(500);
    expect(text(res)).toBe(
      errorBody("internal_error", "internal error: the estimate is unavailable"),
    );
    expect(text(res)).not.toContain("secret");
    expect(res.headers).toMatchObject(chainHeadersAfter3());
    s.get("/v1/estimate_gas_price");
    const errors = lines.filter((l) => l.level === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]!.msg).toBe("the strategy failed: the estimate answers 500");
    expect(String((errors[0]!.obj.err as Error).message)).toContain("secret detail");
    expect(s.get("/v1").status).toBe(200);
  });

  it("403 api_disabled when the endpoint is disabled", () => {
    const s = setup({ estimateEnabled: false });
    s.blocks(1, 3);
    const res = s.get("/v1/estimate_gas_price");
    expect(res.status).toBe(403);
    expect(text(res)).toBe(
      errorBody("api_disabled", "the gas estimation endpoint is disabled on this server"),
    );
    expect(res.headers).toMatchObject(chainHeadersAfter3());
    expect(s.get("/v1").status).toBe(200);
  });

  it("403 api_disabled when the negotiated format is disabled; the other format still works", () => {
    const noJson = setup({ jsonOutput: false });
    noJson.blocks(1, 1);
    expect(noJson.get("/v1/estimate_gas_price").status).toBe(403);
    expect(text(noJson.get("/v1/estimate_gas_price", { accept: "application/json" }))).toBe(
      errorBody(
        "api_disabled",
        "JSON output is disabled on this server; ask for application/x-bcs",
      ),
    );
    expect(noJson.get("/v1/estimate_gas_price", { accept: "application/x-bcs" }).status).toBe(200);
    const noBcs = setup({ bcsOutput: false });
    noBcs.blocks(1, 1);
    expect(text(noBcs.get("/v1/estimate_gas_price", { accept: "application/x-bcs" }))).toBe(
      errorBody("api_disabled", "BCS output is disabled on this server; ask for application/json"),
    );
    expect(noBcs.get("/v1/estimate_gas_price").status).toBe(200);
    // The refusal depends on Accept, so a cache must key it on Accept; the disabled endpoint
    // answers the same whatever the request asks for.
    expect(noBcs.get("/v1/estimate_gas_price", { accept: "application/x-bcs" }).headers.Vary).toBe(
      "Accept",
    );
    expect(noJson.get("/v1/estimate_gas_price").headers.Vary).toBe("Accept");
    const off = setup({ estimateEnabled: false });
    off.blocks(1, 1);
    expect(off.get("/v1/estimate_gas_price").headers.Vary).toBeUndefined();
    // Both formats off: one refusal whatever is asked, never advice to ask for the other.
    const none = setup({ jsonOutput: false, bcsOutput: false });
    none.blocks(1, 1);
    for (const accept of ["application/json", "application/x-bcs", "*/*"]) {
      const res = none.get("/v1/estimate_gas_price", { accept });
      expect(res.status, accept).toBe(403);
      expect(text(res)).toBe(
        errorBody(
          "api_disabled",
          "the gas estimation endpoint serves no output format on this server (JSON and BCS are both disabled)",
        ),
      );
      expect(res.headers.Vary).toBeUndefined();
    }
  });

  it("404 web_framework_error on an unknown path, with chain headers once the ledger is known", () => {
    const s = setup();
    for (const url of [
      "/",
      "/v2/estimate_gas_price",
      "/v1/estimate_gas_price/",
      "/v1/spec/assets/../../../package.json",
      "/v1/x?y=1",
    ]) {
      const res = s.get(url);
      expect(res.status, url).toBe(404);
      expect(text(res)).toBe(errorBody("web_framework_error", "not found"));
      expect(res.headers["X-Aptos-Block-Height"]).toBeUndefined();
    }
    s.blocks(1, 3);
    const res = s.get("/nope");
    expect(res.status).toBe(404);
    expect(res.headers).toMatchObject(chainHeadersAfter3());
  });

  it("405 web_framework_error with Allow on a known path with another method", () => {
    const s = setup();
    s.blocks(1, 3);
    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      for (const url of ["/v1/estimate_gas_price", "/v1/spec", "/spec.json", "/v1"]) {
        const res = s.get(url, {}, method);
        expect(res.status).toBe(405);
        expect(res.headers.Allow).toBe("GET, HEAD, OPTIONS");
        expect(text(res)).toBe(errorBody("web_framework_error", "method not allowed"));
        expect(res.headers).toMatchObject(chainHeadersAfter3());
      }
    }
  });

  it("400 web_framework_error on bad percent-encoding and over-long URLs", () => {
    const s = setup({ maxUrlLength: 100 });
    s.blocks(1, 3);
    for (const url of ["/v1/estimate_gas_price?x=%zz", "/v1/%E0%A4%A", "/v1/estimate%"]) {
      const res = s.get(url);
      expect(res.status, url).toBe(400);
      expect(text(res)).toBe(
        errorBody("web_framework_error", "malformed percent-encoding in the request URL"),
      );
      expect(res.headers).toMatchObject(chainHeadersAfter3());
    }
    const long = `/v1/estimate_gas_price?pad=${"a".repeat(100)}`;
    expect(text(s.get(long))).toBe(
      errorBody("web_framework_error", "request URL is too long (over 100 bytes)"),
    );
    expect(s.get(long.slice(0, 100)).status).toBe(200);
    expect(text(s.get("estimate_gas_price"))).toBe(
      errorBody("web_framework_error", "invalid request target"),
    );
    // A fragment is never sent in a request target: whatever sent one is not a URL client.
    for (const url of ["/v1/estimate_gas_price#x", "/v1#", "/nope#x"]) {
      const res = s.get(url);
      expect(res.status, url).toBe(400);
      expect(text(res), url).toBe(errorBody("web_framework_error", "invalid request target"));
    }
  });

  it("the default URL limit is 8192", () => {
    const s = setup();
    s.blocks(1, 1);
    const url = "/v1/estimate_gas_price?p=";
    expect(s.get(url + "a".repeat(8192 - url.length)).status).toBe(200);
    expect(s.get(url + "a".repeat(8193 - url.length)).status).toBe(400);
  });

  it("decodes percent-encoded paths and accepts absolute-form targets", () => {
    const s = setup({}, { config: override });
    s.blocks(1, 1);
    expect(text(s.get("/v1/estimate%5Fgas%5Fprice"))).toBe(ESTIMATE_100_150_300);
    expect(text(s.get("http://node.example:8080/v1/estimate_gas_price?x=1"))).toBe(
      ESTIMATE_100_150_300,
    );
  });

  it("HEAD of an error has the error's headers and no body", () => {
    const s = setup();
    const head = s.get("/v1/estimate_gas_price", {}, "HEAD");
    expect(head.status).toBe(503);
    expect(head.body).toBeUndefined();
    expect(head.headers["Content-Length"]).toBe(
      String(errorBody("internal_error", "no block has been ingested yet").length),
    );
    expect(s.get("/missing", {}, "HEAD").status).toBe(404);
  });

  it("an unexpected failure inside the handler is a generic 500, logged", () => {
    const { logger, lines } = recordingLogger();
    const s = setup();
    s.blocks(1, 1);
    const broken = {
      sourcesCompleted: false,
      close() {},
      snapshot(): never {
        throw new Error("disk on fire at /srv/x");
      },
    };
    const handler = createHandler(broken, { logger });
    const res = handler({ method: "GET", url: "/v1/estimate_gas_price", headers: {} });
    expect(res.status).toBe(500);
    expect(text(res)).toBe(errorBody("internal_error", "internal error"));
    const logged = lines.find((l) => l.level === "error")!;
    expect(logged.msg).toBe("request failed");
    expect((logged.obj.err as Error).message).toBe("disk on fire at /srv/x");
  });

  it("the generic 500 carries the chain-state headers once the ledger is known (GET and HEAD)", () => {
    const { logger, lines } = recordingLogger();
    const s = setup({ logger });
    s.blocks(1, 3);
    for (const method of ["GET", "HEAD"]) {
      const request = {
        method,
        url: "/v1/estimate_gas_price",
        // Every header read throws (a broken adapter): the routing fails, not the request's shape.
        headers: new Proxy(
          {},
          {
            get(): never {
              throw new Error("headers unreadable");
            },
          },
        ),
      };
      const res = s.handler(request);
      expect(res.status, method).toBe(500);
      expect(res.headers, method).toMatchObject(chainHeadersAfter3());
      expect(res.headers["X-Aptos-Block-Height"], method).toBe("3");
      expect(res.headers["Cache-Control"], method).toBe("no-store");
      expect(res.headers["Content-Length"], method).toBe(
        String(errorBody("internal_error", "internal error").length),
      );
      expect(text(res), method).toBe(
        method === "GET" ? errorBody("internal_error", "internal error") : "",
      );
    }
    expect(lines.filter((l) => l.level === "error").map((l) => l.msg)).toEqual([
      "request failed",
      "request failed",
    ]);
  });
});

describe("per-request debug lines", () => {
  it("logs method, url and status when the logger has no level check or enables debug", () => {
    for (const enabled of [undefined, true]) {
      const { logger, lines } = recordingLogger();
      const s = setup({
        logger: enabled === undefined ? logger : { ...logger, isLevelEnabled: () => enabled },
      });
      s.get("/v1/estimate_gas_price");
      expect(lines.filter((l) => l.level === "debug")).toEqual([
        {
          level: "debug",
          obj: { method: "GET", url: "/v1/estimate_gas_price", status: 503 },
          msg: "request",
        },
      ]);
    }
  });

  it("skips them when the logger says debug is disabled, asking on every request", () => {
    const { logger, lines } = recordingLogger();
    let debug = false;
    const asked: string[] = [];
    const s = setup({
      logger: {
        ...logger,
        isLevelEnabled(level: string) {
          asked.push(level);
          return debug;
        },
      },
    });
    s.get("/v1/estimate_gas_price");
    expect(lines.filter((l) => l.level === "debug")).toEqual([]);
    debug = true;
    s.get("/nope");
    expect(lines.filter((l) => l.level === "debug").map((l) => l.obj.url)).toEqual(["/nope"]);
    expect(asked).toEqual(["debug", "debug"]);
  });
});
