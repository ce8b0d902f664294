import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { InvalidConfigError } from "../../src/core/errors.js";
import {
  type AptosRestOptions,
  aptosRest,
  resolveAptosRestOptions,
} from "../../src/sources/aptosRest.js";
import { noNodeUrl } from "../helpers/freePort.js";
import { asJson, collect, expected, fakeNode, follow } from "./followHelpers.js";

/** A node URL nothing listens on (not port 1 or 9: Fetch "bad ports" are refused up front). */
const NO_NODE = await noNodeUrl();

/** The issues `aptosRest()` throws for these headers (none: `[]`). */
function headerIssues(headers: unknown) {
  try {
    aptosRest(NO_NODE, { headers } as AptosRestOptions);
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidConfigError);
    return (e as InvalidConfigError).issues.map(({ path, message }) => ({ path, message }));
  }
  return [];
}

const TOKEN_RULE = "must be an RFC 9110 token (letters, digits and !#$%&'*+-.^_`|~)";

describe("aptosRest: headers fetch would refuse are refused at the call", () => {
  it("a CR/LF or NUL in a value, a space in a name (the audit's cases)", () => {
    expect(headerIssues({ "x-a": "x\r\nb: y" })).toEqual([
      {
        path: "headers.x-a",
        message: "must not contain a line break (CR at index 1): it would end the header",
      },
    ]);
    expect(headerIssues({ "x-a": "a\0b", "a b": "x" })).toEqual([
      {
        path: "headers.x-a",
        message: "must not contain a control character other than tab (NUL at index 1)",
      },
      { path: `headers["a b"]`, message: `the name ${TOKEN_RULE}, got " " at index 1` },
    ]);
  });

  it("names that cannot be a path are shown, cut, in the message", () => {
    expect(headerIssues({ "": "v", "x\r\ny": "v", ["é".repeat(200)]: "v" })).toEqual([
      { path: "headers", message: `a header name ${TOKEN_RULE}, got an empty name` },
      { path: "headers", message: `a header name ${TOKEN_RULE}, got "x\\r\\ny" (CR at index 1)` },
      {
        path: "headers",
        message: expect.stringMatching(
          /^a header name .* got "é+…" \(200 characters\) \(U\+00E9 at index 0\)$/,
        ),
      },
    ]);
  });

  it("never echoes a value (it is often a secret)", () => {
    const secret = "Bearer s3cret-api-key";
    for (const bad of [`${secret}\r\nx`, `${secret}\u0001`, `${secret}\u20ac`]) {
      const [issue] = headerIssues({ authorization: bad });
      expect(issue!.path).toBe("headers.authorization");
      expect(issue!.message).not.toContain("s3cret");
    }
    expect(headerIssues({ "x-a": "\u20ac" })).toEqual([
      {
        path: "headers.x-a",
        message: "must hold characters U+0000 to U+00FF only, sent as bytes (U+20AC at index 0)",
      },
    ]);
  });

  it("headers the HTTP client sets, the same name twice, a value that is not a string", () => {
    expect(
      headerIssues({ Host: "h", expect: "100-continue", Accept: "a", accept: "b", n: 5 }),
    ).toEqual([
      { path: "headers.Host", message: "cannot be given: the HTTP client sets host itself" },
      { path: "headers.expect", message: "cannot be given: the HTTP client sets expect itself" },
      {
        path: "headers.accept",
        message: "is given twice, as Accept and accept: header names ignore case",
      },
      { path: "headers.n", message: "must be a string (got 5)" },
    ]);
  });

  it("headers must be a plain object; a Headers object is not silently emptied", () => {
    const rule =
      'must be a plain object of header names and values, such as { authorization: "Bearer <api key>" }';
    expect(headerIssues(new Headers({ a: "b" }))).toEqual([
      { path: "headers", message: `${rule} (got a Headers object)` },
    ]);
    expect(headerIssues(["a"])).toEqual([
      { path: "headers", message: `${rule} (got an array of 1 item)` },
    ]);
    expect(headerIssues(null)).toEqual([{ path: "headers", message: `${rule} (got null)` }]);
  });

  it("lists 20 bad headers, then counts the rest", () => {
    const many = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`b ${i}`, "v"]));
    const issues = headerIssues(many);
    expect(issues).toHaveLength(21);
    expect(issues[20]).toEqual({ path: "", message: "and 9980 more issues (not listed)" });
  });

  it("names are sent lowercase and values without the spaces and line breaks at their ends", () => {
    const o = resolveAptosRestOptions("http://node", {
      headers: { Authorization: " Bearer k\n", "X-Api-Key": "\tk2 ", "x-empty": "" },
    });
    expect(o.headers).toEqual({ authorization: "Bearer k", "x-api-key": "k2", "x-empty": "" });
    expect(Object.isFrozen(o.headers)).toBe(true);
  });

  // A hang guard, not a speed claim: a regex trimmed in quadratic time (100,000 spaces inside a
  // value: 11 s; these 300,000 would take about 2 min).
  it("trims a value with a long run of spaces inside at once", { timeout: 10_000 }, () => {
    const inner = " ".repeat(300_000);
    const o = resolveAptosRestOptions("http://node", { headers: { "x-a": ` a${inner}b ` } });
    expect(o.headers["x-a"]).toBe(`a${inner}b`);
  });
});

describe("aptosRest: what the check accepts is what node's fetch sends", () => {
  it("for every character from U+0000 to U+017F in a value and in a name", async () => {
    let got: IncomingHttpHeaders = {};
    const server = createServer((req, res) => {
      got = req.headers;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const sends = async (headers: Record<string, string>) => {
      try {
        await (await fetch(url, { headers })).arrayBuffer();
        return true;
      } catch {
        return false;
      }
    };
    try {
      const disagree: string[] = [];
      for (let c = 0; c <= 0x17f; c++) {
        const ch = String.fromCharCode(c);
        const value = `a${ch}b`;
        const sent = (await sends({ "x-t": value })) && got["x-t"] === value;
        if ((headerIssues({ "x-t": value }).length === 0) !== sent) disagree.push(`value ${c}`);
        const name = `x${ch}y`;
        const named = await sends({ [name]: "v" });
        if ((headerIssues({ [name]: "v" }).length === 0) !== named) disagree.push(`name ${c}`);
      }
      expect(disagree).toEqual([]);
    } finally {
      server.close();
    }
  });

  it("the source sends the checked headers with every request and follows the chain", async () => {
    const node = await fakeNode({ blocks: 30 });
    const seen: Headers[] = [];
    const { source$, from } = follow(node, {
      backfillBlocks: 5,
      headers: { "X-Api-Key": " k\n" },
      fetch: (input, init) => {
        seen.push(new Headers(init?.headers));
        return fetch(input, init);
      },
    });
    const blocks = await collect(source$, 5);
    expect(asJson(blocks)).toEqual(expected(node, from(), node.chain.tip));
    expect(seen.length).toBeGreaterThan(5);
    for (const h of seen)
      expect([h.get("x-api-key"), h.get("accept")]).toEqual(["k", "application/json"]);
  });
});
