import { describe, expect, it } from "vitest";
import { InvalidConfigError } from "../../src/core/errors.js";
import {
  type AptosRestEvent,
  aptosRest,
  aptosRestEventFields,
  describeAptosRestEvent,
  normaliseNodeUrl,
  resolveAptosRestOptions,
} from "../../src/sources/aptosRest.js";
import { asJson, collect, expected, fakeNode, fast, retries } from "./followHelpers.js";

const basic = (userPass: string) => `Basic ${Buffer.from(userPass, "utf8").toString("base64")}`;
const authorizationOf = (url: string, headers?: Record<string, string>) =>
  resolveAptosRestOptions(url, { headers }).headers.authorization;

describe("aptosRest: a user name and password in the URL", () => {
  it("are sent as Authorization: Basic, as curl sends them", () => {
    expect(authorizationOf("http://user:s3cret@127.0.0.1:8080/v1")).toBe(basic("user:s3cret"));
    // Percent-decoded: a space, an @ and a : in the password.
    expect(authorizationOf("http://us%20er:p%40ss%3Aw@node")).toBe(basic("us er:p@ss:w"));
    // Characters the URL parser encodes (UTF-8) are sent as their bytes.
    expect(authorizationOf("http://jörg:pässword@node")).toBe(basic("jörg:pässword"));
    expect(authorizationOf("http://j%C3%B6rg:p%C3%A4ssword@node")).toBe(basic("jörg:pässword"));
    // A user name alone (an API key as the user), a password alone.
    expect(authorizationOf("https://apikey@node/v1")).toBe(basic("apikey:"));
    expect(authorizationOf("https://:pw@node/v1")).toBe(basic(":pw"));
    // A % without two hex digits is kept as it is.
    expect(authorizationOf("http://u:50%zz@node")).toBe(basic("u:50%zz"));
    expect(authorizationOf("http://node/v1")).toBeUndefined();
  });

  it("an authorization header of the options wins, in any case", () => {
    expect(authorizationOf("http://user:pw@node", { Authorization: "Bearer key" })).toBe(
      "Bearer key",
    );
    expect(authorizationOf("http://user:pw@node", { "x-api-key": "k" })).toBe(basic("user:pw"));
  });

  it("are in no base URL, and hidden in the message of a URL that cannot be parsed", () => {
    const o = resolveAptosRestOptions("https://user:s3cret@node.example/prefix/v1/");
    expect(o.baseUrl).toBe("https://node.example/prefix");
    expect(normaliseNodeUrl("https://user:s3cret@node.example/v1")).toBe("https://node.example");
    const message = (url: string) => {
      try {
        resolveAptosRestOptions(url);
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidConfigError);
        return (e as InvalidConfigError).message;
      }
      return "accepted";
    };
    expect(message("http://user:s3cret@node:99999/v1")).toBe(
      'invalid configuration: url: must be an http(s) URL such as http://127.0.0.1:8080 (got "http://***@node:99999/v1")',
    );
    expect(message("http://user:s3/cret@node/v1")).not.toContain("s3");
  });

  it("a user name holding ':' once decoded is refused (the server would split it there)", () => {
    expect(() => resolveAptosRestOptions("http://a%3Ab:s3cret@node")).toThrow(
      "invalid configuration: url: the user name must not contain ':' once percent-decoded (Basic authentication splits user and password at the first ':')",
    );
  });

  it("a node behind Basic authentication is followed; no event holds the password", async () => {
    const node = await fakeNode({ blocks: 40 });
    const events: AptosRestEvent[] = [];
    const sent: string[] = [];
    let answers = 0;
    const source$ = aptosRest(node.url.replace("http://", "http://ops%40example.com:s3cret@"), {
      ...fast,
      backfillBlocks: 5,
      onEvent: (e) => events.push(e),
      fetch: (input, init) => {
        sent.push(String(input));
        // The node: 401 without the right credentials; one 503 for a retry to be reported.
        if (new Headers(init?.headers).get("authorization") !== basic("ops@example.com:s3cret"))
          return Promise.resolve(new Response("unauthorized", { status: 401 }));
        if (++answers === 2) return Promise.resolve(new Response("busy", { status: 503 }));
        return fetch(input, init);
      },
    });
    const blocks = await collect(source$, 5);
    expect(asJson(blocks)).toEqual(expected(node, node.chain.tip - 4n, node.chain.tip));
    expect(retries(events)).toHaveLength(1);
    const logged = JSON.stringify([
      events.map(aptosRestEventFields),
      events.map(describeAptosRestEvent),
      sent,
    ]);
    expect(logged).toContain(node.url);
    expect(logged).not.toMatch(/s3cret|ops%40|ops@/);
  });
});
