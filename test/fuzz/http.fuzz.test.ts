// Raw-socket HTTP fuzzing of `gasdigest serve` (issue 13): mutated request lines, headers and
// bodies, good and bad requests pipelined in one segment or split at random bytes, with or
// without a half-close. Every run checks that every answer is well formed and carries our
// headers (an error object when it is an error), and that the good requests ahead of the first
// bad one are all answered, in order, as they should be. Then: the server is alive, answers a
// good request, and its resident memory stayed bounded.
//
// The seed is FC_SEED when set, else fresh; it is printed either way. Replay a failure with
//   FC_SEED=<seed> npx vitest run test/fuzz/http.fuzz.test.ts
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchange, type RawResponse } from "../helpers/rawHttp.js";
import { type ServeChild, startServeChild } from "../helpers/serveChild.js";

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : Date.now() % 2 ** 31;
const TIME_LIMIT_MS = 20_000;
const RSS_LIMIT_MB = 300;

/** A request whose answer is known. */
interface Good {
  kind: "good";
  bytes: string;
  method: string;
  status: number;
}
/** Anything else: answered or refused, but never with a malformed answer or a crash. */
interface Bad {
  kind: "bad";
  bytes: string;
}

const crlf = (lines: string[], body = "") => `${lines.join("\r\n")}\r\n\r\n${body}`;

const goodRequest: fc.Arbitrary<Good> = fc.oneof(
  fc
    .constantFrom("application/json", "application/x-bcs", "*/*", "text/html;q=0.5")
    .map((accept) => ({
      kind: "good" as const,
      method: "GET",
      status: 200,
      bytes: crlf(["GET /v1/estimate_gas_price HTTP/1.1", "Host: x", `Accept: ${accept}`]),
    })),
  fc
    .constantFrom(
      ["GET", "/v1", 200],
      ["GET", "/v1/-/healthy", 200],
      ["GET", "/spec.json", 200],
      ["GET", "/v1/estimate_gas_price?unknown=1&x=%20", 200],
      ["GET", "/v1/nope", 404],
      ["HEAD", "/v1/estimate_gas_price", 200],
      ["HEAD", "/v1/nope", 404],
      ["OPTIONS", "/v1/estimate_gas_price", 204],
      ["DELETE", "/v1", 405],
    )
    .map(([method, path, status]) => ({
      kind: "good" as const,
      method: method as string,
      status: status as number,
      bytes: crlf([`${method} ${path} HTTP/1.1`, "Host: x"]),
    })),
  fc.string({ maxLength: 200 }).map((body) => ({
    kind: "good" as const,
    method: "POST",
    status: 405,
    bytes: crlf(
      [
        "POST /v1/estimate_gas_price HTTP/1.1",
        "Host: x",
        `Content-Length: ${Buffer.byteLength(body)}`,
      ],
      body,
    ),
  })),
);

const token = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/);
const junk = fc.string({ unit: "binary", maxLength: 60 });
const anyText = fc.oneof(junk, fc.string({ maxLength: 60 }), token);

const method = fc.oneof(
  fc.constantFrom("GET", "HEAD", "POST", "PUT", "OPTIONS", "CONNECT", "PRI", "TRACE", "get", ""),
  token,
  junk,
);
const target = fc.oneof(
  fc.constantFrom(
    "/v1/estimate_gas_price",
    "/v1",
    "*",
    "",
    "http://x/v1",
    "//v1",
    "/v1/%zz",
    "/v1/estimate_gas_price?x=%",
    "example.com:443",
  ),
  fc.nat({ max: 20_000 }).map((n) => `/v1/${"a".repeat(n)}`),
  anyText.map((t) => `/v1/${t}`),
  junk,
);
const version = fc.oneof(
  fc.constantFrom("HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/1.2", "HTTP/9", "http/1.1", ""),
  junk,
);
const header = fc.oneof(
  fc.constantFrom(
    "Host: x",
    "Host: x",
    "Content-Length: 0",
    "Content-Length: 5",
    "Content-Length: -1",
    "Content-Length: 99999999999999999999",
    "Content-Length: abc",
    "Transfer-Encoding: chunked",
    "Transfer-Encoding: gzip, chunked",
    "Transfer-Encoding: bogus",
    "Expect: 100-continue",
    "Expect: nothing",
    "Connection: close",
    "Connection: Upgrade",
    "Upgrade: websocket",
    "Accept: application/x-bcs;q=0.9, application/json;q=0.9",
    "Access-Control-Request-Headers: x-aptos-client",
  ),
  fc.tuple(token, anyText).map(([name, value]) => `${name}: ${value}`),
  fc.nat({ max: 20_000 }).map((n) => `X-Pad: ${"p".repeat(n)}`),
  junk,
);
const body = fc.oneof(
  fc.constant(""),
  anyText,
  fc.constantFrom("5\r\nhello\r\n0\r\n\r\n", "zz\r\n", "3\r\nab", "0\r\n\r\n"),
  fc.nat({ max: 40_000 }).map((n) => "b".repeat(n)),
);
const eol = fc.constantFrom("\r\n", "\r\n", "\r\n", "\n", "\r");

/** A request built from mutated parts. */
const builtRequest: fc.Arbitrary<Bad> = fc
  .record({
    method,
    target,
    version,
    headers: fc.array(header, { maxLength: 6 }),
    body,
    eol,
  })
  .map((r) => ({
    kind: "bad" as const,
    bytes: `${[`${r.method} ${r.target} ${r.version}`, ...r.headers].join(r.eol)}${r.eol}${r.eol}${r.body}`,
  }));

/** A good request with bytes flipped, inserted, removed or cut. */
const mutatedRequest: fc.Arbitrary<Bad> = fc
  .tuple(
    goodRequest,
    fc.array(
      fc.record({
        at: fc.nat(),
        op: fc.constantFrom("flip", "insert", "delete", "cut"),
        byte: fc.integer({ min: 0, max: 255 }),
      }),
      { minLength: 1, maxLength: 4 },
    ),
  )
  .map(([good, edits]) => {
    let b = Buffer.from(good.bytes, "latin1");
    for (const e of edits) {
      const at = e.at % Math.max(1, b.length);
      if (e.op === "flip") b[at] = e.byte;
      else if (e.op === "insert")
        b = Buffer.concat([b.subarray(0, at), Buffer.of(e.byte), b.subarray(at)]);
      else if (e.op === "delete") b = Buffer.concat([b.subarray(0, at), b.subarray(at + 1)]);
      else b = b.subarray(0, at);
    }
    return { kind: "bad" as const, bytes: b.toString("latin1") };
  });

const scenario = fc.record({
  items: fc.array(fc.oneof({ weight: 3, arbitrary: goodRequest }, builtRequest, mutatedRequest), {
    minLength: 1,
    maxLength: 8,
  }),
  cuts: fc.array(fc.nat(), { maxLength: 3 }),
  halfClose: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, fc.constant(false)),
});

/** `method` of the request answered, `undefined` when not known for sure (then the body is not checked). */
function expectWellFormed(r: RawResponse, method: string | undefined) {
  expect(r.head).toMatch(/^HTTP\/1\.1 \d{3} [^\r\n]*\r\n/);
  expect(r.headers["x-content-type-options"]).toBe("nosniff");
  expect(r.headers["access-control-allow-origin"]).toBe("*");
  expect(r.headers.date).toMatch(/ GMT$/);
  // (The answer to a malformed request carries its body even when it began with HEAD.)
  if (method !== undefined && r.status >= 400 && (r.body !== "" || method !== "HEAD"))
    expect(JSON.parse(r.body)).toEqual({
      message: expect.any(String),
      error_code: expect.any(String),
      vm_error_code: null,
    });
}

let server: ServeChild;
beforeAll(async () => {
  server = await startServeChild([
    "--request-timeout-ms",
    "1000",
    "--write-idle-timeout-ms",
    "2000",
  ]);
}, 30_000);
afterAll(async () => {
  await server?.kill();
});

describe("HTTP fuzz against gasdigest serve", () => {
  it("answers every request well formed and every good one ahead of a bad one, without crashing or growing", async () => {
    console.log(`http fuzz: seed ${SEED} (replay with FC_SEED=${SEED})`);
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async ({ items: generated, cuts, halfClose }) => {
        runs++;
        // A bad item of nothing but line ends is no request at all (node skips them): drop it,
        // so that answer i is that of item i up to the first bad item.
        const items = generated.filter((i) => i.kind === "good" || /[^\r\n ]/.test(i.bytes));
        const all = Buffer.from(items.map((i) => i.bytes).join(""), "latin1");
        const points = [...new Set(cuts.map((c) => c % (all.length + 1)))].sort((a, b) => a - b);
        const segments = [0, ...points, all.length]
          .slice(1)
          .map((end, i, ends) => all.subarray(i === 0 ? 0 : ends[i - 1], end))
          .filter((s) => s.length > 0);
        const goodPrefix: Good[] = [];
        for (const item of items) {
          if (item.kind !== "good") break;
          goodPrefix.push(item);
        }
        // The method of each request, so that HEAD answers are read without a body (a guess for
        // bad ones: an answer misread after a wrong guess does not start with a status line).
        const methods = items.map((i) => (i.kind === "good" ? i.method : i.bytes.split(" ")[0]!));
        const r = await exchange(server.port, segments, {
          methods,
          halfClose,
          timeoutMs: halfClose ? 3000 : 800,
          gapMs: 2,
        });
        // Answers are aligned with requests up to the first bad one (a bad one may be no request
        // at all, or two); past it, a HEAD guessed wrong shifts the bodies, so only heads that
        // start with a status line are checked, and their bodies not.
        for (const [i, response] of r.responses.entries())
          if (response.head.startsWith("HTTP/1.1 "))
            expectWellFormed(response, i <= goodPrefix.length ? methods[i] : undefined);
        expect(r.responses[0]?.head ?? "HTTP/1.1 ").toMatch(/^HTTP\/1\.1 /);
        expect(r.responses.slice(0, goodPrefix.length).map((x) => x.status)).toEqual(
          goodPrefix.map((g) => g.status),
        );
        expect(server.alive()).toBe(true);
      }),
      { seed: SEED, numRuns: 400, interruptAfterTimeLimit: TIME_LIMIT_MS, endOnFailure: true },
    );
    console.log(`http fuzz: ${runs} runs, peak RSS ${server.peakRss().toFixed(0)} MB`);
    expect(runs).toBeGreaterThan(20);
    expect(server.alive()).toBe(true);
    const after = await exchange(
      server.port,
      ["GET /v1/estimate_gas_price HTTP/1.1\r\nHost: x\r\n\r\n"],
      {
        halfClose: true,
      },
    );
    expect(after.responses.map((x) => x.status)).toEqual([200]);
    expect(server.peakRss()).toBeLessThan(RSS_LIMIT_MB);
  }, 60_000);
});
